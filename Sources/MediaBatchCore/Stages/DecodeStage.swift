import MediaFormats
import PipelineModel

/// Hands the header read before the stages (libvips has read only an image's header: pixels
/// come when `write` saves; libavformat has probed a video's container and streams) to the
/// stages after it, failing items whose header could not be read or is over `maxPixels` or
/// `maxFrames`.
struct DecodeStage: PipelineStage {
    let maxPixels: Int
    let maxFrames: Int
    var name: Stage.Name { .decode }
    var phase: StagePhase { .header }

    /// The limits decide whether, not how: an output does not depend on them.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard format != nil else { return }
        fingerprint.recipe.append(Stage.decode.fingerprint)
    }

    /// An image costs what decoding it whole costs, until a stage shrinks it; a video is copied.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard let image = item.image else { return }
        plan.estimatedBytes = CostEstimator.estimate(image: .init(format: item.format, image: image), maxPixelSize: nil)
        let stored = PixelSize(width: image.width, height: image.height)
        // Orientations 5–8 turn the image a quarter: libvips' thumbnail does so, and HEIF comes upright.
        plan.upright = (5...8).contains(image.orientation) ? PixelSize(width: stored.height, height: stored.width) : stored
    }

    func run(_ item: ItemContext) throws {
        switch try item.header.get().content {
        case .video(let probe, _):
            item.video = probe
        case .image(let image, let metadata, _):
            let pixels = image.width * image.height
            guard pixels <= maxPixels else {
                throw StageFailure(.tooManyPixels,
                    "\(image.width)×\(image.height) is \(pixels) pixels, over limits.maxPixels (\(maxPixels))")
            }
            guard image.pageCount <= maxFrames else {
                throw StageFailure(.tooManyFrames, "\(image.pageCount) frames, over limits.maxFrames (\(maxFrames))")
            }
            item.image = image
            item.metadata = metadata
        }
    }
}
