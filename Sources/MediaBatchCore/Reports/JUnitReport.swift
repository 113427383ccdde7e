import Foundation

/// The run as JUnit XML (`--report-format junit`), so CI systems show each failed item as a
/// failed test: one test case per item, named by its path; skipped items are skipped cases.
public enum JUnitReport {
    public static func write(_ summary: RunSummary, items: ItemStream, to sink: TextSink) throws {
        let totals = summary.totals
        try sink.write([
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="mediabatch" tests="\#(totals.items)" failures="\#(totals.failed)" time="\#(seconds(summary.milliseconds))">"#,
            #"  <testsuite name="\#(escape(summary.pipeline))\#(summary.shard.map { " shard \($0)" } ?? "")" tests="\#(totals.items)" failures="\#(totals.failed)" skipped="\#(totals.skipped)" timestamp="\#(summary.startedAt)" time="\#(seconds(summary.milliseconds))">"#,
            #"    <properties><property name="mediabatch.version" value="\#(escape(summary.mediabatchVersion ?? "unknown"))"/>"#
                + #"<property name="mediabatch.outputs" value="\#(totals.outputs ?? 0)"/></properties>"#,
        ].joined(separator: "\n") + "\n")
        try items { try sink.write(testCase($0).joined(separator: "\n") + "\n") }
        try sink.write("  </testsuite>\n</testsuites>\n")
    }

    private static func testCase(_ item: ItemResult) -> [String] {
        let folder = (item.input as NSString).deletingLastPathComponent
        let open = #"    <testcase classname="\#(escape(folder.isEmpty ? "." : folder))" name="\#(escape(item.input))" time="\#(seconds(item.milliseconds))""#
        switch item.status {
        case .failed:
            let error = item.error
            return [open + ">",
                    #"      <failure type="\#(error?.code.rawValue ?? "failed")" message="\#(escape(error?.message ?? ""))">\#(escape("\(error?.stage ?? ""): \(error?.message ?? "")"))</failure>"#,
                    "    </testcase>"]
        case .skipped:
            return [open + ">", #"      <skipped message="\#(escape(item.reason ?? ""))"/>"#, "    </testcase>"]
        case .ok, .planned, .unchanged:
            return [open + "/>"]
        }
    }

    private static func seconds(_ milliseconds: Int) -> String {
        String(format: "%.3f", Double(milliseconds) / 1000)
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            // XML 1.0 cannot carry other control characters, even escaped.
            case _ where scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r": escaped += "?"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
