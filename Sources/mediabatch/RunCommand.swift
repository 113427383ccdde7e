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

    @Flag(help: "Read headers, classify and filter, and list what would be written (stdout); write nothing.")
    var dryRun = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, found \(jobs)") }
    }

    func run() throws {
        let loaded = try loadPipeline(pipeline)
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        guard let inputRoot = input.map({ URL(fileURLWithPath: $0, relativeTo: cwd) }) ?? loaded.input.root else {
            printError("error: no input folder: set input.root in \(pipeline) or pass --input")
            throw ExitCode(ExitStatus.invalid)
        }
        guard let outputRoot = output.map({ URL(fileURLWithPath: $0, relativeTo: cwd) }) ?? loaded.output.root else {
            printError("error: no output folder: set output.root in \(pipeline) or pass --output")
            throw ExitCode(ExitStatus.invalid)
        }
        let options = RunOptions(
            inputRoot: inputRoot, outputRoot: outputRoot,
            concurrency: jobs ?? loaded.limits.concurrency ?? AvailableCPUs.count,
            memoryBudget: memoryBudget ?? loaded.limits.memoryBudget,
            pipelineName: pipeline, dryRun: dryRun)

        let progress = quiet ? nil : ProgressReporter(
            counting: InputWalker(root: options.inputRoot, include: loaded.input.include, exclude: loaded.input.exclude,
                                  skipping: options.outputRoot),
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
                try result.jsonData().write(to: URL(fileURLWithPath: report), options: .atomic)
            } catch {
                printError("error: cannot write the report to \(report): \(error.localizedDescription)")
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

/// One stdout line per item of a `--dry-run`: what would happen to it and what it is.
enum DryRunListing {
    static func line(for result: ItemResult) -> String? {
        let kinds = result.kinds.map { " [\($0.map(\.rawValue).joined(separator: ", "))]" } ?? ""
        switch result.status {
        case .planned:
            let pair = result.livePhoto.map { " (Live Photo \($0.role.rawValue) of \($0.partner))" } ?? ""
            return "write \(result.input) -> \(result.output ?? "(no output)")\(kinds)\(pair)"
        case .skipped:
            return "skip  \(result.input): \(result.reason ?? "")"
        case .failed, .ok:
            return nil // failures are reported on stderr as in a real run
        }
    }
}
