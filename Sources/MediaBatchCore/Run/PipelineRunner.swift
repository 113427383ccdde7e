import Foundation
import PipelineModel
import RunState
import Scheduler
import VipsKit

/// Runs a pipeline over every selected input: header stages on the listing thread (to decide
/// and estimate), pixel stages on the scheduler's workers once the memory budget admits them.
/// The state database decides first: an item whose input, recipe and outputs are as the last
/// run left them costs a stat and one lookup. Everything that calls a C decoder goes through
/// the executor: this process, or worker processes for untrusted input.
public final class PipelineRunner: @unchecked Sendable {
    private let pipeline: Pipeline
    private let options: RunOptions
    private let stages: ItemStages
    private let executor: ItemExecutor
    private let scheduler: Scheduler
    private let onItemFinished: @Sendable (ItemResult) -> Void
    private let resultsLock = NSLock()
    private var results: [ItemResult] = []
    private var staleOutputs: Set<String> = []
    private var stoppedByFailure = false
    /// Set up by `run`, once the database is open.
    private var ledger: RunLedger!
    private let claims = OutputClaims()

    /// `onItemFinished` is called as each item ends, from any thread.
    public init(pipeline: Pipeline, options: RunOptions, onItemFinished: @escaping @Sendable (ItemResult) -> Void = { _ in }) {
        self.pipeline = pipeline
        self.options = options
        let environment = RunEnvironment(outputRoot: options.outputRoot, temporaryFolder: options.temporaryFolder,
                                         limits: pipeline.limits)
        stages = ItemStages(pipeline: pipeline, environment: environment, keepsContexts: true)
        executor = options.isolation.map { isolation in
            WorkerPool(executable: isolation.executable, setup: WorkerMessage.Setup(
                pipelineDocument: isolation.pipelineDocument, pipelineFolder: isolation.pipelineFolder.path,
                outputRoot: options.outputRoot.path, temporaryFolder: options.temporaryFolder.path),
                timeoutSeconds: pipeline.limits.timeoutSeconds)
        } ?? stages
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
            try DecoderAllowList.startLibvips(for: pipeline.input.formats)
        } catch {
            throw RunSetupError(description: "cannot start libvips: \(error)")
        }
        if !options.dryRun {
            // Before the state database, which sits beside it: a symlinked .mediabatch stops the run here.
            do {
                try OutputTree.empty(options.temporaryFolder, under: options.outputRoot)
            } catch {
                throw RunSetupError(description: "cannot use the temporary folder: \((error as? StageFailure)?.message ?? "\(error)")")
            }
        }
        let started = Date()
        let (store, runID) = try openState()
        ledger = RunLedger(store: store, run: runID, outputRoot: options.outputRoot, force: options.force,
                           prune: options.prune, writes: !options.dryRun)
        claims.recordedOwner = { [ledger, options] output in ledger?.recordedOwner(ofOutput: output, inputRoot: options.inputRoot) }

        let walker = InputWalker(root: options.inputRoot, include: pipeline.input.include, exclude: pipeline.input.exclude,
                                 skipping: options.outputRoot, followSymlinks: pipeline.input.followSymlinks)
        let items = LivePhotoPairing(walker, known: ledger.knownHalf, identifier: executor.contentIdentifier).lazy.filter {
            [options] item in options.shard?.contains(item) ?? true
        }
        scheduler.run(items.map(prepare)) { [self] prepared in
            finish(prepared.outcome ?? (options.dryRun ? plan(prepared) : process(prepared)), prepared.entry)
        }
        (executor as? WorkerPool)?.shutdown()
        let orphans = scheduler.isCancelled ? [] : ledger.finish()
        let stale = Set(ledger.staleOutputs()).union(staleOutputs)
        let report = RunReport(
            pipeline: options.pipelineName, inputRoot: options.inputRoot, outputRoot: options.outputRoot,
            startedAt: started, milliseconds: Self.milliseconds(since: started), interrupted: scheduler.isCancelled,
            stoppedByFailure: stoppedByFailure, dryRun: options.dryRun, shard: options.shard?.description, items: results,
            orphans: orphans, staleOutputs: options.prune ? [] : stale.sorted())
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
        let job: ItemJob?
        let verdict: HeaderVerdict?
        /// Set when the header phase already decided the item (skipped, failed, unchanged).
        let outcome: ItemResult?
        let started: Date
        let change: ItemChange?
        /// What the state database records for it; nil when nothing new is to be recorded.
        let entry: RunLedger.Entry?
        /// A note for the report (e.g. processed despite its extension).
        let note: String?

