import MediaFormats
import PipelineModel
import VipsKit

/// Changes the output format and converts colour to sRGB (see `SRGB`), so colours survive the
/// new format.
struct TranscodeStage: PipelineStage {
    let options: Stage.Transcode
    var name: Stage.Name { .transcode }
    var phase: StagePhase { .pixels }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {
        guard let format, options.applies(to: format) else { return }
        fingerprint.recipe.append(Stage.transcode(options).fingerprint)
    }

    func plan(_ plan: inout ItemPlan, for item: ItemContext) {
        guard item.image != nil, options.applies(to: item.format) else { return }
        for index in plan.outputs.indices {
            plan.outputs[index].format = options.to
            plan.outputs[index].quality = options.quality
            plan.outputs[index].effort = options.effort
        }
    }

    func run(_ item: ItemContext) throws {
        guard let image = item.image, options.applies(to: item.format) else { return }
        item.image = try SRGB.converting(image)
    }
}
