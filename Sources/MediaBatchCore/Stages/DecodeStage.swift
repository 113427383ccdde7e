import MediaFormats
import PipelineModel

/// Opens the item for the pixel stages: the header read before the stages (libvips has read only
/// an image's header; libavformat has probed a video's container and streams) becomes the plan's
/// picture, or fails the item when it could not be read or is over `maxPixels` (a frame's) or
/// `maxFrames` (the header's count: a 10 000-frame GIF is refused unread). An animation keeps its
/// frames unless `animated` is false. Nothing is decoded here: `write` decodes what the stages
/// planned, once.
struct DecodeStage: PipelineStage {
    let options: Stage.Decode
    let maxPixels: Int
    let maxFrames: Int
    var name: Stage.Name { .decode }

    /// The limits decide whether, not how: an output does not depend on them. Nor does `animated`
    /// for a format that never animates, whose items keep the fingerprint they had before it.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format else { return }
        fingerprint.recipe.append(format.row.animates ? Stage.decode(options).fingerprint : "decode")
    }

    func check(_ item: ItemContext) throws {
        let content = try item.header.get().content
        if case .cameraRaw = content {
            // Media this build cannot decode is skipped, as media, not failed: until RAW is developed here.
            throw ItemSkipped(reason: "unsupported format: \(item.format.rawValue) (\(item.format.row.help)); "
                                      + "its embedded images are a thumbnail and previews, not the photo")
        }
        guard case .image(let image, _, _) = content else { return }
        let pixels = image.width * image.height
        guard pixels <= maxPixels else {
            throw StageFailure(.tooManyPixels, "\(image.width)×\(image.height) is \(pixels) pixels, over limits.maxPixels (\(maxPixels))")
        }
        guard image.pageCount <= maxFrames else {
            throw StageFailure(.tooManyFrames, "\(image.pageCount) frames, over limits.maxFrames (\(maxFrames))")
        }
    }

    /// An image's primary picture, as stored (every frame, or the first), costing what decoding it
    /// whole costs until a stage shrinks it; a video is copied, its size, length and codec known.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        if let movie = item.movieFacts { plan.outputs = plan.outputs.map { var output = $0; output.movie = movie; return output } }

        guard let image = item.image?.image, let source = item.pictureSource else { return }
        let picture = options.animated ? Picture(source: source) : Picture(source: source).firstFrameOnly()
        plan.upright = source.upright
        for index in plan.outputs.indices { plan.outputs[index].picture = picture }
        plan.estimatedBytes = CostEstimator.estimate(image: .init(format: item.format, image: image, plan: plan), maxPixelSize: nil)
    }
}
