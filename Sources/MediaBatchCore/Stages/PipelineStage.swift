import Foundation
import PipelineModel

/// One step of a pipeline. Each stage is one type in one file; it starts with a guard that
/// returns when it does not apply to the item, and throws `StageFailure` when the item fails.
protocol PipelineStage {
    var name: Stage.Name { get }
    /// Header stages (filter, decode) run before admission: they decide whether an item runs and
    /// what it will cost. Pixel stages run once the scheduler has admitted it.
    var readsPixels: Bool { get }
    /// What this stage contributes to the outputs of an item of `format` (its fingerprint), or
    /// nil when it does not apply to it: the state database redoes an item when this changes.
    func recipe(for format: MediaFormat) -> String?
    func run(_ item: ItemContext) throws
}

/// What stages need to know about the run beyond their own options.
struct RunEnvironment {
    let outputRoot: URL
    /// Where outputs are written before being renamed into place (same filesystem).
    let temporaryFolder: URL
    let limits: Pipeline.Limits
}

/// The one place that maps a pipeline's stages, in order, to their implementations.
enum StageFactory {
    static func make(_ stages: [Stage], _ environment: RunEnvironment) -> [PipelineStage] {
        stages.map { stage -> PipelineStage in
            switch stage {
            case .filter(let filter): return FilterStage(filter: filter)
            case .decode: return DecodeStage(maxPixels: environment.limits.maxPixels, maxFrames: environment.limits.maxFrames)
            case .downsample(let maxPixelSize): return DownsampleStage(maxPixelSize: maxPixelSize)
            case .transcode(let options): return TranscodeStage(options: options)
            case .stripMetadata(let groups): return StripMetadataStage(groups: groups)
            case .write(let options): return WriteStage(options: options, environment: environment)
            }
        }
    }
}
