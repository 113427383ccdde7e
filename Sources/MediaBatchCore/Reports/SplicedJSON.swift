import Foundation

/// A JSON document written as `JSONEncoder` writes it whole (pretty, keys sorted, slashes
/// unescaped) but with one top-level array written an element at a time: the report's and the
/// manifest's `items`. `head` is the rest of the document; one of its keys must sort after the
/// array's (the report's `milliseconds`, the manifest's `version`), so the array goes before it.
enum SplicedJSON {
    typealias Elements<Element> = ((Element) throws -> Void) throws -> Void

    static func write<Element: Encodable>(_ head: some Encodable, array key: String, _ elements: Elements<Element>,
                                          to sink: TextSink) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let lines = String(decoding: try encoder.encode(head), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        // Top-level keys are the lines indented by two spaces; the line before the first that
        // sorts after the array's key ends in a comma.
        let next = lines.indices.first { lines[$0].hasPrefix("  \"") && lines[$0].dropFirst(3) > key + "\"" }!
        try sink.write(lines[..<next].joined(separator: "\n") + "\n  \"\(key)\" : [\n")
        var separator = ""
        try elements { element in
            let text = String(decoding: try encoder.encode(element), as: UTF8.self)
            try sink.write(separator + "    " + text.replacingOccurrences(of: "\n", with: "\n    "))
            separator = ",\n"
        }
        try sink.write("\n  ],\n" + lines[next...].joined(separator: "\n"))
    }
}
