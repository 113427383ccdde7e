import Foundation

/// The run as Prometheus text exposition (`--metrics FILE`), for node_exporter's textfile
/// collector: gauges describing the last run, labelled by pipeline and shard.
public enum PrometheusMetrics {
    public static func text(_ report: RunSummary, peakMemoryBytes: Int, finishedAt: Date = Date()) -> String {
        let labels = #"pipeline="\#(escape(report.pipeline))",shard="\#(report.shard ?? "all")""#
        var text = ""
        func gauge(_ name: String, _ help: String, _ samples: [(String, Double)]) {
            text += "# HELP mediabatch_\(name) \(help)\n# TYPE mediabatch_\(name) gauge\n"
            for (extra, value) in samples {
                let formatted = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
                text += "mediabatch_\(name){\(labels)\(extra)} \(formatted)\n"
            }
        }
        gauge("build_info", "The mediabatch release of the last run.",
              [(#",version="\#(escape(report.mediabatchVersion ?? "unknown"))""#, 1)])
        let totals = report.totals
        gauge("items", "Items of the last run by status.", [
            ("ok", totals.ok), ("failed", totals.failed), ("skipped", totals.skipped),
            ("unchanged", totals.unchanged), ("planned", totals.planned),
        ].map { (#",status="\#($0.0)""#, Double($0.1)) })
        gauge("item_changes", "Items of the last run by why they were done again (or unchanged).",
              ItemChange.allCases.map { (#",change="\#($0.rawValue)""#, Double(totals.changes[$0.rawValue] ?? 0)) })
        gauge("input_bytes", "Bytes of input the last run read.", [("", Double(totals.bytesIn))])
        gauge("output_bytes", "Bytes of output the last run wrote.", [("", Double(totals.bytesOut))])
        gauge("outputs_written", "Files the last run wrote (each variant counts).", [("", Double(totals.outputs ?? 0))])
        gauge("run_duration_seconds", "Wall-clock duration of the last run.", [("", Double(report.milliseconds) / 1000)])
        gauge("peak_memory_bytes", "Peak resident memory of the last run.", [("", Double(peakMemoryBytes))])
        gauge("orphaned_outputs", "Outputs whose input vanished, found by the last run.",
              [("", Double(report.orphans.reduce(0) { $0 + $1.outputs.count }))])
        gauge("stale_outputs", "Outputs no longer produced by their input, awaiting --prune.", [("", Double(report.staleOutputs.count))])
        gauge("last_run_interrupted", "1 when a signal stopped the last run.", [("", report.interrupted ? 1 : 0)])
        gauge("last_run_timestamp_seconds", "When the last run finished (Unix time).", [("", finishedAt.timeIntervalSince1970.rounded())])
        return text
    }

    /// Label values escape backslash, double quote and newline.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
