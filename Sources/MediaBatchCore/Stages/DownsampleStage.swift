import MediaFormats
import PipelineModel
import VipsKit

/// Fits the image within `maxPixelSize` on its longest side, never upscaling, with the
/// orientation applied (EXIF for JPEG, irot/imir for HEIF) and reset to 1. libvips shrinks on
/// load, so a 48 MP JPEG is never fully decoded to make a 2048 px one.
struct DownsampleStage: PipelineStage {
    let maxPixelSize: Int
    var name: Stage.Name { .downsample }
    var phase: StagePhase { .pixels }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format, !format.isVideo else { return }
        fingerprint.recipe.append(Stage.downsample(maxPixelSize: maxPixelSize).fingerprint)
    }

    /// Shrinking on load lowers the cost of decoding (see `CostEstimator`).
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard let image = item.image else { return }
        plan.estimatedBytes = CostEstimator.estimate(image: .init(format: item.format, image: image), maxPixelSize: maxPixelSize)
    }

    /// Decodes the file anew at the size needed: whatever an earlier stage did to the pixels is
    /// not carried over, which is why validation puts `downsample` before `transcode`.
    func run(_ item: ItemContext) throws {
        guard item.image != nil else { return }
        do {
            item.image = try VImage.thumbnail(of: item.input.path, maxSize: maxPixelSize)
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, error.message)
        }
    }
}
