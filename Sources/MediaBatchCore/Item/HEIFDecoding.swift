import Foundation
import MetadataKit

/// Which decoder makes a HEIC's primary image, chosen from its header before any pixel is
/// decoded: libavcodec's HEVC decoder through mediabatch's own loader (`HEIFPicture`) where
/// `HEIFCoding` reads the image, libheif (libvips' `heifload`) for everything else, or for every
/// file when `MEDIABATCH_HEIF_DECODER=libheif` asks (to compare the two).
enum HEIFDecoding: Codable, Hashable, Sendable {
    /// With the size of its tiles (a single image: one tile), which its decode holds a row of (`CostEstimator`).
    case libavcodec(tile: PixelSize)
    /// Why: what the loader declines, or that the environment asked.
    case libheif(reason: String)

    static let environmentKey = "MEDIABATCH_HEIF_DECODER"

    static func choose(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> HEIFDecoding {
        if environment[environmentKey] == "libheif" { return .libheif(reason: "\(environmentKey)=libheif") }
        switch HEIFCoding.read(path: path) {
        case .hevc(let coded): return .libavcodec(tile: PixelSize(width: coded.tileWidth, height: coded.tileHeight))
        case .declines(let reason): return .libheif(reason: reason)
        }
    }
}
