import ArgumentParser
import Foundation
import MediaBatchCore
import PipelineModel
import RunState

/// What the state database says about a pipeline's output root: counts, the last run, and
/// the items that failed with their reasons.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the state database records: counts, the last run, failures with reasons.")

    @Argument(help: "The pipeline file.")
    var pipeline: String

    @Option(help: "Output folder (overrides output.root).")
    var output: String?

    @Option(help: "The state database (default: OUTPUT/.mediabatch/state.sqlite).")
    var state: String?

    @Option(help: ArgumentHelp("The shard whose database to read (e.g. 0/4).", valueName: "INDEX/COUNT"))
    var shard: String?

    func run() throws {
        let loaded = try loadPipeline(pipeline)
        let outputRoot = try root(output, orPipeline: loaded.output.root, key: "output", pipeline: pipeline)
        let selected: Shard?
        do {
            selected = try shard.map(Shard.init(parsing:))
        } catch {
            printError("error: --shard: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
        let path = (state.map(commandLinePath) ?? RunOptions.defaultStatePath(outputRoot: outputRoot, shard: selected)).path
        guard let store = try StateStore(readingExisting: path) else {
            print("no state database at \(path): no run has recorded anything yet")
            return
        }
        print("state: \(path)")
        if let run = try store.lastRun() {
            let formatter = ISO8601DateFormatter()
            let finished = run.finishedAt.map { "finished \(formatter.string(from: $0))" } ?? "did not finish (killed?)"
            let interrupted = run.interrupted ? ", interrupted" : ""
            print("last run: #\(run.id ?? 0) started \(formatter.string(from: run.startedAt)), \(finished)\(interrupted)")
            if let totals = run.totals { print("last run totals: \(totals)") }
        }
        let counts = try store.countsByStatus()
        print("items: \(counts[.ok] ?? 0) ok, \(counts[.failed] ?? 0) failed, \(counts[.skipped] ?? 0) skipped")
        let stale = try store.staleOutputs()
        if !stale.isEmpty { print("stale outputs (a run with --prune removes them): \(stale.count)") }
        let failures = try store.failures()
        if !failures.isEmpty {
            print("failures:")
            for item in failures {
                print("  \(item.input): \(item.errorStage ?? "?"): \(item.reason ?? "") [\(item.errorCode ?? "?")]")
            }
        }
    }
}
