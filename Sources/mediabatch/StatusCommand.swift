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

    @OptionGroup
    var file: PipelineFile

    @OptionGroup
    var state: StateOptions

    @Option(help: "How many failures to list, by input.")
    var failures = 100

    private var failureLimit: Int { max(0, failures) }

    func run() throws {
        let loaded = try file.load()
        let path = try state.statePath(outputRoot: try state.outputRoot(file, loaded)).path
        guard let store = try StateStore(readingExisting: path) else {
            print("no state database at \(path): no run has recorded anything yet")
            return
        }
        print("state: \(path)")
        if let run = try store.lastRun() {
            let formatter = ISO8601DateFormatter()
            let finished = run.finishedAt.map { "finished \(formatter.string(from: $0))" } ?? "did not finish (killed?)"
            let interrupted = run.interrupted ? ", interrupted" : ""
            print("last run: #\(run.id ?? 0) started \(formatter.string(from: run.startedAt)), \(finished)\(interrupted), by \(run.toolVersion)")
            if let totals = run.totals { print("last run totals: \(totals)") }
        }
        let counts = try store.countsByStatus()
        print("items: \(counts[.ok] ?? 0) ok, \(counts[.failed] ?? 0) failed, \(counts[.skipped] ?? 0) skipped")
        let stale = try store.staleOutputCount()
        if stale > 0 { print("stale outputs (a run with --prune removes them): \(stale)") }
        let failed = counts[.failed] ?? 0
        guard failed > 0 else { return }
        print("failures\(failed > failureLimit ? " (the first \(failureLimit) of \(failed); --failures N shows more)" : ""):")
        for item in try store.failures(limit: failureLimit) {
            print("  \(item.input): \(item.errorStage ?? "?"): \(item.reason ?? "") [\(item.errorCode ?? "?")]")
        }
    }
}
