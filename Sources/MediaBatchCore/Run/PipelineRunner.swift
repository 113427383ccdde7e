import Foundation
import PipelineModel
import RunState
import Scheduler

/// Runs a pipeline over every selected input: the header phase on the listing thread (to decide
/// and estimate), the pixel phase on the scheduler's workers once the memory budget admits the
/// item. The state database decides first: an item whose input, recipe and outputs are as the
/// last run left them costs a stat and one lookup. Everything that calls a C decoder goes
/// through the executor: this process, or worker processes for untrusted input.
public final class PipelineRunner: @unchecked Sendable {
    private let pipeline: Pipeline
    private let options: RunOptions
    private let stages: [any PipelineStage]
    private let executor: ItemExecutor
    private let scheduler: Scheduler
    private let onItemFinished: @Sendable (ItemResult) -> Void

    /// `onItemFinished` is called as each item ends, from any thread.
    public init(pipeline: Pipeline, options: RunOptions, onItemFinished: @escaping @Sendable (ItemResult) -> Void = { _ in }) {
        self.pipeline = pipeline
        self.options = options
        stages = StageList.runnable(pipeline)
        let environment = RunEnvironment(outputRoot: options.outputRoot, temporaryFolder: options.temporaryFolder,
                                         limits: pipeline.limits, input: pipeline.input, stages: stages)
        executor = options.isolation.map { isolation in
            WorkerPool(executable: isolation.executable, setup: WorkerMessage.Setup(
                pipelineDocument: isolation.pipelineDocument, pipelineFolder: isolation.pipelineFolder.path,
                outputRoot: options.outputRoot.path, temporaryFolder: options.temporaryFolder.path),
                timeoutSeconds: pipeline.limits.timeoutSeconds, workers: Self.headerReads(options))
        } ?? InProcessExecutor(stages: stages, environment: environment, keepsContexts: true)
        self.scheduler = Scheduler(concurrency: options.concurrency, memoryBudget: options.memoryBudget.bytes)
        self.onItemFinished = onItemFinished
    }

    /// Stops admitting items; those running finish and are reported.
    public func cancel() {
        scheduler.cancel()
    }

    public var reservedBytes: Int { scheduler.reservedBytes }

