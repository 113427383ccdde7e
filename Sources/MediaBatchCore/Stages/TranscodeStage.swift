import MediaFormats
import PipelineModel

/// Changes the output format (of the images in `from`, or every image) and converts pictures to
/// sRGB (see `SRGB`), so colours survive the new format; the picture is encoded again even where
/// it is already sRGB in that format, at the quality asked.
struct TranscodeStage: PipelineStage {
    let options: Stage.Transcode
    var name: Stage.Name { .transcode }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format else { return }
        if options.applies(to: format) { fingerprint.recipe.append(Stage.transcode(options).fingerprint) }
        // A movie's poster is one output of several: the movie's own stays when only this changes.
        if format.isVideo, options.from == nil { fingerprint.outputs.append(Stage.transcode(options).fingerprint) }
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        for index in plan.outputs.indices where plan.outputs[index].picture != nil {
            // A movie's poster is an image of no format of its own: converted unless `from` names the formats.
            guard options.applies(to: item.format) || plan.outputs[index].poster != nil && options.from == nil else { continue }
            plan.outputs[index].format = options.to
            plan.outputs[index].quality = options.quality
            plan.outputs[index].effort = options.effort
            plan.outputs[index].picture = plan.outputs[index].picture?.inSRGB().keepingGainMap(options.hdr).animated(as: options.to).reencoded()
        }
    }
}
