import Foundation
import MediaFormats

/// What decides which file of a group is kept.
public struct KeeperFacts: Sendable {
    public let format: MediaFormat?
    // Kept narrow, in 24 bytes: a million candidates hold one each.
    private let size: (width: Int32, height: Int32)
    private let metadata: Int32
    /// Seconds since 1970; NaN where unknown.
    private let capturedSeconds: Double

    public init(format: MediaFormat?, width: Int, height: Int, metadataBytes: Int, captured: Date?) {
        self.format = format
        size = (Int32(clamping: width), Int32(clamping: height))
        metadata = Int32(clamping: metadataBytes)
        capturedSeconds = captured?.timeIntervalSince1970 ?? .nan
    }

    /// The photo's size, upright.
    public var width: Int { Int(size.width) }
    public var height: Int { Int(size.height) }
    /// Bytes of EXIF, XMP and IPTC the file carries.
    public var metadataBytes: Int { Int(metadata) }
    public var captured: Date? { capturedSeconds.isNaN ? nil : Date(timeIntervalSince1970: capturedSeconds) }

    var pixels: Int { width * height }
}

/// The keeper of a group, rule by rule, the first that tells two files apart deciding: a camera's
/// RAW, then a camera's or phone's own format (HEIC, AVIF, JPEG XL) over what is exported from it
/// (JPEG, then lossless copies, then WebP and GIF); the larger picture; the more metadata; the
/// earlier capture; the first path.
public enum KeeperRule {
    /// Lower is more original.
    static func originality(_ format: MediaFormat?) -> Int {
        guard let format else { return 5 }
        if format.isCameraRaw { return 0 }
        switch format {
        case .heic, .avif, .jxl: return 1
        case .jpeg: return 2
        case .tiff, .png, .psd, .bmp: return 3
        default: return 4
        }
    }

    /// The index of the keeper among `files` (sorted by path) and why it beats the best file of other bytes.
    static func choose(_ files: [DuplicateCandidate]) -> (Int, String) {
        let ranked = files.indices.sorted { better(files[$0].keeper, than: files[$1].keeper) ?? ($0 < $1) }
        guard let next = ranked.first(where: { files[$0].content != files[ranked[0]].content }) else {
            return (ranked[0], "identical bytes: the first by path")
        }
        return (ranked[0], why(files[ranked[0]].keeper, over: files[next].keeper))
    }

    /// Whether `a` is kept rather than `b`; nil when no rule tells them apart.
    static func better(_ a: KeeperFacts, than b: KeeperFacts) -> Bool? {
        if originality(a.format) != originality(b.format) { return originality(a.format) < originality(b.format) }
        if a.pixels != b.pixels { return a.pixels > b.pixels }
        if a.metadataBytes != b.metadataBytes { return a.metadataBytes > b.metadataBytes }
        if let x = a.captured, let y = b.captured, x != y { return x < y }
        return nil
    }

    private static func why(_ kept: KeeperFacts, over other: KeeperFacts) -> String {
        let name = { (facts: KeeperFacts) in facts.format?.rawValue ?? "unknown format" }
        if originality(kept.format) != originality(other.format) {
            return originality(kept.format) == 0 ? "\(name(kept)): a camera's RAW over \(name(other))"
                : "\(name(kept)): the more original format over \(name(other))"
        }
        if kept.pixels != other.pixels { return "larger: \(kept.width)×\(kept.height) over \(other.width)×\(other.height)" }
        if kept.metadataBytes != other.metadataBytes { return "more metadata: \(kept.metadataBytes) bytes over \(other.metadataBytes)" }
        if let x = kept.captured, let y = other.captured, x != y { return "captured earlier" }
        return "alike: the first by path"
    }
}
