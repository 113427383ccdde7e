import Foundation

/// The `items` of several shards' documents (reports, manifests), each sorted by input, merged in
/// input order as they are read: merging a million items holds a few. An input two shards list
/// ends the merge with a `ReportMergeError`: the shards overlap.
struct ShardedItems<Item: Decodable> {
    let files: [URL]
    /// Each file as the overlap message names it.
    let names: [String]
    /// "report", "manifest": what a file that cannot be read is not.
    let kind: String
    let input: KeyPath<Item, String>

    func forEach(_ body: (Item) throws -> Void) throws {
        let decoder = JSONDecoder()
        var previous: (input: String, source: Int)?
        let readers = try files.map { file in try Self.reading(file, kind) { try TopLevelArrayReader(file, key: "items") } }
        try InputOrderMerge.merge(readers) { source, value in
            let item = try Self.reading(files[source], kind) { try decoder.decode(Item.self, from: value) }
            if let previous, previous.input == item[keyPath: input] {
                throw ReportMergeError(message: "\(item[keyPath: input]) is in \(names[previous.source]) and \(names[source]): "
                                       + "the shards overlap")
            }
            previous = (item[keyPath: input], source)
            try body(item)
        }
    }

    /// What each file holds besides its items (a report's summary), each file read through once.
    static func heads<Head: Decodable>(_ files: [URL], _ kind: String, as type: Head.Type) throws -> [Head] {
        try files.map { file in
            try reading(file, kind) { try JSONDecoder().decode(Head.self, from: TopLevelArrayReader(file, key: "items").remainder()) }
        }
    }

    private static func reading<Value>(_ file: URL, _ kind: String, _ read: () throws -> Value) throws -> Value {
        do {
            return try read()
        } catch let error as ReportMergeError {
            throw error
        } catch {
            throw ReportMergeError(message: "\(file.path) is not a mediabatch \(kind): \(error)")
        }
    }
}
