import Foundation
import TestSupport
import MediaBatchCore

/// A report read back whole, for the tests: its summary and every item, in input order. mediabatch
/// itself never holds one: a run's items stay in its spool (`FinishedRun`), and shard reports are
/// merged as they are read (`ShardReports`).
@dynamicMemberLookup
public struct RunReport: Decodable, Equatable, Sendable {
    public let summary: RunSummary
    public let items: [ItemResult]

    public init(summary: RunSummary, items: [ItemResult]) {
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
}
