import Foundation
import MetadataKit
import VipsKit

/// An HDR photo's gain map for each of an item's pictures, from one read of it: turned like the
/// picture, resized to the picture's size at the scale the file keeps it at (Apple's at half,
/// Ultra HDR's often a quarter), and cut or padded where the picture is, at that scale, so it
/// stays aligned with what it brightens. Padding boosts nothing. An Apple gain map is
/// converted to the ISO 21496-1 curve once, at its own size (see `AppleHDR.recoveryLUT`).
///
/// Converting the picture's colour (Display P3 to sRGB) leaves the gain map valid: a one-channel
/// map scales every channel of a pixel's linear light by the same factor f (HDR = f·SDR, with
/// offsets k: HDR + k = f·(SDR + k)), and a change of primaries is a 3×3 matrix M that maps white
/// to white, so M(f·SDR) = f·M(SDR) and M(k,k,k) = (k,k,k): the same f holds after conversion.
/// Only colours outside sRGB, clipped by the conversion, differ.
///
/// A gain map that cannot be read is left out with a reason (`dropped`), never failing the item.
final class GainMapRenderer {
    /// libultrahdr's own quality for gain maps: their error multiplies highlights.
    static let quality = 85

    private let item: ItemContext
    private var source: Result<(image: VImage, metadata: GainMapMetadata), GainMapFailure>?

    init(_ item: ItemContext) {
        self.item = item
    }

    /// Why the gain map was left out, once it was asked for and could not be read.
    var dropped: String? {
        if case .failure(let failure)? = source { return "HDR gain map: \(failure.reason), dropped" }
        return nil
    }

    /// The gain map shaped as `picture` is, encoded as a JPEG, with its metadata; nil when the
    /// file's gain map cannot be read (see `dropped`). `smartCut`: where smartcrop cut the
    /// picture from its resized image, when it chose the region.
    func gainMap(for picture: Picture, smartCut: (left: Int, top: Int)? = nil) -> (jpeg: [UInt8], metadata: GainMapMetadata)? {
        guard case .success(let source) = read() else { return nil }
        do {
            let shaped = try shape(source.image, like: picture, smartCut: smartCut, metadata: source.metadata)
            return (try shaped.encoded(as: .jpeg, quality: Self.quality), source.metadata)
        } catch {
            let reason = (error as? VipsError)?.message ?? "\(error)"
            self.source = .failure(GainMapFailure(reason: "cannot be resized or encoded (\(reason))"))
            return nil
        }
    }

    private func read() -> Result<(image: VImage, metadata: GainMapMetadata), GainMapFailure> {
        if let source { return source }
        let read = Result { try GainMapReading.read(item) }.mapError { $0 as? GainMapFailure ?? GainMapFailure(reason: "\($0)") }
        source = read
        return read
    }

    /// `gainMap` in `picture`'s frame (turned where the picture is) at `picture`'s size times the
    /// file's own ratio of gain map to picture, cut or padded as the picture is.
    private func shape(_ gainMap: VImage, like picture: Picture, smartCut: (left: Int, top: Int)?,
                       metadata: GainMapMetadata) throws -> VImage {
        let turned = picture.isTurned ? try gainMap.oriented(picture.source.orientation) : gainMap
        let frame = picture.isTurned ? picture.source.upright : picture.source.stored
        let ratio = (width: Double(turned.width) / Double(frame.width), height: Double(turned.height) / Double(frame.height))
        func side(_ size: Int, _ ratio: Double) -> Int { max(1, Int((Double(size) * ratio).rounded())) }
        let width = side(picture.scaled.width, ratio.width), height = side(picture.scaled.height, ratio.height)
        let resized = width == turned.width && height == turned.height ? turned : try turned.resized(width: width, height: height)
        guard let placement = picture.framing?.placement else { return resized }
        func at(_ offset: Int, _ ratio: Double) -> Int { Int((Double(offset) * ratio).rounded()) }
        let target = (width: side(picture.size.width, ratio.width), height: side(picture.size.height, ratio.height))
        switch placement {
        case .pad(let left, let top, _):
            let neutral = Self.neutralValue(metadata)
            return try resized.padded(left: at(left, ratio.width), top: at(top, ratio.height), width: target.width, height: target.height,
                                      rgba: [neutral[0], neutral[1], neutral[2], 255])
        case .crop, .smartCrop:
            var cut = (left: 0, top: 0)
            if case .crop(let left, let top) = placement { cut = (left, top) } else if let smartCut { cut = smartCut }
            let left = min(at(cut.left, ratio.width), resized.width - 1), top = min(at(cut.top, ratio.height), resized.height - 1)
            return try resized.cropped(left: left, top: top, width: min(target.width, resized.width - left),
                                       height: min(target.height, resized.height - top))
        }
    }

    /// Each channel's stored value for a boost of 1 (log2 0): what the padding holds, so it
    /// brightens nothing. Stored values are `((log2 boost − min) / (max − min))^gamma`, 0–255.
    static func neutralValue(_ metadata: GainMapMetadata) -> [Double] {
        (0..<3).map { channel in
            func value(_ list: [Double]) -> Double { list.count == 1 ? list[0] : list[channel] }
            let (min, max, gamma) = (value(metadata.gainMapMin), value(metadata.gainMapMax), value(metadata.gamma))
            guard max > min else { return 0 }
            return (pow(Swift.min(1, Swift.max(0, -min / (max - min))), gamma) * 255).rounded()
        }
    }
}

/// Why a gain map is left out.
struct GainMapFailure: Error {
    let reason: String
}
