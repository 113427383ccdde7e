import Foundation

/// The run as JUnit XML (`--report-format junit`), so CI systems show each failed item as a
/// failed test: one test case per item, named by its path; skipped items are skipped cases.
public enum JUnitReport {
    public static func xml(_ report: RunReport) -> Data {
        let seconds = { (milliseconds: Int) in String(format: "%.3f", Double(milliseconds) / 1000) }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="mediabatch" tests="\#(report.totals.items)" failures="\#(report.totals.failed)" time="\#(seconds(report.milliseconds))">"#,
            #"  <testsuite name="\#(escape(report.pipeline))\#(report.shard.map { " shard \($0)" } ?? "")" tests="\#(report.totals.items)" failures="\#(report.totals.failed)" skipped="\#(report.totals.skipped)" timestamp="\#(report.startedAt)" time="\#(seconds(report.milliseconds))">"#,
            #"    <properties><property name="mediabatch.version" value="\#(escape(report.mediabatchVersion ?? "unknown"))"/>"#
                + #"<property name="mediabatch.outputs" value="\#(report.totals.outputs ?? 0)"/></properties>"#,
        ]
        for item in report.items {
            let folder = (item.input as NSString).deletingLastPathComponent
            let open = #"    <testcase classname="\#(escape(folder.isEmpty ? "." : folder))" name="\#(escape(item.input))" time="\#(seconds(item.milliseconds))""#
            switch item.status {
            case .failed:
                let error = item.error
                lines.append(open + ">")
                lines.append(#"      <failure type="\#(error?.code.rawValue ?? "failed")" message="\#(escape(error?.message ?? ""))">\#(escape("\(error?.stage ?? ""): \(error?.message ?? "")"))</failure>"#)
                lines.append("    </testcase>")
            case .skipped:
                lines.append(open + ">")
                lines.append(#"      <skipped message="\#(escape(item.reason ?? ""))"/>"#)
                lines.append("    </testcase>")
            case .ok, .planned, .unchanged:
                lines.append(open + "/>")
            }
        }
        lines += ["  </testsuite>", "</testsuites>", ""]
        return Data(lines.joined(separator: "\n").utf8)
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
