import ArgumentParser
import Foundation
import MediaBatchCore

/// Combines the JSON reports of a sharded run into one as it reads them (a million items hold a
/// few in memory), refusing overlapping shards. Exits 0 once merged (the shards' own exit codes
/// said whether items failed), 2 when the reports cannot be merged, writing nothing.
struct MergeReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-reports",
        abstract: "Combine the JSON reports of a run's shards into one report.")

    @Argument(help: "Where to write the merged report.")
    var output: String

    @Option(help: ArgumentHelp("Merged report format: json or junit.", valueName: "format"))
    var reportFormat: ReportFormat = .json

    @Argument(help: "The shard reports (JSON, as `run --report` writes them).")
    var reports: [String]

    func run() throws {
        do {
            let shards = try ShardReports(reports)
            try ReportFile.write(output) { try reportFormat.render(shards.summary, shards.items, to: $0) }
            printError("mediabatch: merged \(reports.count) reports: \(shards.summary.line)")
        } catch let error as ReportMergeError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
    }
}
