import Foundation

/// The JSON report (`--report FILE`) written as it is rendered: the summary as `JSONEncoder`
/// writes it (pretty, keys sorted), with `items` spliced in at its sorted place, one item encoded
/// at a time. Byte for byte what encoding the whole report at once gives (the goldens hold it to
/// that), without the whole report in memory.
public enum ReportJSON {
    public static func write(_ summary: RunSummary, items: ItemStream, to sink: TextSink) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let lines = String(decoding: try encoder.encode(summary), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        // Top-level keys are the lines indented by two spaces; `milliseconds`, `pipeline` and
        // others always follow `items`, so one is found and the line before it ends in a comma.
        let next = lines.indices.first { lines[$0].hasPrefix("  \"") && lines[$0].dropFirst(3) > "items\"" }!
        try sink.write(lines[..<next].joined(separator: "\n") + "\n  \"items\" : [\n")
        var separator = ""
        try items { item in
            let text = String(decoding: try encoder.encode(item), as: UTF8.self)
            try sink.write(separator + "    " + text.replacingOccurrences(of: "\n", with: "\n    "))
            separator = ",\n"
        }
        try sink.write("\n  ],\n" + lines[next...].joined(separator: "\n"))
    }
}
