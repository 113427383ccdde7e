import Foundation

/// The reports of a sharded run's shards as one, read as it is written (`merge-reports`): each
/// shard report's summary first (its items skipped over), then every shard's items merged in
/// input order, one at a time.
public struct ShardReports {
    public let summary: RunSummary
    private let shards: ShardedItems<ItemResult>

    /// - Throws: `ReportMergeError` naming a file that is not a report, or reports of different runs.
    public init(_ paths: [String]) throws {
        let files = paths.map(URL.init(fileURLWithPath:))
        let summaries = try ShardedItems<ItemResult>.heads(files, "report", as: RunSummary.self)
        summary = try RunSummary(merging: summaries)
        shards = ShardedItems(files: files, names: summaries.map { "shard \($0.shard ?? "unsharded")" }, kind: "report", input: \.input)
    }

    /// Every shard's items in input order; an input two shards report ends it with a `ReportMergeError`.
    public var items: ItemStream {
        { [shards] body in try shards.forEach(body) }
    }
}
