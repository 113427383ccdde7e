import Foundation
import PipelineModel

/// A report read back whole (`merge-reports`, tests): its summary and every item, in input
/// order. A run never holds one: its items stay in the spool (`FinishedRun`).
@dynamicMemberLookup
public struct RunReport: Decodable, Equatable, Sendable {
    public let summary: RunSummary
    public let items: [ItemResult]

    init(summary: RunSummary, items: [ItemResult]) {
        self.summary = summary
        self.items = items.sorted { $0.input < $1.input }
    }

    private enum CodingKeys: String, CodingKey {
        case items
    }

    /// The summary's keys and `items`, side by side in one object.
    public init(from decoder: Decoder) throws {
        summary = try RunSummary(from: decoder)
        items = try decoder.container(keyedBy: CodingKeys.self).decode([ItemResult].self, forKey: .items)
    }

    public subscript<Value>(dynamicMember path: KeyPath<RunSummary, Value>) -> Value {
        summary[keyPath: path]
    }

    /// The items, as the renderers take them.
    public var itemStream: ItemStream {
        { body in try items.forEach(body) }
    }

    /// The shard reports of one pipeline as one report. Fails when two shards report the same
    /// input (the shards overlap) or the reports are of different pipelines or roots.
    public init(merging reports: [RunReport]) throws {
        guard let first = reports.first?.summary else { throw ReportMergeError(message: "no reports to merge") }
        for report in reports.map(\.summary) where (report.pipeline, report.inputRoot, report.outputRoot, report.dryRun)
            != (first.pipeline, first.inputRoot, first.outputRoot, first.dryRun) {
            throw ReportMergeError(message: "the reports are of different runs: \(first.pipeline) over \(first.inputRoot) and \(report.pipeline) over \(report.inputRoot)")
        }
        var owners: [String: String] = [:]
        for report in reports {
            for item in report.items {
                if let other = owners.updateValue(report.shard ?? "unsharded", forKey: item.input) {
                    throw ReportMergeError(message: "\(item.input) is in shard \(other) and shard \(report.shard ?? "unsharded"): the shards overlap")
                }
            }
        }
        let versions = Set(reports.compactMap(\.mediabatchVersion)).sorted()
        let items = reports.flatMap(\.items)
        self.init(summary: RunSummary(
            mediabatchVersion: versions.isEmpty ? nil : versions.joined(separator: ", "), pipeline: first.pipeline,
            inputRoot: first.inputRoot, outputRoot: first.outputRoot, startedAt: reports.map(\.startedAt).min()!,
            milliseconds: reports.map(\.milliseconds).max()!, interrupted: reports.contains(where: \.interrupted),
            stoppedByFailure: reports.contains(where: \.stoppedByFailure), dryRun: first.dryRun, shard: nil,
            totals: RunSummary.Totals(items), orphans: reports.flatMap(\.orphans).sorted { $0.input < $1.input },
            staleOutputs: reports.flatMap(\.staleOutputs).sorted()), items: items)
    }
}

/// Items in input order, handed to the body one at a time: from the spool after a run, or from
/// a report read back whole.
public typealias ItemStream = ((ItemResult) throws -> Void) throws -> Void

public struct ReportMergeError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
