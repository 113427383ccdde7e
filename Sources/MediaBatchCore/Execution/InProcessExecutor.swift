import Foundation
import MediaFormats
import PipelineModel
import VipsKit

/// Runs one pipeline's stages on one item at a time, in this process: the run's own executor for
/// trusted input, and what each worker process runs for untrusted input.
final class InProcessExecutor: ItemExecutor, @unchecked Sendable {
    private let stages: [PipelineStage]
    /// In the run's own process, the context a header phase built is kept for the item's pixel
    /// phase. A worker process answers each request afresh, so it keeps none.
    private let keepsContexts: Bool
    private let lock = NSLock()
    private var contexts: [String: ItemContext] = [:]

    init(stages: [PipelineStage], keepsContexts: Bool) {
        self.stages = stages
        self.keepsContexts = keepsContexts
    }

    func header(_ job: ItemJob) -> HeaderVerdict {
        let context = ItemContext(job)
        var verdict = HeaderVerdict(kinds: MediaKind.allCases.filter(context.facts.kinds.contains),
                                    contentIdentifier: try? context.header.get().contentIdentifier)
        if let error = run(.header, on: context) {
            verdict.error = error
        } else if let reason = context.skipReason {
            verdict.skipReason = reason
        } else {
            context.plan = plan(context)
            verdict.plan = context.plan
            if keepsContexts { store(context, for: job) }
        }
        return verdict
    }

    func pixels(_ job: ItemJob) -> PixelOutcome {
        defer { Vips.endWorkItem() }
        let context: ItemContext
        if let kept = take(job) {
            context = kept
        } else {
            context = ItemContext(job)
            if let error = run(.header, on: context) { return PixelOutcome(error: error) }
            context.plan = job.plan ?? plan(context)
        }
        if let error = run(.pixels, on: context) { return PixelOutcome(error: error) }
        return PixelOutcome(outputs: context.written, removedMetadata: context.removedMetadata, placeholder: context.placeholder)
    }

    func contentIdentifier(path: String, format: MediaFormat) -> String? {
        defer { Vips.endWorkItem() }
        return LivePhotoPairer.readIdentifier(path: path, format: format)
    }

    func forget(_ job: ItemJob) {
        _ = take(job)
    }

    func shutdown() {}

    /// Every stage's part, in pipeline order, once the header stages have run.
    private func plan(_ context: ItemContext) -> ItemPlan {
        var plan = ItemPlan(format: context.format)
        for stage in stages { stage.plan(&plan, for: context) }
        return plan
    }

    private func store(_ context: ItemContext, for job: ItemJob) {
        lock.lock()
        contexts[job.input.relativePath] = context
        lock.unlock()
    }

    private func take(_ job: ItemJob) -> ItemContext? {
        lock.lock()
        defer { lock.unlock() }
        return contexts.removeValue(forKey: job.input.relativePath)
    }

    private func run(_ phase: StagePhase, on context: ItemContext) -> ItemError? {
        for stage in stages where stage.phase == phase {
            guard context.skipReason == nil else { return nil }
            do {
                try stage.run(context)
            } catch let failure as StageFailure {
                return ItemError(code: failure.code, message: failure.message, item: context.input.relativePath, stage: stage.name)
            } catch {
                return ItemError(code: .decodeFailed, message: "\(error)", item: context.input.relativePath, stage: stage.name)
            }
        }
        return nil
    }
}
