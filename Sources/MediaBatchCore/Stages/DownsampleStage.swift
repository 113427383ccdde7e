import MediaFormats
import PipelineModel

/// Fits pictures to a box as the fit says (by default within `maxPixelSize` on their longest
/// side), never upscaling, with the orientation applied first (EXIF for JPEG, irot/imir for
/// HEIF). A picture that already fits and is stored upright is left as it is, and so is copied
/// rather than encoded again. libvips shrinks on load, so a 48 MP JPEG is never fully decoded to
/// make a 2048 px one, nor a crop of one.
struct DownsampleStage: PipelineStage {
    let options: Stage.Downsample
    var name: Stage.Name { .downsample }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format else { return }
        // A movie's poster is one output of several: the movie's own stays when only this changes.
        if format.isVideo { fingerprint.outputs.append(Stage.downsample(options).fingerprint) } else {
            fingerprint.recipe.append(Stage.downsample(options).fingerprint)
        }
    }

    /// Shrinking on load lowers the cost of decoding (see `CostEstimator`).
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard plan.outputs.contains(where: { $0.picture != nil }) else { return }
        plan.mapPictures { $0.fitted(in: options.box, options.fit) }
        // A poster's cost is `PosterStage`'s.
        guard let header = item.costHeader(plan) else { return }
        plan.estimatedBytes = CostEstimator.estimate(image: header,
                                                     maxPixelSize: plan.outputs.compactMap { $0.picture?.scaled.longestSide }.max())
    }
}
