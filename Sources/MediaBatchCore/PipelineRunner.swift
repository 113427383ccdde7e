import Foundation
import PipelineModel
import RunState
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
    /// Redo every item, whatever the state database says.
    public var force = false
    /// Remove outputs whose input vanished or no longer produces them.
    public var prune = false
    /// Run only this part of the input; nil runs all of it.
    public var shard: Shard?
    /// The state database; nil puts it under the output root (see `defaultStatePath`).
    public var statePath: URL?

    public init(inputRoot: URL, outputRoot: URL, concurrency: Int, memoryBudget: ByteSize, pipelineName: String,
                dryRun: Bool = false) {
        self.inputRoot = inputRoot.standardizedFileURL
        self.outputRoot = outputRoot.standardizedFileURL
        self.concurrency = concurrency
        self.memoryBudget = memoryBudget
        self.pipelineName = pipelineName
        self.dryRun = dryRun
    }

    /// mediabatch's own files under the output root: state databases, temporary outputs.
    static func workFolder(_ outputRoot: URL) -> URL { outputRoot.appendingPathComponent(".mediabatch") }

    /// Where a run over `outputRoot` keeps its state: one database per shard, so shards sharing
    /// an output volume never share a SQLite file.
    public static func defaultStatePath(outputRoot: URL, shard: Shard?) -> URL {
        workFolder(outputRoot).appendingPathComponent(shard.map { "state-\($0.tag).sqlite" } ?? "state.sqlite")
    }

    var resolvedStatePath: URL { statePath ?? Self.defaultStatePath(outputRoot: outputRoot, shard: shard) }

    /// Emptied when a run starts: whatever is there was left by a killed run of this shard.
    var temporaryFolder: URL {
        Self.workFolder(outputRoot).appendingPathComponent("tmp").appendingPathComponent(shard?.tag ?? "all")
    }
}

/// mediabatch's version as far as outputs go: bump it when a change makes the same input and
/// pipeline give different outputs, so that the state database redoes them.
public enum OutputVersion {
    public static let current = "mediabatch-output-1"
}

/// A run that cannot start at all (as opposed to items that fail).
public struct RunSetupError: Error, CustomStringConvertible {
    public let description: String
}

/// Runs a pipeline over every selected input: header stages on the listing thread (to decide
/// and estimate), pixel stages on the scheduler's workers once the memory budget admits them.
/// The state database decides first: an item whose input, recipe and outputs are as the last
/// run left them costs a stat and one lookup.
public final class PipelineRunner: @unchecked Sendable {
    private let pipeline: Pipeline
    private let options: RunOptions
    private let stages: [PipelineStage]
    private let headerStages: [PipelineStage]
    private let pixelStages: [PipelineStage]
    private let scheduler: Scheduler
    private let onItemFinished: @Sendable (ItemResult) -> Void
    private let resultsLock = NSLock()
    private var results: [ItemResult] = []
    private var staleOutputs: Set<String> = []
    /// Set up by `run`, once the database is open.
    private var ledger: RunLedger!
    private let claims: OutputClaims

    /// `onItemFinished` is called as each item ends, from any thread.
    public init(pipeline: Pipeline, options: RunOptions, onItemFinished: @escaping @Sendable (ItemResult) -> Void = { _ in }) {
        self.pipeline = pipeline
        self.options = options
        claims = OutputClaims()
        let environment = RunEnvironment(outputRoot: options.outputRoot, temporaryFolder: options.temporaryFolder,
                                         limits: pipeline.limits, claims: claims)
        stages = StageFactory.make(pipeline.stages, environment)
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
        let (store, runID) = try openState()
        ledger = RunLedger(store: store, run: runID, outputRoot: options.outputRoot, force: options.force,
                           prune: options.prune, writes: !options.dryRun)
        claims.recordedOwner = { [ledger, options] output in ledger?.recordedOwner(ofOutput: output, inputRoot: options.inputRoot) }
        if !options.dryRun { try? FileManager.default.removeItem(at: options.temporaryFolder) }

        let walker = InputWalker(root: options.inputRoot, include: pipeline.input.include,
                                 exclude: pipeline.input.exclude, skipping: options.outputRoot)
        let items = LivePhotoPairing(walker, known: ledger.knownHalf).lazy.filter { [options] item in
            options.shard?.contains(item) ?? true
        }
        scheduler.run(items.map(prepare)) { [self] prepared in
            finish(prepared.outcome ?? (options.dryRun ? plan(prepared) : process(prepared)), prepared.entry)
        }
        let orphans = scheduler.isCancelled ? [] : ledger.finish()
        let stale = Set(ledger.staleOutputs()).union(staleOutputs)
        let report = RunReport(
            pipeline: options.pipelineName, inputRoot: options.inputRoot, outputRoot: options.outputRoot,
            startedAt: started, milliseconds: Self.milliseconds(since: started), interrupted: scheduler.isCancelled,
            dryRun: options.dryRun, shard: options.shard?.description, items: results, orphans: orphans,
            staleOutputs: options.prune ? [] : stale.sorted())
        if let store, let runID = runID.nonZero {
            try? store.finishRun(runID, interrupted: report.interrupted,
                                 totals: String(decoding: (try? JSONEncoder().encode(report.totals)) ?? Data(), as: UTF8.self))
        }
        return report
    }

