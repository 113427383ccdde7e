import ArgumentParser
import Foundation
import MediaBatchCore

/// Combines the JSON reports of a sharded run into one, refusing overlapping shards. Exits 0
/// once merged (the shards' own exit codes said whether items failed), 2 when the reports
/// cannot be merged.
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
        let merged = try mergeShards(reports, as: "report", RunReport.init(merging:))
        try ReportFile.write(output) { try reportFormat.render(merged.summary, merged.itemStream, to: $0) }
        printError("mediabatch: merged \(reports.count) reports: \(merged.summary.line)")
    }
}
