import PipelineModel
import VipsKit

/// Fits the image within `maxPixelSize` on its longest side, never upscaling, with the
/// orientation applied (EXIF for JPEG, irot/imir for HEIF) and reset to 1. libvips shrinks on
/// load, so a 48 MP JPEG is never fully decoded to make a 2048 px one.
struct DownsampleStage: PipelineStage {
    let maxPixelSize: Int
    var name: Stage.Name { .downsample }
    var readsPixels: Bool { true }

    func recipe(for format: MediaFormat) -> String? {
        format.isVideo ? nil : Stage.downsample(maxPixelSize: maxPixelSize).fingerprint
    }

    func run(_ item: ItemContext) throws {
        guard item.image != nil else { return }
        do {
            item.image = try VImage.thumbnail(of: item.input.path, maxSize: maxPixelSize, exportProfile: nil)
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, error.message)
        }
    }
}
