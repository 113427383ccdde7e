import Foundation
import MediaFormats
import PipelineModel
import VipsKit

/// Runs one pipeline's stages on one item at a time, in this process: the run's own executor for
/// trusted input, and what each worker process runs for untrusted input.
final class InProcessExecutor: ItemExecutor, @unchecked Sendable {
    private let stages: [any PipelineStage]
    private let environment: RunEnvironment
    /// In the run's own process, the context a header phase built is kept for the item's pixel
    /// phase. A worker process answers each request afresh, so it keeps none.
    private let keepsContexts: Bool
    private let lock = NSLock()
    private var contexts: [String: ItemContext] = [:]

    init(stages: [any PipelineStage], environment: RunEnvironment, keepsContexts: Bool) {
        self.stages = stages
        self.environment = environment
        self.keepsContexts = keepsContexts
    }

    func header(_ job: ItemJob) -> HeaderVerdict {
        let context = ItemContext(job, environment)
        var verdict = HeaderVerdict(kinds: MediaKind.allCases.filter(context.facts.kinds.contains),
                                    contentIdentifier: try? context.header.get().contentIdentifier,
                                    caption: context.metadata?.caption)
        do {
            try check(context)
            verdict.plan = plan(context)
            if keepsContexts { store(context, for: job) }
        } catch let skipped as ItemSkipped {
            verdict.skipReason = skipped.reason
        } catch {
            verdict.error = error as? ItemError
        }
        return verdict
    }

    /// Makes what `job.plan` says (the header phase's plan, as the run admitted it).
    func pixels(_ job: ItemJob) -> PixelOutcome {
        defer {
            Vips.endWorkItem()
            ItemProgress.shared.finish(job.input.relativePath)
        }
        let context: ItemContext
        if let kept = take(job) {
            context = kept
        } else {
            context = ItemContext(job, environment)
            do {
                try check(context)
            } catch {
                return PixelOutcome(error: error as? ItemError)
            }
        }
        context.isTail = job.isTail
        Vips.setThreads(context.threads)
        let plan = job.plan ?? self.plan(context)
        var outcome = PixelOutcome()
        for stage in stages {
            do {
                try stage.run(context, plan, &outcome)
            } catch {
                return PixelOutcome(error: itemError(error, context, stage))
            }
        }
        for reader in environment.photoReaders {
            do {
                try reader.read(context.renderedPhoto, of: context, plan, into: &outcome)
            } catch {
                return PixelOutcome(error: itemError(error, context, reader))
            }
        }
        return outcome
    }

    func contentIdentifier(path: String, format: MediaFormat) -> String? {
        defer { Vips.endWorkItem() }
        return LivePhotoPairer.readIdentifier(path: path, format: format)
    }

    func forget(_ job: ItemJob) {
        _ = take(job)
    }

    func shutdown() {}

    /// Every stage's part, in pipeline order, once every stage has checked the item.
    private func plan(_ context: ItemContext) -> ItemPlan {
        var plan = ItemPlan(format: context.format)
        for stage in stages { stage.plan(&plan, for: context) }
        return plan
    }

    /// Every stage's check, in pipeline order: the first failure is the item's (`ItemError`), a
    /// skip ends it (`ItemSkipped`).
    private func check(_ context: ItemContext) throws {
        for stage in stages {
            do {
                try stage.check(context)
            } catch let skipped as ItemSkipped {
                throw skipped
            } catch {
                throw itemError(error, context, stage)
            }
        }
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

    private func itemError(_ error: Error, _ context: ItemContext, _ stage: any PipelineStage) -> ItemError {
        let failure = error as? StageFailure ?? StageFailure(.decodeFailed, "\(error)")
        return ItemError(code: failure.code, message: failure.message, item: context.input.relativePath, stage: stage.name)
    }
}
