import Foundation
import PipelineModel
import Scheduler
import VipsKit

/// Where and how a pipeline runs: the pipeline's own values after command-line overrides.
public struct RunOptions: Sendable {
    public var inputRoot: URL
    public var outputRoot: URL
    public var concurrency: Int
    public var memoryBudget: ByteSize
    /// The pipeline file as the user named it, for the report.
    public var pipelineName: String
    /// Read headers, classify and filter, report what would be written; write nothing.
    public var dryRun: Bool

    public init(inputRoot: URL, outputRoot: URL, concurrency: Int, memoryBudget: ByteSize, pipelineName: String,
                dryRun: Bool = false) {
        self.inputRoot = inputRoot.standardizedFileURL
        self.outputRoot = outputRoot.standardizedFileURL
        self.concurrency = concurrency
        self.memoryBudget = memoryBudget
        self.pipelineName = pipelineName
        self.dryRun = dryRun
    }
}

/// A run that cannot start at all (as opposed to items that fail).
public struct RunSetupError: Error, CustomStringConvertible {
    public let description: String
}

/// Runs a pipeline over every selected input: header stages on the listing thread (to decide
/// and estimate), pixel stages on the scheduler's workers once the memory budget admits them.
public final class PipelineRunner: @unchecked Sendable {
    private let pipeline: Pipeline
    private let options: RunOptions
    private let headerStages: [PipelineStage]
    private let pixelStages: [PipelineStage]
    private let scheduler: Scheduler
    private let onItemFinished: @Sendable (ItemResult) -> Void
    private let resultsLock = NSLock()
    private var results: [ItemResult] = []

    /// `onItemFinished` is called as each item ends, from any thread.
    public init(pipeline: Pipeline, options: RunOptions, onItemFinished: @escaping @Sendable (ItemResult) -> Void = { _ in }) {
        self.pipeline = pipeline
        self.options = options
        let environment = RunEnvironment(outputRoot: options.outputRoot, limits: pipeline.limits, claims: OutputClaims())
        let stages = StageFactory.make(pipeline.stages, environment)
        self.headerStages = stages.filter { !$0.readsPixels }
        self.pixelStages = stages.filter(\.readsPixels)
        self.scheduler = Scheduler(concurrency: options.concurrency, memoryBudget: options.memoryBudget.bytes)
        self.onItemFinished = onItemFinished
    }

    /// Stops admitting items; those running finish and are reported.
    public func cancel() {
        scheduler.cancel()
    }

    public var reservedBytes: Int { scheduler.reservedBytes }

