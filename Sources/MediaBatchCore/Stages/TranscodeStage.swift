import PipelineModel
import VipsKit

/// Changes the output format and converts colour to sRGB: an embedded profile (Display P3 on
/// iPhones, Adobe RGB on cameras) is applied, not dropped, so colours survive the new format.
/// Images already in sRGB (by their profile's description) are left as they are.
struct TranscodeStage: PipelineStage {
    let options: Stage.Transcode
    var name: Stage.Name { .transcode }
    var readsPixels: Bool { true }

    func recipe(for format: MediaFormat) -> String? {
        options.applies(to: format) ? Stage.transcode(options).fingerprint : nil
    }

    func run(_ item: ItemContext) throws {
        guard let image = item.image, options.applies(to: item.format) else { return }
        let profile = image.blob("icc-profile-data")
        if image.isCMYK || profile.map({ !ICCProfile.isSRGB($0) }) ?? false {
            do {
                item.image = try image.convertedToSRGB()
            } catch let error as VipsError {
                throw StageFailure(.decodeFailed, "cannot convert colour to sRGB: \(error.message)")
            }
        }
        item.outputFormat = options.to.mediaFormat
        item.quality = options.quality
    }
}
