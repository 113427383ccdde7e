import Foundation
import PipelineModel
import VipsKit

/// The stages of one pipeline, run on one item at a time.
final class ItemStages: ItemExecutor, @unchecked Sendable {
    private let pipeline: Pipeline
    private let headerStages: [PipelineStage]
    private let pixelStages: [PipelineStage]
    /// In this process, the context a header phase built is kept for the item's pixel phase.
    /// A worker process answers each request afresh, so it keeps none.
    private let keepsContexts: Bool
    private let lock = NSLock()
    private var contexts: [String: ItemContext] = [:]

    init(pipeline: Pipeline, environment: RunEnvironment, keepsContexts: Bool) {
        self.pipeline = pipeline
        let stages = StageFactory.make(pipeline.stages, environment)
        headerStages = stages.filter { !$0.readsPixels }
        pixelStages = stages.filter(\.readsPixels)
        self.keepsContexts = keepsContexts
    }

    /// Every stage's contribution to an item of `format`'s outputs, in pipeline order.
    var stages: [PipelineStage] { headerStages + pixelStages }

    func header(_ job: ItemJob) -> HeaderVerdict {
        let context = ItemContext(input: job.input, format: job.format, bytesIn: job.bytesIn, contentHash: job.contentHash)
        var verdict = HeaderVerdict(kinds: MediaKind.allCases.filter(context.facts.kinds.contains),
                                    contentIdentifier: try? context.header.get().contentIdentifier)
        if let error = run(headerStages, on: context) {
            verdict.error = error
        } else if let reason = context.skipReason {
            verdict.skipReason = reason
        } else {
            verdict.estimatedBytes = estimate(context)
            verdict.plannedOutput = plannedOutput(context)
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
            context = ItemContext(input: job.input, format: job.format, bytesIn: job.bytesIn, contentHash: job.contentHash)
            if let error = run(headerStages, on: context) { return PixelOutcome(error: error) }
        }
        if let error = run(pixelStages, on: context) { return PixelOutcome(error: error) }
        return PixelOutcome(output: context.output?.path, bytesOut: context.output?.bytes ?? 0,
                            removedMetadata: context.removedMetadata)
    }

    func contentIdentifier(path: String, format: MediaFormat) -> String? {
        defer { Vips.endWorkItem() }
        return LivePhotoPairer.readIdentifier(path: path, format: format)
    }

    /// Drops a kept context whose item will not be processed (the run was cancelled, or the
    /// item lost its output to another).
    func forget(_ job: ItemJob) {
        _ = take(job)
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

    private func run(_ stages: [PipelineStage], on context: ItemContext) -> ItemError? {
        for stage in stages {
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

    private func estimate(_ context: ItemContext) -> Int {
        guard let image = context.image else { return CostEstimator.videoBytes }
        let header = CostEstimator.ImageHeader(format: context.format, width: image.width, height: image.height,
                                               bitsPerSample: image.bitsPerSample)
        if case .downsample(let maxPixelSize)? = pipeline.stage(.downsample) {
            return CostEstimator.estimate(image: header, maxPixelSize: maxPixelSize)
        }
        return CostEstimator.estimate(image: header, maxPixelSize: nil)
    }

    /// Where the item will be written, from the pipeline's transcode and write options: known
    /// before any pixel stage runs, so that collisions are caught before work is spent.
    private func plannedOutput(_ context: ItemContext) -> String? {
        guard case .write(let write)? = pipeline.stage(.write), context.image != nil || context.video != nil else { return nil }
        var format = context.format
        if case .transcode(let transcode)? = pipeline.stage(.transcode), transcode.applies(to: format) {
            format = transcode.to.mediaFormat
        }
        return WriteStage.relativeOutput(write.path, for: context, format: format)
    }
}
