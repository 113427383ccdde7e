import Foundation

/// The JSON report (`--report FILE`) written as it is rendered: the summary with `items` spliced
/// in at its sorted place, one item encoded at a time. Byte for byte what encoding the whole
/// report at once gives (the goldens hold it to that), without the whole report in memory.
public enum ReportJSON {
    public static func write(_ summary: RunSummary, items: ItemStream, to sink: TextSink) throws {
        try SplicedJSON.write(summary, array: "items", items, to: sink)
    }
}
