import ArgumentParser
import Foundation
import MediaBatchCore
import PipelineModel
import Scheduler

extension Durability: ExpressibleByArgument {}

extension ByteSize: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline over its inputs.")

    @OptionGroup
    var file: PipelineFile

    @Option(help: "Input folder (overrides input.root).")
    var input: String?

    @OptionGroup
    var state: StateOptions

    @Option(help: "Items in flight at once (overrides limits.concurrency; default: usable CPUs).")
    var jobs: Int?

    @Option(help: "Memory the items in flight may use together, e.g. 600MiB (overrides limits.memoryBudget).")
    var memoryBudget: ByteSize?

    @Option(help: "Write a JSON report of every item to this file.")
    var report: String?

    @Flag(help: "No progress: print only per-item errors and the final summary.")
    var quiet = false

    @Option(help: ArgumentHelp("Report format: json or junit (failed items as failed test cases).", valueName: "format"))
    var reportFormat: ReportFormat = .json

    @Option(help: "Write Prometheus text-format metrics (node_exporter's textfile collector) to this file.")
    var metrics: String?

    @Option(help: "Write the manifest of every item's outputs to this file (overrides output.manifest).")
    var manifest: String?

    @Flag(help: "Read headers, classify and filter, and list what would be done (stdout): new, changed, unchanged, filtered, failed-before; write nothing.")
    var dryRun = false

    @Flag(help: "Redo every item, whatever the state database says.")
    var force = false

    @Flag(help: "Remove outputs whose input vanished or no longer produces them.")
    var prune = false

    @Option(help: ArgumentHelp("full: every output's data and folder reach the disk before the state database records it; "
                               + "none: no syncs, for scratch runs a power cut may lose.", valueName: "full|none"))
    var durability: Durability = .full

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, found \(jobs)") }
        if dryRun && (force || prune) { throw ValidationError("--dry-run writes nothing: it cannot be combined with --force or --prune") }
    }

    func run() throws {
        let loaded = try file.load()
        let options = try runOptions(loaded)
        let progress = quiet ? nil : ProgressReporter(
            counting: InputWalker(root: options.inputRoot, include: loaded.input.include, exclude: loaded.input.exclude,
                                  skipping: options.outputRoot, followSymlinks: loaded.input.followSymlinks)
                .lazy.filter { [shard = options.shard] in shard?.contains($0) ?? true },
            budget: options.memoryBudget)
        let runner = PipelineRunner(pipeline: loaded, options: options) { result in
            progress?.itemFinished(result)
            guard let error = result.error else { return }
            progress?.clearLine()
            printError("error: \(result.input): \(error.stage): \(error.message) [\(error.code.rawValue)]")
        }
        progress?.reservedBytes = { runner.reservedBytes }
        progress?.start()
        let trap = SignalTrap { [quiet] signal in
            if !quiet { printError("mediabatch: signal \(signal): finishing items in flight (send it again to abort now)") }
            runner.cancel()
        }
        let result: FinishedRun
        do {
            defer { progress?.stop() }
            result = try runner.run()
        } catch let error as RunSetupError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        finish(result)
        if result.stoppedByFullDisk {
            printError("mediabatch: stopped admitting items: no space left (\(FinishedRun.fullDiskStreak) items in a row could not be "
                       + "written or recorded; each one's error says where and what it needed). Free space and run again: the rest is redone.")
        }
        if let items = result.manifest { writeManifest(items, loaded, options) }
        if let signal = trap.signal { throw ExitCode(128 + signal) }
        if result.summary.totals.failed > 0 { throw ExitCode(ExitStatus.itemsFailed) }
    }

    /// The pipeline's own values after this command line's overrides.
    private func runOptions(_ loaded: Pipeline) throws -> RunOptions {
        let inputRoot = try file.root(input, orPipeline: loaded.input.root, key: "input")
        var options = RunOptions(
            inputRoot: inputRoot, outputRoot: try state.outputRoot(file, loaded),
            concurrency: jobs ?? loaded.limits.concurrency ?? AvailableCPUs.count,
            memoryBudget: memoryBudget ?? loaded.limits.memoryBudget, pipelineName: file.pipeline, dryRun: dryRun)
        options.force = force
        options.prune = prune
        options.durability = durability
        options.shard = try state.shard.resolved()
        options.statePath = state.state.map(commandLinePath)
        options.makesManifest = manifest != nil || loaded.output.manifest != nil
        if !loaded.input.trusted {
            let pipelineFile = commandLinePath(file.pipeline)
            options.isolation = .init(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                      pipelineDocument: try Data(contentsOf: pipelineFile),
                                      pipelineFolder: pipelineFile.deletingLastPathComponent())
        }
        return options
    }

    /// The report, the metrics, a dry run's listing and the summary line.
    private func finish(_ result: FinishedRun) {
        write(report, "the report") { try reportFormat.render(result.summary, result.items, to: $0) }
        write(metrics, "the metrics") { try $0.write(PrometheusMetrics.text(result.summary, peakMemoryBytes: PeakMemory.bytes)) }
        if dryRun && !quiet {
            // In input order, from the spool: items finish in whatever order the workers do.
            do {
                try result.items { item in DryRunListing.line(for: item).map { print($0) } }
            } catch {
                printError("error: cannot list the dry run: \(error)")
            }
            fflush(stdout) // the listing before the summary
        }
        printError("mediabatch: \(result.summary.line)")
    }

    /// `--manifest`, else `output.manifest` in the output tree (one per shard: `merge-manifests` joins them).
    private func writeManifest(_ items: @escaping ManifestStream, _ loaded: Pipeline, _ options: RunOptions) {
        guard let relative = loaded.output.manifest, manifest == nil else {
            return write(manifest, "the manifest") { try Manifest.write(items, to: $0) }
        }
        let path = options.shard.map { Self.tagged(relative, $0) } ?? relative
        do {
            try Manifest.publish(items, at: path, under: options.outputRoot, via: options.temporaryFolder, durability: options.durability)
        } catch {
            printError("error: cannot write the manifest to \(path): \(error)")
        }
    }

    /// `manifest.json` of shard 0 of 4 is `manifest.shard-0-of-4.json`.
    static func tagged(_ path: String, _ shard: Shard) -> String {
        let name = path as NSString
        let tag = ".\(shard.tag)"
        return name.pathExtension.isEmpty ? path + tag : name.deletingPathExtension + tag + "." + name.pathExtension
    }

    /// Writes a file the command line asked for; a failure is reported, not fatal: the run is done.
    private func write(_ path: String?, _ what: String, _ render: (TextSink) throws -> Void) {
        guard let path else { return }
        do {
            try ReportFile.write(path, render)
        } catch {
            printError("error: cannot write \(what) to \(path): \(error)")
        }
    }
}
