import Foundation

/// The reports of a sharded run's shards as one, read as it is written (`merge-reports`): each
/// shard report's summary first (its items skipped over), then every shard's items merged in
/// input order, one at a time, so that merging a million items holds a few.
public struct ShardReports {
    public let summary: RunSummary
    private let files: [URL]
    private let shards: [String?]

    /// - Throws: `ReportMergeError` naming a file that is not a report, or reports of different runs.
    public init(_ paths: [String]) throws {
        files = paths.map(URL.init(fileURLWithPath:))
        let summaries = try files.map { file in
            try Self.reading(file) { try JSONDecoder().decode(RunSummary.self, from: TopLevelArrayReader(file, key: "items").remainder()) }
        }
        summary = try RunSummary(merging: summaries)
        shards = summaries.map(\.shard)
    }

    /// Every shard's items in input order. An input two shards report ends it with a
    /// `ReportMergeError`: the shards overlap.
    public var items: ItemStream {
        { [files, shards] body in
            let decoder = JSONDecoder()
            var previous: (input: String, source: Int)?
            let readers = try files.map { file in try Self.reading(file) { try TopLevelArrayReader(file, key: "items") } }
            try InputOrderMerge.merge(readers) { source, value in
                let item = try Self.reading(files[source]) { try decoder.decode(ItemResult.self, from: value) }
                if let previous, previous.input == item.input {
                    throw ReportMergeError(message: "\(item.input) is in shard \(shards[previous.source] ?? "unsharded") and shard "
                                           + "\(shards[source] ?? "unsharded"): the shards overlap")
                }
                previous = (item.input, source)
                try body(item)
            }
        }
    }

    private static func reading<Value>(_ file: URL, _ read: () throws -> Value) throws -> Value {
        do {
            return try read()
        } catch {
            throw ReportMergeError(message: "\(file.path) is not a mediabatch report: \(error)")
        }
    }
}
