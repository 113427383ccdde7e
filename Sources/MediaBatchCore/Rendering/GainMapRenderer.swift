import MetadataKit
import VipsKit

/// An HDR photo's gain map for each of an item's pictures, from one read of it: turned like the
/// picture and resized to the picture's size at the scale the file keeps it at (Apple's at half,
/// Ultra HDR's often a quarter), so it stays aligned with what it brightens. An Apple gain map is
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
    /// file's gain map cannot be read (see `dropped`).
    func gainMap(for picture: Picture) -> (jpeg: [UInt8], metadata: GainMapMetadata)? {
        guard case .success(let source) = read() else { return nil }
        do {
            let shaped = try shape(source.image, like: picture)
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
    /// file's own ratio of gain map to picture.
    private func shape(_ gainMap: VImage, like picture: Picture) throws -> VImage {
        let turned = picture.isTurned ? try gainMap.oriented(picture.source.orientation) : gainMap
        let frame = picture.isTurned ? picture.source.upright : picture.source.stored
        func side(_ size: Int, _ map: Int, _ base: Int) -> Int { max(1, Int((Double(size) * Double(map) / Double(base)).rounded())) }
        let width = side(picture.size.width, turned.width, frame.width), height = side(picture.size.height, turned.height, frame.height)
        guard width != turned.width || height != turned.height else { return turned }
        return try turned.resized(width: width, height: height)
    }
}

/// Why a gain map is left out.
struct GainMapFailure: Error {
    let reason: String
}
