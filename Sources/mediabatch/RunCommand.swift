import ArgumentParser
import Foundation
import MediaBatchCore
import PipelineModel
import Scheduler

extension ByteSize: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(parsing: argument)
    }
}

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline over its inputs.")

    @Argument(help: "The pipeline file.")
    var pipeline: String

    @Option(help: "Input folder (overrides input.root).")
    var input: String?

    @Option(help: "Output folder (overrides output.root).")
    var output: String?

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

    @Flag(help: "Read headers, classify and filter, and list what would be done (stdout): new, changed, unchanged, filtered, failed-before; write nothing.")
    var dryRun = false

    @Option(help: "The state database (default: OUTPUT/.mediabatch/state.sqlite, one per shard).")
    var state: String?

    @Flag(help: "Redo every item, whatever the state database says.")
    var force = false

    @Flag(help: "Remove outputs whose input vanished or no longer produces them.")
    var prune = false

    @Option(help: ArgumentHelp("Run only part INDEX of COUNT (e.g. 0/4). Default: from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX.",
                               valueName: "INDEX/COUNT"))
    var shard: String?

    @Option(help: "How many shards there are, for JOB_COMPLETION_INDEX and AWS_BATCH_JOB_ARRAY_INDEX (default: MEDIABATCH_SHARD_COUNT).")
    var shardCount: Int?

    enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
        case json, junit
    }

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, found \(jobs)") }
        if dryRun && (force || prune) { throw ValidationError("--dry-run writes nothing: it cannot be combined with --force or --prune") }
        _ = try resolvedShard()
    }

    /// `--shard`, else the array-job environment; nil runs everything.
    func resolvedShard() throws -> Shard? {
        do {
            if let shard { return try Shard(parsing: shard) }
            return try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount)
        } catch let error as ShardError {
            throw ValidationError("--shard: \(error)")
        }
    }

    func run() throws {
        let loaded = try loadPipeline(pipeline)
        let inputRoot = try root(input, orPipeline: loaded.input.root, key: "input", pipeline: pipeline)
        let outputRoot = try root(output, orPipeline: loaded.output.root, key: "output", pipeline: pipeline)
        var options = RunOptions(
            inputRoot: inputRoot, outputRoot: outputRoot,
            concurrency: jobs ?? loaded.limits.concurrency ?? AvailableCPUs.count,
            memoryBudget: memoryBudget ?? loaded.limits.memoryBudget,
            pipelineName: pipeline, dryRun: dryRun)
        options.force = force
        options.prune = prune
        options.shard = try resolvedShard()
        options.statePath = state.map(commandLinePath)
        if !loaded.input.trusted {
            let file = commandLinePath(pipeline)
            options.isolation = .init(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                      pipelineDocument: try Data(contentsOf: file), pipelineFolder: file.deletingLastPathComponent())
        }

        let shard = options.shard
        let progress = quiet ? nil : ProgressReporter(
            counting: InputWalker(root: options.inputRoot, include: loaded.input.include, exclude: loaded.input.exclude,
                                  skipping: options.outputRoot, followSymlinks: loaded.input.followSymlinks).lazy.filter { shard?.contains($0) ?? true },
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

        let result: RunReport
        do {
            defer { progress?.stop() }
            result = try runner.run()
        } catch let error as RunSetupError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        if let report {
            do {
                try createParentFolder(of: report)
                let data = reportFormat == .junit ? JUnitReport.xml(result) : try result.jsonData()
                try data.write(to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                printError("error: cannot write the report to \(report): \(error.localizedDescription)")
            }
        }
        if let metrics {
            do {
                try createParentFolder(of: metrics)
                try PrometheusMetrics.text(result, peakMemoryBytes: PeakMemory.bytes)
                    .write(toFile: metrics, atomically: true, encoding: .utf8)
            } catch {
                printError("error: cannot write the metrics to \(metrics): \(error.localizedDescription)")
            }
        }
        if dryRun && !quiet {
            // In input order, from the report: items finish in whatever order the workers do.
            for line in result.items.compactMap(DryRunListing.line) { print(line) }
            fflush(stdout) // the listing before the summary
        }
        printError("mediabatch: \(result.summary)")
        if let signal = trap.signal { throw ExitCode(128 + signal) }
        if result.totals.failed > 0 { throw ExitCode(ExitStatus.itemsFailed) }
    }
}

private func createParentFolder(of path: String) throws {
    try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(),
                                            withIntermediateDirectories: true)
}

/// One stdout line per item of a `--dry-run`: what would happen to it, why, and what it is.
/// The first word is `new`, `changed`, `failed-before` (would be written), `unchanged`,
/// `filtered` or `skip`.
enum DryRunListing {
    static func line(for result: ItemResult) -> String? {
        let kinds = result.kinds.map { " [\($0.map(\.rawValue).joined(separator: ", "))]" } ?? ""
        let pair = result.livePhoto.map { " (Live Photo \($0.role.rawValue) of \($0.partner))" } ?? ""
        switch result.status {
        case .planned:
            let word: String
            switch result.change ?? .new {
            case .new: word = "new"
            case .failedBefore: word = "failed-before"
            case let change: word = "changed (\(change.rawValue))"
            }
            return "\(word) \(result.input) -> \(result.output ?? "(no output)")\(kinds)\(pair)"
        case .unchanged:
            return "unchanged \(result.input) -> \(result.output ?? "(no output)")"
        case .skipped:
            let word = result.reason?.hasPrefix("filtered") == true ? "filtered" : "skip"
            return "\(word) \(result.input): \(result.reason ?? "")"
        case .failed, .ok:
            return nil // failures are reported on stderr as in a real run
        }
    }
}