    public func run() throws -> RunReport {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.inputRoot.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RunSetupError(description: "input root \(options.inputRoot.path) is not a folder")
        }
        guard options.outputRoot.resolvingSymlinksInPath() != options.inputRoot.resolvingSymlinksInPath() else {
            throw RunSetupError(description:
                "the output root \(options.outputRoot.path) is the input root: outputs would become inputs of the next run")
        }
        do {
            try Vips.start()
        } catch {
            throw RunSetupError(description: "cannot start libvips: \(error)")
        }
        let started = Date()
        let walker = InputWalker(root: options.inputRoot, include: pipeline.input.include,
                                 exclude: pipeline.input.exclude, skipping: options.outputRoot)
        scheduler.run(LivePhotoPairing(walker).lazy.map(prepare)) { [self] prepared in
            finish(prepared.outcome ?? (options.dryRun ? plan(prepared) : process(prepared)))
        }
        return RunReport(pipeline: options.pipelineName, inputRoot: options.inputRoot, outputRoot: options.outputRoot,
                         startedAt: started, milliseconds: Self.milliseconds(since: started),
                         interrupted: scheduler.isCancelled, dryRun: options.dryRun, items: results)
    }

    private struct PreparedItem: ScheduledJob {
        let context: ItemContext?
        /// Set when the header stages already decided the item (skipped or failed).
        let outcome: ItemResult?
        let estimatedBytes: Int
        let started: Date
    }

    /// Header phase: sniff the format, run filter and decode, estimate the cost.
    private func prepare(_ input: InputItem) -> PreparedItem {
        let started = Date()
        func finished(_ result: ItemResult) -> PreparedItem {
            PreparedItem(context: nil, outcome: result, estimatedBytes: 0, started: started)
        }
        let bytesIn: Int
        let sniffed: MediaFormat?
        do {
            bytesIn = (try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int) ?? 0
            sniffed = try FormatSniffer.format(of: input.path)
        } catch {
            return finished(failure(input, nil, 0, started, ItemError(
                code: .unreadable, message: "cannot read the file", item: input.relativePath, stage: .decode)))
        }
        guard let format = sniffed else {
            guard FormatSniffer.mediaExtensions.contains(input.pathExtension) else {
                return finished(result(input, nil, .skipped, reason: "not a media file", bytesIn: bytesIn, started: started))
            }
            let what = bytesIn == 0 ? "the file is empty" : "its content is not a recognised image or video format"
            return finished(failure(input, nil, bytesIn, started, ItemError(
                code: .unsupportedFormat, message: "named .\(input.pathExtension) but \(what)", item: input.relativePath, stage: .decode)))
        }
        let context = ItemContext(input: input, format: format, bytesIn: bytesIn)
        if let error = runStages(headerStages, on: context) {
            return finished(failure(input, context, bytesIn, started, error))
        }
        if let reason = context.skipReason {
            return finished(result(input, context, .skipped, reason: reason, bytesIn: bytesIn, started: started))
        }
        return PreparedItem(context: context, outcome: nil, estimatedBytes: options.dryRun ? 0 : estimate(context), started: started)
    }

    /// Pixel phase, on a scheduler worker.
    private func process(_ prepared: PreparedItem) -> ItemResult {
        defer { Vips.endWorkItem() }
        let context = prepared.context!
        if let error = runStages(pixelStages, on: context) {
            return failure(context.input, context, context.bytesIn, prepared.started, error, estimate: prepared.estimatedBytes)
        }
        return result(context.input, context, .ok, output: context.output?.path, removed: context.removedMetadata,
                      bytesIn: context.bytesIn, bytesOut: context.output?.bytes ?? 0, started: prepared.started,
                      estimate: prepared.estimatedBytes)
    }

    /// `--dry-run`: where the item would be written, from the pipeline's transcode and write
    /// options; no pixel stage runs.
    private func plan(_ prepared: PreparedItem) -> ItemResult {
        let context = prepared.context!
        var output: String?
        if case .write(let write)? = pipeline.stage(.write), context.image != nil || context.video != nil {
            var format = context.format
            if case .transcode(let transcode)? = pipeline.stage(.transcode), transcode.applies(to: format) {
                format = transcode.to.mediaFormat
            }
            output = WriteStage.relativeOutput(write.path, for: context.input, format: format)
        }
        return result(context.input, context, .planned, output: output, bytesIn: context.bytesIn, started: prepared.started)
    }

    private func runStages(_ stages: [PipelineStage], on context: ItemContext) -> ItemError? {
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

    private func finish(_ result: ItemResult) {
        resultsLock.lock()
        results.append(result)
        resultsLock.unlock()
        onItemFinished(result)
    }

    /// `context` is nil for files that never became items (unreadable, not media).
    private func result(_ input: InputItem, _ context: ItemContext?, _ status: ItemResult.Status, output: String? = nil,
                        removed: [String] = [], reason: String? = nil, error: ItemError? = nil, bytesIn: Int,
                        bytesOut: Int = 0, started: Date, estimate: Int? = nil) -> ItemResult {
        ItemResult(input: input.relativePath, format: context?.format.rawValue,
                   kinds: context.map { context in MediaKind.allCases.filter(context.facts.kinds.contains) },
                   livePhoto: input.livePhoto, status: status, output: output, reason: reason,
                   removedMetadata: removed.isEmpty ? nil : removed,
                   error: error.map { .init(code: $0.code, stage: $0.stage.rawValue, message: $0.message) },
                   bytesIn: bytesIn, bytesOut: bytesOut, milliseconds: Self.milliseconds(since: started),
                   estimatedBytes: estimate)
    }

    private func failure(_ input: InputItem, _ context: ItemContext?, _ bytesIn: Int, _ started: Date,
                         _ error: ItemError, estimate: Int? = nil) -> ItemResult {
        result(input, context, .failed, error: error, bytesIn: bytesIn, started: started, estimate: estimate)
    }

    private static func milliseconds(since start: Date) -> Int {
        Int((Date().timeIntervalSince(start) * 1000).rounded())
    }
}
