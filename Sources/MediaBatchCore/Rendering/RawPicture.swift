import LibRawKit
import PipelineModel
import VipsKit

/// A camera RAW's picture for `PictureRenderer`, upright and in memory: LibRaw's develop, or the
/// JPEG preview the camera embedded, as `RawDecoding` chooses for the largest picture needed;
/// and what it was, for the report. In `auto` the other source is tried when the chosen one
/// fails and is large enough; otherwise the item fails, naming both reasons.
enum RawPicture {
    static func decode(path: String, _ raw: RawDecoding, needing needed: Int) throws -> (image: VImage, source: ItemResult.RawSource) {
        let choice = raw.choice(needing: needed)
        do {
            return try decode(path, raw, choice, needed)
        } catch let failure as StageFailure where raw.mode == .auto {
            let other = choice == .preview ? raw.developing(needed) : .preview
            guard other != .preview || raw.previewCovers(needed) else {
                let preview = raw.preview.map { "its embedded preview, \($0.width)×\($0.height), is smaller than the \(needed) px needed" }
                throw StageFailure(failure.code, failure.message + "; and " + (preview ?? "it embeds no JPEG preview"))
            }
            do {
                var fallback = try decode(path, raw, other, needed)
                fallback.source.fallbackReason = failure.message
                return fallback
            } catch let second as StageFailure {
                throw StageFailure(failure.code, failure.message + "; and " + second.message)
            }
        }
    }

    private static func decode(_ path: String, _ raw: RawDecoding, _ choice: RawDecoding.Choice,
                               _ needed: Int) throws -> (image: VImage, source: ItemResult.RawSource) {
        switch choice {
        case .preview:
            let jpeg = try libRaw("cannot read its embedded preview") { try RawFile(path: path).previewJPEG() }
            let image: VImage, shrink = raw.previewShrink(needing: needed)
            do {
                image = try VImage.decodingJPEG(jpeg, maxPixels: Int.max, shrink: shrink).oriented(raw.orientation)
            } catch let error as VipsError {
                throw StageFailure(.decodeFailed, "cannot decode its embedded preview: \(error.message)")
            }
            // The preview's own size, though libjpeg may have decoded it smaller.
            let size = raw.preview ?? PixelSize(width: image.width, height: image.height)
            return (image, .init(source: .preview, width: size.width, height: size.height, asked: size.longestSide < needed ? needed : nil))
        case .develop(let halfSize):
            if let undevelopable = raw.undevelopable { throw StageFailure(.decodeFailed, "LibRaw cannot develop it: \(undevelopable)") }
            let developed = try libRaw("LibRaw cannot develop it") { try RawFile(path: path).develop(halfSize: halfSize) }
            let image = try developed.withSamples {
                try VImage.decoded(copying: $0, width: developed.width, height: developed.height, bands: developed.bands)
            }
            return (image, .init(source: .develop, width: image.width, height: image.height, halfSize: halfSize))
        }
    }

    /// LibRaw's failure as the item's, in LibRaw's words.
    private static func libRaw<T>(_ what: String, _ step: () throws -> T) throws -> T {
        do {
            return try step()
        } catch let error as LibRawError {
            throw StageFailure(.decodeFailed, "\(what): \(error.message)")
        }
    }
}