    public func run() throws -> FinishedRun {
        try checkRoots()
        // Before the temporary folder is emptied: it may be another run's.
        let lock = options.dryRun ? nil : try RunLock.acquire(statePath: options.resolvedStatePath, outputRoot: options.outputRoot)
        defer { withExtendedLifetime(lock) {} }
        let copies = try copiesToSkip()
        try prepareLibvipsAndFolders()
        let started = Date()
        let (store, runID) = try openState()
        let ledger = RunLedger(store: store, run: runID, outputRoot: options.outputRoot, force: options.force,
                               prune: options.prune, writes: !options.dryRun, durability: options.durability)
        let spoolFolder = try makeSpoolFolder()
        let recorder = RunRecorder(ledger: ledger, publisher: try makePublisher(), spool: ResultSpool(folder: spoolFolder),
                                   onError: pipeline.onError, stop: { [scheduler] in scheduler.cancel() }, onItemFinished: onItemFinished)
        runItems(ledger, recorder, claimsLog: spoolFolder.appending(path: "claims-\(getpid()).bin"), skipping: copies)
        // Orphans only when every input was listed; with --prune, finishing removes the stale outputs too.
        let orphans = scheduler.isCancelled ? [] : ledger.finish()
        let stale = options.prune ? [] : Set(ledger.staleOutputs()).union(recorder.staleOutputs).sorted()
        let summary = RunSummary(
            pipeline: options.pipelineName, inputRoot: options.inputRoot, outputRoot: options.outputRoot,
            startedAt: started, milliseconds: Int((Date().timeIntervalSince(started) * 1000).rounded()),
            interrupted: scheduler.isCancelled, stoppedByFailure: recorder.stoppedByFailure, dryRun: options.dryRun,
            shard: options.shard?.description, totals: recorder.spool.total, orphans: orphans, staleOutputs: stale)
        if let store, runID != 0 {
            // Keys sorted: `status` prints them, the same for the same totals.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            try? store.finishRun(runID, interrupted: summary.interrupted,
                                 totals: String(decoding: (try? encoder.encode(summary.totals)) ?? Data(), as: UTF8.self))
        }
        return FinishedRun(summary: summary, spool: recorder.spool, removing: options.dryRun ? spoolFolder : nil,
                           manifest: options.makesManifest && !options.dryRun ? ledger.manifestItems : nil,
                           stoppedByFullDisk: recorder.stoppedByFullDisk)
    }

    /// What renames the items' outputs into place, a batch at a time; none in a dry run.
    private func makePublisher() throws -> OutputPublisher? {
        guard !options.dryRun else { return nil }
        do {
            return try OutputPublisher(outputRoot: options.outputRoot, temporaryFolder: options.temporaryFolder,
                                       durability: options.durability)
        } catch {
            throw RunSetupError(description: "cannot use the temporary folder: \((error as? StageFailure)?.message ?? "\(error)")")
        }
    }

    /// Where the report's spool and the output claims' log go: the run's temporary folder, which a
    /// later run empties if this one is killed; a dry run, which writes nothing under the output
    /// root, uses a folder of its own in the system's.
    private func makeSpoolFolder() throws -> URL {
        guard options.dryRun else { return options.temporaryFolder }
        var template = Array(FileManager.default.temporaryDirectory.appending(path: "mediabatch-spool-XXXXXX").path.utf8CString)
        guard let made = mkdtemp(&template) else {
            throw RunSetupError(description: "cannot make a folder for the report's spool: \(String(cString: strerror(errno)))")
        }
        return URL(fileURLWithPath: String(cString: made))
    }

    /// Lists, pairs and shards the inputs, and runs each through the header phase, then (once
    /// admitted) its pixel phase.
    /// `copies`: paths skipped as duplicates, with why.
    private func runItems(_ ledger: RunLedger, _ recorder: RunRecorder, claimsLog: URL, skipping copies: [String: String]) {
        let claims = OutputClaims(log: claimsLog) { [options] outputs in ledger.recordedOwners(ofOutputs: outputs, inputRoot: options.inputRoot) }
        let header = HeaderPhase(pipeline: pipeline, stages: stages, executor: executor, ledger: ledger, claims: claims,
                                 dryRun: options.dryRun)
        let walker = InputWalker(root: options.inputRoot, include: pipeline.input.include, exclude: pipeline.input.exclude,
                                 skipping: options.outputRoot, followSymlinks: pipeline.input.followSymlinks)
        let items = FolderPairing(walker, input: pipeline.input, known: ledger.knownHalf, identifier: executor.contentIdentifier).lazy.filter {
            [options] item in options.shard?.contains(item) ?? true
        }.map { item in
            var item = item
            if item.refusal == nil, let reason = copies[item.relativePath] { item.refusal = .duplicate(reason) }
            return item
        }
        let listing = ListingEnd(items)
        scheduler.run(listing.lookahead(Self.headerReads(options), header.read).lazy.map(header.settle)) { [self] prepared in
            switch prepared.decision {
            case .decided(let result): recorder.finish(result, prepared.findings.entry, outputs: [])
            case .standing(let result, let outputs, let milliseconds):
                recorder.stand(result, prepared.findings.entry, outputs: outputs, milliseconds: milliseconds)
            case .admitted(var job, let plan):
                job.isTail = listing.ended
                pixelPhase(prepared.findings, job, plan, recorder, header)
            }
        }
        recorder.flush()
        executor.shutdown()
    }

    /// How many headers are read at once (claims and admission stay in listing order): in worker
    /// processes, as many as items run, at least 2. Trusted input reads them on the listing thread,
    /// one at a time: the context a header read builds is kept for the item's pixel phase, and
    /// libvips' per-thread buffers must outlive it, which a Dispatch thread's end would not let them.
    /// The worker processes are as many: they read headers and run items alike.
    private static func headerReads(_ options: RunOptions) -> Int {
        options.isolation == nil ? 1 : max(2, options.concurrency)
    }

    /// On a scheduler lane: the pixel stages, or, in a dry run, where the item would go.
    private func pixelPhase(_ findings: ItemFindings, _ job: ItemJob, _ plan: ItemPlan, _ recorder: RunRecorder, _ header: HeaderPhase) {
        guard !options.dryRun else {
            executor.forget(job)
            return recorder.finish(findings.planned(plan), findings.entry, outputs: nil)
        }
        var job = job
        job.plan = plan
        let outcome = executor.pixels(job)
        var entry = findings.entry
        entry?.placeholder = outcome.placeholder
        entry?.readings = outcome.readings
        if outcome.error == nil, let collision = header.claimNamed(outcome.outputs, planned: plan, for: job.input.relativePath) {
            return recorder.finish(findings.failed(.outputCollision, collision, stage: .write), entry, outputs: [], staged: outcome.staged)
        }
        let hashes = Dictionary(outcome.outputs.compactMap { output in output.contentHash.map { (output.path, $0) } }) { first, _ in first }
        recorder.finish(findings.ran(outcome, estimate: plan.estimatedBytes), entry, outputs: outcome.outputs.map(\.planned), hashes: hashes,
                        staged: outcome.staged)
    }

    private func checkRoots() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.inputRoot.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RunSetupError(description: "input root \(options.inputRoot.path) is not a folder")
        }
        guard options.outputRoot.resolvingSymlinksInPath() != options.inputRoot.resolvingSymlinksInPath() else {
            throw RunSetupError(description:
                "the output root \(options.outputRoot.path) is the input root: outputs would become inputs of the next run")
        }
    }

    /// libvips with only the pipeline's loaders, and (unless nothing is written) an empty temporary folder.
    /// `input.duplicates: keeper`: the copies to skip, by path, from a fingerprint run over the whole input (not
    /// one shard: the keeper may be in another), its state database in the output tree's
    /// `.mediabatch/duplicates`, so that an unchanged file is read once; a dry run's in a temporary folder
    /// it removes, as it writes nothing.
    private func copiesToSkip() throws -> [String: String] {
        guard pipeline.input.duplicates == .keeper else { return [:] }
        let scratch = options.dryRun ? FileManager.default.temporaryDirectory.appending(path: "mediabatch-duplicates-\(UUID().uuidString)")
            : options.outputRoot.appending(path: ".mediabatch/duplicates")
        defer { if options.dryRun { try? FileManager.default.removeItem(at: scratch) } }
        var folder = DuplicateScan.Folder(root: options.inputRoot, scratch: scratch)
        folder.include = pipeline.input.include.map(\.pattern)
        let root = options.inputRoot.standardizedFileURL.path + "/", output = options.outputRoot.standardizedFileURL.path
        folder.exclude = pipeline.input.exclude.map(\.pattern) + (output.hasPrefix(root) ? [String(output.dropFirst(root.count)) + "/**"] : [])
        folder.followSymlinks = pipeline.input.followSymlinks
        folder.formats = pipeline.input.formats
        folder.rawJpegPairs = pipeline.input.rawJpegPairs
        let found = try DuplicateScan.scan(folder, concurrency: options.concurrency, budget: options.memoryBudget, workers: options.isolation?.executable)
        return DuplicateScan.copies(in: found)
    }

    private func prepareLibvipsAndFolders() throws {
        do {
            try DecoderAllowList.startLibvips(for: pipeline.input.formats, encoding: options.isolation == nil)
        } catch {
            throw RunSetupError(description: "cannot start libvips: \(error)")
        }
        guard !options.dryRun else { return }
        // Before the state database, which sits beside it: a symlinked .mediabatch stops the run here.
        do {
            try OutputTree.empty(options.temporaryFolder, under: options.outputRoot)
        } catch {
            throw RunSetupError(description: "cannot use the temporary folder: \((error as? StageFailure)?.message ?? "\(error)")")
        }
    }

    /// Opens the state database (read-only for a dry run, which may find none). Run 0 is a dry run's.
    private func openState() throws -> (StateStore?, Int64) {
        let path = options.resolvedStatePath.path
        do {
            guard !options.dryRun else { return (try StateStore(readingExisting: path), 0) }
            let store = try StateStore(path: path)
            let run = try store.beginRun(pipeline: options.pipelineName, shard: options.shard?.description,
                                         toolVersion: "mediabatch \(MediaBatchVersion.current)")
            return (store, run)
        } catch {
            throw RunSetupError(description: "cannot open the state database \(path): \(error)")
        }
    }
}