    /// Opens the state database (read-only for a dry run, which may find none). Run 0 is a dry run's.
    private func openState() throws -> (StateStore?, Int64) {
        let path = options.resolvedStatePath.path
        do {
            guard !options.dryRun else { return (try StateStore(readingExisting: path), 0) }
            let store = try StateStore(path: path)
            let run = try store.beginRun(pipeline: options.pipelineName, shard: options.shard?.description,
                                         toolVersion: OutputVersion.current)
            return (store, run)
        } catch {
            throw RunSetupError(description: "cannot open the state database \(path): \(error)")
        }
    }

    private struct PreparedItem: ScheduledJob {
        let context: ItemContext?
        /// Set when the header stages already decided the item (skipped or failed).
        let outcome: ItemResult?
        let estimatedBytes: Int
        let started: Date
        let change: ItemChange?
        /// What the state database records for it; nil when nothing new is to be recorded.
        let entry: RunLedger.Entry?
    }

    /// What an item's outputs and selection depend on, for its format (nil: not media).
    private func fingerprints(_ input: InputItem, _ format: MediaFormat?) -> RunLedger.Fingerprints {
        var recipe = [OutputVersion.current, "libvips \(Vips.version)"]
        if let format { recipe += stages.compactMap { $0.recipe(for: format) } }
        var selection = stages.compactMap { ($0 as? FilterStage)?.selection }
        if let pair = input.livePhoto, pair.role == .video {
            // The movie goes where its still goes, and is named after it.
            recipe.append("named after \(pair.partner)")
            let still = FileStamp(path: input.root.appendingPathComponent(pair.partner).path)
            selection.append("still \(still?.size ?? -1) \(still?.modifiedNanoseconds ?? -1)")
        }
        return .init(recipe: ContentHash.of(recipe.joined(separator: "\n")),
                     selection: ContentHash.of(selection.joined(separator: "\n")))
    }

    /// Header phase: ask the state database, sniff the format, run filter and decode, estimate the cost.
    private func prepare(_ input: InputItem) -> PreparedItem {
        let started = Date()
        func finished(_ result: ItemResult, _ entry: RunLedger.Entry? = nil, change: ItemChange? = nil) -> PreparedItem {
            PreparedItem(context: nil, outcome: result, estimatedBytes: 0, started: started, change: change, entry: entry)
        }
        func unreadable() -> PreparedItem {
            finished(failure(input, nil, 0, started, ItemError(
                code: .unreadable, message: "cannot read the file", item: input.relativePath, stage: .decode)))
        }
        guard let stamp = FileStamp(path: input.path) else { return unreadable() }
        let assessment = ledger.assess(input, stamp: stamp) { fingerprints(input, $0) }
        let bytesIn = Int(stamp.size)
        if assessment.change == .unchanged, let previous = assessment.previous {
            ledger.markSeen(input.relativePath, stamp: stamp)
            return finished(unchanged(input, previous, started: started), change: .unchanged)
        }
        let sniffed: MediaFormat?
        let contentHash: String
        do {
            sniffed = try FormatSniffer.format(of: input.path)
            contentHash = try assessment.contentHash ?? ContentHash.ofFile(atPath: input.path)
        } catch {
            return unreadable()
        }
        func entry(_ format: MediaFormat?, _ contentIdentifier: String? = nil) -> RunLedger.Entry {
            .init(stamp: stamp, contentHash: contentHash, format: format, contentIdentifier: contentIdentifier,
                  fingerprints: fingerprints(input, format))
        }
        guard let format = sniffed else {
            guard FormatSniffer.mediaExtensions.contains(input.pathExtension) else {
                return finished(result(input, nil, .skipped, reason: "not a media file", bytesIn: bytesIn, started: started,
                                       change: assessment.change), entry(nil), change: assessment.change)
            }
            let what = bytesIn == 0 ? "the file is empty" : "its content is not a recognised image or video format"
            return finished(failure(input, nil, bytesIn, started, ItemError(
                code: .unsupportedFormat, message: "named .\(input.pathExtension) but \(what)", item: input.relativePath,
                stage: .decode), change: assessment.change), entry(nil), change: assessment.change)
        }
        let context = ItemContext(input: input, format: format, bytesIn: bytesIn, contentHash: contentHash)
        let itemEntry = entry(format, try? context.header.get().contentIdentifier)
        if let error = runStages(headerStages, on: context) {
            return finished(failure(input, context, bytesIn, started, error, change: assessment.change), itemEntry,
                            change: assessment.change)
        }
        if let reason = context.skipReason {
            return finished(result(input, context, .skipped, reason: reason, bytesIn: bytesIn, started: started,
                                   change: assessment.change), itemEntry, change: assessment.change)
        }
        if assessment.outputsStandIfSelected, let previous = assessment.previous {
            // Only the filter changed and it still selects the item: its outputs stand.
            _ = try? ledger.record(input.relativePath, itemEntry, status: .ok, output: ledger.recordedOutputs(of: input.relativePath).first,
                                   reason: nil, error: nil, milliseconds: previous.milliseconds)
            return finished(unchanged(input, previous, started: started, context: context), change: .unchanged)
        }
        return PreparedItem(context: context, outcome: nil, estimatedBytes: options.dryRun ? 0 : estimate(context),
                            started: started, change: assessment.change, entry: itemEntry)
    }

