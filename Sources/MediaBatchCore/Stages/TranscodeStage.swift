import MediaFormats
import PipelineModel

/// Changes the output format (of the images in `from`, or every image) and converts pictures to
/// sRGB (see `SRGB`), so colours survive the new format; the picture is encoded again even where
/// it is already sRGB in that format, at the quality asked.
struct TranscodeStage: PipelineStage {
    let options: Stage.Transcode
    var name: Stage.Name { .transcode }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format, options.applies(to: format) else { return }
        fingerprint.recipe.append(Stage.transcode(options).fingerprint)
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard options.applies(to: item.format) else { return }
        for index in plan.outputs.indices where plan.outputs[index].picture != nil {
            plan.outputs[index].format = options.to
            plan.outputs[index].quality = options.quality
            plan.outputs[index].effort = options.effort
            plan.outputs[index].picture = plan.outputs[index].picture?.inSRGB().keepingGainMap(options.hdr).animated(as: options.to).reencoded()
        }
    }
}
