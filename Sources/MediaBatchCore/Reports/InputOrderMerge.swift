import Foundation

/// Where a merge reads JSON values from, one at a time, each source sorted by `input`: a spool
/// run, the spool's results still in memory, a shard report's items.
protocol LineSource {
    func next() throws -> Data?
}

extension JSONLinesReader: LineSource {}

/// Merges sorted sources into one sequence in input order (a k-way merge; k is a few dozen at
/// most), handing on each value with the index of the source it came from.
enum InputOrderMerge {
    static func merge(_ sources: [LineSource], _ body: (_ source: Int, _ value: Data) throws -> Void) throws {
        let decoder = JSONDecoder()
        func head(_ source: LineSource) throws -> (input: String, value: Data)? {
            try source.next().map { (try decoder.decode(SortKey.self, from: $0).input, $0) }
        }
        var heads = try sources.map(head)
        while let smallest = heads.indices.filter({ heads[$0] != nil }).min(by: { heads[$0]!.input < heads[$1]!.input }) {
            try body(smallest, heads[smallest]!.value)
            heads[smallest] = try head(sources[smallest])
        }
    }

    private struct SortKey: Decodable {
        let input: String
    }
}
