import PipelineModel
import VipsKit

/// Changes the output format and converts colour to sRGB: an embedded profile (Display P3 on
/// iPhones, Adobe RGB on cameras) is applied, not dropped, so colours survive the new format.
/// Images already in sRGB (by their profile's description) are left as they are.
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
            plan.outputs[index].format = options.to.mediaFormat
            plan.outputs[index].quality = options.quality
        }
    }

    func run(_ item: ItemContext) throws {
        guard let image = item.image, options.applies(to: item.format) else { return }
        guard image.isCMYK || image.iccProfile.map({ !ICCProfile.isSRGB($0) }) ?? false else { return }
        do {
            item.image = try image.convertedToSRGB()
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, "cannot convert colour to sRGB: \(error.message)")
        }
    }
}