    /// Pixel phase, on a scheduler worker.
    private func process(_ prepared: PreparedItem) -> ItemResult {
        defer { Vips.endWorkItem() }
        let context = prepared.context!
        if let error = runStages(pixelStages, on: context) {
            return failure(context.input, context, context.bytesIn, prepared.started, error, estimate: prepared.estimatedBytes,
                           change: prepared.change)
        }
        return result(context.input, context, .ok, output: context.output?.path, removed: context.removedMetadata,
                      bytesIn: context.bytesIn, bytesOut: context.output?.bytes ?? 0, started: prepared.started,
                      estimate: prepared.estimatedBytes, change: prepared.change)
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
            output = WriteStage.relativeOutput(write.path, for: context, format: format)
        }
        return result(context.input, context, .planned, output: output, bytesIn: context.bytesIn, started: prepared.started,
                      change: prepared.change)
    }

    /// An item the last run decided, reported as it left it.
    private func unchanged(_ input: InputItem, _ previous: ItemRecord, started: Date,
                           context: ItemContext? = nil) -> ItemResult {
        let status: ItemResult.Status = previous.status == .ok ? .unchanged : .skipped
        return ItemResult(input: input.relativePath, format: previous.format,
                          kinds: context.map { context in MediaKind.allCases.filter(context.facts.kinds.contains) },
                          livePhoto: input.livePhoto, status: status, change: .unchanged,
                          output: ledger.recordedOutputs(of: input.relativePath).first,
                          reason: status == .skipped ? previous.reason : nil, removedMetadata: nil, error: nil,
                          bytesIn: 0, bytesOut: 0, milliseconds: Self.milliseconds(since: started), estimatedBytes: nil)
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

    /// Records the item's decision (one transaction) and reports it.
    private func finish(_ result: ItemResult, _ entry: RunLedger.Entry?) {
        var result = result
        if let entry, let status = Self.recordedStatus(result.status) {
            do {
                let stale = try ledger.record(result.input, entry, status: status, output: result.output, reason: result.reason,
                                              error: result.error.map { ItemError(code: $0.code, message: $0.message, item: result.input,
                                                                                  stage: Stage.Name(rawValue: $0.stage) ?? .write) },
                                              milliseconds: result.milliseconds)
                if !stale.isEmpty {
                    resultsLock.lock()
                    staleOutputs.formUnion(stale)
                    resultsLock.unlock()
                }
            } catch {
                // The output stands but is not recorded: the next run redoes the item.
                result.reason = "not recorded in the state database (the next run redoes it): \(error)"
            }
        }
        resultsLock.lock()
        results.append(result)
        resultsLock.unlock()
        onItemFinished(result)
    }

    private static func recordedStatus(_ status: ItemResult.Status) -> ItemRecord.Status? {
        switch status {
        case .ok: return .ok
        case .failed: return .failed
        case .skipped: return .skipped
        case .planned, .unchanged: return nil
        }
    }

    /// `context` is nil for files that never became items (unreadable, not media).
    private func result(_ input: InputItem, _ context: ItemContext?, _ status: ItemResult.Status, output: String? = nil,
                        removed: [String] = [], reason: String? = nil, error: ItemError? = nil, bytesIn: Int,
                        bytesOut: Int = 0, started: Date, estimate: Int? = nil, change: ItemChange? = nil) -> ItemResult {
        ItemResult(input: input.relativePath, format: context?.format.rawValue,
                   kinds: context.map { context in MediaKind.allCases.filter(context.facts.kinds.contains) },
                   livePhoto: input.livePhoto, status: status, change: change, output: output, reason: reason,
                   removedMetadata: removed.isEmpty ? nil : removed,
                   error: error.map { .init(code: $0.code, stage: $0.stage.rawValue, message: $0.message) },
                   bytesIn: bytesIn, bytesOut: bytesOut, milliseconds: Self.milliseconds(since: started),
                   estimatedBytes: estimate)
    }

    private func failure(_ input: InputItem, _ context: ItemContext?, _ bytesIn: Int, _ started: Date,
                         _ error: ItemError, estimate: Int? = nil, change: ItemChange? = nil) -> ItemResult {
        result(input, context, .failed, error: error, bytesIn: bytesIn, started: started, estimate: estimate, change: change)
    }

    private static func milliseconds(since start: Date) -> Int {
        Int((Date().timeIntervalSince(start) * 1000).rounded())
    }
}

private extension Int64 {
    var nonZero: Int64? { self == 0 ? nil : self }
}
