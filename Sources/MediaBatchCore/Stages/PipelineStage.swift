import MediaFormats
import PipelineModel

/// One step of a pipeline. Each stage is one type in one file and answers for its own part of an
/// item, so that no code outside it repeats its decisions: what it adds to the item's
/// fingerprint, what it plans (output format, path, cost) and what it does. Each part starts
/// with a guard that returns when the stage does not apply to the item; `run` throws
/// `StageFailure` when the item fails.
protocol PipelineStage: Sendable {
    var name: Stage.Name { get }
    var phase: StagePhase { get }
    /// Adds what this stage contributes to the outputs (recipe) or the selection of an item of
    /// `format` (nil: not media). Known before any header is read: the state database redoes an
    /// item when its fingerprint changes.
    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?)
    /// Adds this stage's part to the item's plan, once the header stages have run and before any
    /// pixel is decoded.
    func plan(_ plan: inout ItemPlan, for item: ItemContext)
    func run(_ item: ItemContext) throws
}

/// When a stage runs.
enum StagePhase: Sendable {
    /// Before admission (filter, decode): whether an item runs, and what it will cost.
    case header
    /// Once the scheduler has admitted the item.
    case pixels
}

extension PipelineStage {
    /// Stages that decide neither format, path nor cost plan nothing.
    func plan(_ plan: inout ItemPlan, for item: ItemContext) {}
}
