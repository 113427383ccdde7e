import Foundation
import TestSupport
import MediaBatchCore

/// A manifest read back whole, for the tests; mediabatch writes and merges it an item at a time.
public struct ManifestDocument: Codable, Equatable, Sendable {
    public let version: Int
    public let items: [Manifest.Item]

    public init(version: Int, items: [Manifest.Item]) {
        self.version = version
        self.items = items
    }

    /// Reads `file`, checking that it is byte for byte what encoding the document whole writes
    /// (pretty, keys sorted, slashes unescaped): what mediabatch wrote before it streamed.
    public static func read(_ file: URL) throws -> ManifestDocument {
        let data = try Data(contentsOf: file)
        let document = try JSONDecoder().decode(ManifestDocument.self, from: data)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard try encoder.encode(document) == data else { throw ManifestBytesError(file: file.path) }
        return document
    }
}

public struct ManifestBytesError: Error, CustomStringConvertible {
    public let file: String
    public var description: String { "\(file) is not written as JSONEncoder writes the whole document" }
}