        var estimatedBytes: Int { verdict?.estimatedBytes ?? 0 }
    }

    /// What an item's outputs and selection depend on, for its format (nil: not media).
    private func fingerprints(_ input: InputItem, _ format: MediaFormat?) -> RunLedger.Fingerprints {
        var recipe = [OutputVersion.current, "libvips \(Vips.version)"]
        if let format { recipe += stages.stages.compactMap { $0.recipe(for: format) } }
        var selection = stages.stages.compactMap { ($0 as? FilterStage)?.selection }
        if let pair = input.livePhoto, pair.role == .video {
            // The movie goes where its still goes, and is named after it.
            recipe.append("named after \(pair.partner)")
            let still = FileStamp(path: input.root.appendingPathComponent(pair.partner).path)
            selection.append("still \(still?.size ?? -1) \(still?.modifiedNanoseconds ?? -1)")
        }
        return .init(recipe: ContentHash.of(recipe.joined(separator: "\n")),
                     selection: ContentHash.of(selection.joined(separator: "\n")))
    }

    /// Header phase: refuse what must not be opened, ask the state database, check the limits
    /// that need no decoder, sniff the format, then have the executor run filter and decode.
    private func prepare(_ input: InputItem) -> PreparedItem {
        let started = Date()
        func finished(_ result: ItemResult, _ entry: RunLedger.Entry? = nil, change: ItemChange? = nil) -> PreparedItem {
            PreparedItem(job: nil, verdict: nil, outcome: result, started: started, change: change, entry: entry, note: nil)
        }
        func failed(_ code: ItemError.Code, _ message: String, stage: Stage.Name = .decode, bytesIn: Int = 0, format: MediaFormat? = nil,
                    kinds: [MediaKind]? = nil, change: ItemChange? = nil, entry: RunLedger.Entry? = nil) -> PreparedItem {
            let error = ItemError(code: code, message: message, item: input.relativePath, stage: stage)
            return finished(result(input, format, kinds, .failed, error: error, bytesIn: bytesIn, started: started, change: change),
                            entry, change: change)
        }
        func skipped(_ reason: String, bytesIn: Int = 0, format: MediaFormat? = nil, kinds: [MediaKind]? = nil,
                     change: ItemChange? = nil, entry: RunLedger.Entry? = nil) -> PreparedItem {
            finished(result(input, format, kinds, .skipped, reason: reason, bytesIn: bytesIn, started: started, change: change),
                     entry, change: change)
        }
        if let refusal = input.refusal {
            return refusal.isBroken ? failed(.unreadable, refusal.reason) : skipped(refusal.reason)
        }
        guard let stamp = FileStamp(path: input.path) else {
            return errno == ENOENT ? skipped("vanished after it was listed") : failed(.unreadable, "cannot read the file")
        }
        let bytesIn = Int(stamp.size)
        guard bytesIn <= pipeline.limits.maxFileBytes.bytes else {
            return failed(.fileTooLarge, "\(ByteSize.format(bytesIn)), over limits.maxFileBytes (\(pipeline.limits.maxFileBytes))",
                          bytesIn: bytesIn)
        }
        let assessment = ledger.assess(input, stamp: stamp) { fingerprints(input, $0) }
        let change = assessment.change
        if change == .unchanged, let previous = assessment.previous {
            ledger.markSeen(input.relativePath, stamp: stamp)
            return finished(unchanged(input, previous, started: started), change: .unchanged)
        }
        let sniffed: MediaFormat?
        let contentHash: String
        do {
            sniffed = try FormatSniffer.format(of: input.path)
            contentHash = try assessment.contentHash ?? ContentHash.ofFile(atPath: input.path)
        } catch {
            return failed(.unreadable, "cannot read the file")
        }
        func entry(_ format: MediaFormat?, _ contentIdentifier: String? = nil) -> RunLedger.Entry {
            .init(stamp: stamp, contentHash: contentHash, format: format, contentIdentifier: contentIdentifier,
                  fingerprints: fingerprints(input, format))
        }
        guard let format = sniffed else {
            guard FormatSniffer.formatsByExtension[input.pathExtension] != nil else {
                return skipped("not a media file", bytesIn: bytesIn, change: change, entry: entry(nil))
            }
            let what = bytesIn == 0 ? "the file is empty" : "its content is not a recognised image or video format"
            return failed(.unsupportedFormat, "named .\(input.pathExtension) but \(what)", bytesIn: bytesIn, change: change,
                          entry: entry(nil))
        }
        guard pipeline.input.formats.contains(format) else {
            return skipped("a \(format.rawValue) file, not in input.formats", bytesIn: bytesIn, format: format, change: change,
                           entry: entry(format))
        }
        var note: String?
        if let promised = FormatSniffer.contradiction(fileExtension: input.pathExtension, content: format) {
            let mismatch = "named .\(input.pathExtension) (\(promised.rawValue)) but its content is \(format.rawValue)"
            guard pipeline.input.extensionMismatch == .process else {
                return failed(.formatMismatch, "\(mismatch) (input.extensionMismatch: \"process\" reads it as \(format.rawValue))",
                              bytesIn: bytesIn, format: format, change: change, entry: entry(format))
            }
            note = "\(mismatch): processed as \(format.rawValue)"
        }
        let job = ItemJob(input: input, format: format, bytesIn: bytesIn, contentHash: contentHash)
        let verdict = executor.header(job)
        let itemEntry = entry(format, verdict.contentIdentifier)
        if let error = verdict.error {
            return failed(error.code, error.message, stage: error.stage, bytesIn: bytesIn, format: format, kinds: verdict.kinds,
                          change: change, entry: itemEntry)
        }
        if let reason = verdict.skipReason {
            return skipped(reason, bytesIn: bytesIn, format: format, kinds: verdict.kinds, change: change, entry: itemEntry)
        }
        if let output = verdict.plannedOutput, let holder = claims.claim(output, for: input.relativePath) {
            stages.forget(job)
            return failed(.outputCollision, "\(output) is already the output of \(holder)", stage: .write, bytesIn: bytesIn,
                          format: format, kinds: verdict.kinds, change: change, entry: itemEntry)
        }
        if assessment.outputsStandIfSelected, let previous = assessment.previous {
            // Only the filter changed and it still selects the item: its outputs stand.
            stages.forget(job)
            _ = try? ledger.record(input.relativePath, itemEntry, status: .ok, output: ledger.recordedOutputs(of: input.relativePath).first,
                                   reason: nil, error: nil, milliseconds: previous.milliseconds)
            return finished(unchanged(input, previous, started: started, kinds: verdict.kinds), change: .unchanged)
        }
        var admitted = verdict
        if options.dryRun { admitted.estimatedBytes = 0 }
        return PreparedItem(job: job, verdict: admitted, outcome: nil, started: started, change: change, entry: itemEntry, note: note)
    }

    /// Pixel phase, on a scheduler worker.
    private func process(_ prepared: PreparedItem) -> ItemResult {
        let job = prepared.job!
        let outcome = executor.pixels(job)
        if let error = outcome.error {
            return result(job.input, job.format, prepared.verdict?.kinds, .failed, reason: prepared.note, error: error,
                          bytesIn: job.bytesIn, started: prepared.started, estimate: prepared.estimatedBytes, change: prepared.change)
        }
        return result(job.input, job.format, prepared.verdict?.kinds, .ok, output: outcome.output, removed: outcome.removedMetadata,
                      reason: prepared.note, bytesIn: job.bytesIn, bytesOut: outcome.bytesOut, started: prepared.started,
                      estimate: prepared.estimatedBytes, change: prepared.change)
    }

    /// `--dry-run`: where the item would be written; no pixel stage runs.
    private func plan(_ prepared: PreparedItem) -> ItemResult {
        let job = prepared.job!
        stages.forget(job)
        return result(job.input, job.format, prepared.verdict?.kinds, .planned, output: prepared.verdict?.plannedOutput,
                      reason: prepared.note, bytesIn: job.bytesIn, started: prepared.started, change: prepared.change)
    }

    /// An item the last run decided, reported as it left it.
    private func unchanged(_ input: InputItem, _ previous: ItemRecord, started: Date, kinds: [MediaKind]? = nil) -> ItemResult {
        let status: ItemResult.Status = previous.status == .ok ? .unchanged : .skipped
        return ItemResult(input: input.relativePath, format: previous.format, kinds: kinds,
                          livePhoto: input.livePhoto, status: status, change: .unchanged,
                          output: ledger.recordedOutputs(of: input.relativePath).first,
                          reason: status == .skipped ? previous.reason : nil, removedMetadata: nil, error: nil,
                          bytesIn: 0, bytesOut: 0, milliseconds: Self.milliseconds(since: started), estimatedBytes: nil)
    }

    /// Records the item's decision (one transaction) and reports it; under `onError: stop`, a
    /// failure stops admission.
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
        let stop = result.status == .failed && pipeline.onError == .stop && !stoppedByFailure
        if stop { stoppedByFailure = true }
        resultsLock.unlock()
        if stop { scheduler.cancel() }
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

    /// `format` and `kinds` are nil for files that never became items (unreadable, not media).
    private func result(_ input: InputItem, _ format: MediaFormat?, _ kinds: [MediaKind]?, _ status: ItemResult.Status,
                        output: String? = nil, removed: [String] = [], reason: String? = nil, error: ItemError? = nil,
                        bytesIn: Int, bytesOut: Int = 0, started: Date, estimate: Int? = nil, change: ItemChange? = nil) -> ItemResult {
        ItemResult(input: input.relativePath, format: format?.rawValue, kinds: kinds,
                   livePhoto: input.livePhoto, status: status, change: change, output: output, reason: reason,
                   removedMetadata: removed.isEmpty ? nil : removed,
                   error: error.map { .init(code: $0.code, stage: $0.stage.rawValue, message: $0.message) },
                   bytesIn: bytesIn, bytesOut: bytesOut, milliseconds: Self.milliseconds(since: started),
                   estimatedBytes: estimate)
    }

    private static func milliseconds(since start: Date) -> Int {
        Int((Date().timeIntervalSince(start) * 1000).rounded())
    }
}

private extension Int64 {
    var nonZero: Int64? { self == 0 ? nil : self }
}
