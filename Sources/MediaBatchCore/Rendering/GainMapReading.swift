import Foundation
import MediaFormats
import MetadataKit
import VipsKit

/// An item's gain map read from its file in the ISO 21496-1 form Ultra HDR writes: a JPEG's from
/// its MPF picture (Ultra HDR and ISO 21496-1 maps as they are; Apple's remapped), an iPhone
/// HEIC's from its auxiliary image (remapped), decoded by libavcodec where the picture is, else
/// by libheif. Each failure is a reason the gain map is left out, never the item's.
enum GainMapReading {
    static func read(_ item: ItemContext) throws -> (image: VImage, metadata: GainMapMetadata) {
        guard let kind = item.pictureSource?.gainMap else { throw GainMapFailure(reason: "none found") }
        do {
            switch (item.format, kind) {
            case (.jpeg, _): return try jpeg(item, maxPixels: maxPixels(item))
            case (.heic, .apple): return try appleHEIF(item)
            case (_, .samsung): throw GainMapFailure(reason: "Samsung's is not read (a colour map whose meaning Samsung does not publish)")
            default: throw GainMapFailure(reason: "an ISO 21496-1 tmap in \(item.format.rawValue) is not read: Debian's libheif has no gain map API")
            }
        } catch let error as VipsError {
            throw GainMapFailure(reason: "cannot be decoded (\(error.message))")
        } catch let error as MetadataFormatError {
            throw GainMapFailure(reason: error.message)
        } catch let error as HEIFError {
            throw GainMapFailure(reason: "cannot be decoded (\(error.message))")
        }
    }

    /// A gain map four times its picture's pixels is no gain map (they are usually smaller than
    /// their picture; the largest seen, a Photoshop one in the corpus, has 1.6 times its pixels):
    /// its decode is refused from its header.
    private static func maxPixels(_ item: ItemContext) -> Int {
        4 * (item.pictureSource.map { $0.stored.width * $0.stored.height } ?? 0)
    }

    /// Through the JPEG structure the header phase read, not a second walk of the file's head.
    private static func jpeg(_ item: ItemContext, maxPixels: Int) throws -> (image: VImage, metadata: GainMapMetadata) {
        guard case .image(_, _, .jpeg(let structure))? = try? item.header.get().content,
              let found = try JPEGGainMap.read(path: item.input.path, structure: structure) else { throw GainMapFailure(reason: "not found where the file's index says") }
        let image = try VImage.decodingJPEG(found.jpeg, maxPixels: maxPixels)
        guard found.kind == .apple else {
            guard let metadata = found.metadata else { throw GainMapFailure(reason: "its metadata is missing") }
            return (image, try metadata.validated())
        }
        return try apple(image, headroom: found.metadata.map { exp2($0.hdrCapacityMax) })
    }

    /// Decoded by libavcodec where the picture is (`HEIFPicture.decodeLuma`), else, or where that fails, by libheif.
    private static func appleHEIF(_ item: ItemContext) throws -> (image: VImage, metadata: GainMapMetadata) {
        let path = item.input.path, type = AppleHDR.gainMapAuxiliaryType
        var own: VImage?
        if case .heif(.libavcodec)? = item.pictureSource?.decoder, case .hevc(let coded) = HEIFCoding.readAuxiliary(path: path, type: type) {
            own = try? HEIFPicture.decodeLuma(path: path, coded, threads: item.threads)
        }
        guard let image = try own ?? HEIFAuxiliary.image(path: path, type: type) else {
            throw GainMapFailure(reason: "libheif finds no auxiliary image of Apple's type")
        }
        let metadata = item.image?.metadata
        return try apple(image, headroom: AppleHDR.headroom(xmp: metadata?.xmp, makerNote: metadata?.exif?.appleMakerNote))
    }

    /// Apple's map on the ISO curve (see `AppleHDR.recoveryLUT`). A photo whose headroom is
    /// found nowhere gets Apple's formula with both MakerNote values 0 (2^1.8), as libavif does.
    private static func apple(_ image: VImage, headroom: Double?) throws -> (image: VImage, metadata: GainMapMetadata) {
        let headroom = headroom ?? AppleHDR.unknownHeadroom
        guard image.bands == 1, image.bitsPerSample == 8 else {
            throw GainMapFailure(reason: "an Apple gain map of \(image.bands) bands of \(image.bitsPerSample) bits is not read")
        }
        return (try image.mapped(through: AppleHDR.recoveryLUT(headroom: headroom)), try GainMapMetadata.apple(headroom: headroom).validated())
    }
}
