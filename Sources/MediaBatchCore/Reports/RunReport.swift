import Foundation
import PipelineModel

/// The whole run, as `--report FILE` writes it.
public struct RunReport: Codable, Equatable, Sendable {
    public struct Totals: Codable, Equatable, Sendable {
        public var items = 0
        public var ok = 0
        public var failed = 0
        public var skipped = 0
        public var planned = 0
        public var unchanged = 0
        public var bytesIn = 0
        public var bytesOut = 0
        /// Files written (each variant counts); absent from reports of releases before it was counted.
        public var outputs: Int?
        /// Items by why they were done (or not): `new`, `inputChanged`, `pipelineChanged`,
        /// `outputMissing`, `outputAltered`, `failedBefore`, `forced`, `unchanged`.
        public var changes: [String: Int] = [:]

        init(_ items: [ItemResult]) {
            outputs = items.reduce(0) { $0 + $1.outputsWritten }
            for item in items {
                self.items += 1
                bytesIn += item.bytesIn
                bytesOut += item.bytesOut
                switch item.status {
                case .ok: ok += 1
                case .failed: failed += 1
                case .skipped: skipped += 1
                case .planned: planned += 1
                case .unchanged: unchanged += 1
                }
                if let change = item.change { changes[change.rawValue, default: 0] += 1 }
            }
        }
    }

    /// The mediabatch release that ran (for a merged report, the shards'); absent from reports
    /// of releases before it was recorded.
    public let mediabatchVersion: String?
    public let pipeline: String
    public let inputRoot: String
    public let outputRoot: String
    public let startedAt: String
    public let milliseconds: Int
    /// True when a signal, or a failure under `onError: stop`, stopped the run before every
    /// input was admitted.
    public let interrupted: Bool
    /// True when a failure stopped the run (`onError: stop`).
    public let stoppedByFailure: Bool
    /// `--dry-run`: headers were read and nothing was written.
    public let dryRun: Bool
    /// `INDEX/COUNT` when the run was one shard of the input.
    public let shard: String?
    public let totals: Totals
    public let items: [ItemResult]
    /// Outputs whose input vanished (or left the shard or the include globs).
    public let orphans: [OrphanedOutputs]
    /// Outputs their input no longer produces (filtered out now, or renamed by a new template),
    /// still on disk until a run with `--prune`.
    public let staleOutputs: [String]

    init(pipeline: String, inputRoot: URL, outputRoot: URL, startedAt: Date, milliseconds: Int, interrupted: Bool,
         stoppedByFailure: Bool, dryRun: Bool, shard: String?, items: [ItemResult], orphans: [OrphanedOutputs], staleOutputs: [String]) {
        mediabatchVersion = MediaBatchVersion.current
        self.pipeline = pipeline
        self.inputRoot = inputRoot.path
        self.outputRoot = outputRoot.path
        self.startedAt = ISO8601DateFormatter().string(from: startedAt)
        self.milliseconds = milliseconds
        self.interrupted = interrupted
        self.stoppedByFailure = stoppedByFailure
        self.dryRun = dryRun
        self.shard = shard
        self.items = items.sorted { $0.input < $1.input }
        self.totals = Totals(items)
        self.orphans = orphans
        self.staleOutputs = staleOutputs
    }

    /// The shard reports of one pipeline as one report. Fails when two shards report the same
    /// input (the shards overlap) or the reports are of different pipelines or roots.
    public init(merging reports: [RunReport]) throws {
        guard let first = reports.first else { throw ReportMergeError(message: "no reports to merge") }
        for report in reports where (report.pipeline, report.inputRoot, report.outputRoot, report.dryRun)
            != (first.pipeline, first.inputRoot, first.outputRoot, first.dryRun) {
            throw ReportMergeError(message: "the reports are of different runs: \(first.pipeline) over \(first.inputRoot) and \(report.pipeline) over \(report.inputRoot)")
        }
        var owners: [String: String] = [:]
        for report in reports {
            for item in report.items {
                if let other = owners.updateValue(report.shard ?? "unsharded", forKey: item.input) {
                    throw ReportMergeError(message: "\(item.input) is in shard \(other) and shard \(report.shard ?? "unsharded"): the shards overlap")
                }
            }
        }
        let versions = Set(reports.compactMap(\.mediabatchVersion)).sorted()
        mediabatchVersion = versions.isEmpty ? nil : versions.joined(separator: ", ")
        pipeline = first.pipeline
        inputRoot = first.inputRoot
        outputRoot = first.outputRoot
        startedAt = reports.map(\.startedAt).min()!
        milliseconds = reports.map(\.milliseconds).max()!
        interrupted = reports.contains(where: \.interrupted)
        stoppedByFailure = reports.contains(where: \.stoppedByFailure)
        dryRun = first.dryRun
        shard = nil
        items = reports.flatMap(\.items).sorted { $0.input < $1.input }
        totals = Totals(items)
        orphans = reports.flatMap(\.orphans).sorted { $0.input < $1.input }
        staleOutputs = reports.flatMap(\.staleOutputs).sorted()
    }

    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The one-line summary printed at the end of a run.
    public var summary: String {
        let seconds = Double(milliseconds) / 1000
        let rate = seconds > 0 ? Double(totals.ok + totals.failed + totals.planned) / seconds : 0
        var line = "\(totals.items) items: "
        line += dryRun ? "\(totals.planned) would be processed" : "\(totals.ok) ok"
        if totals.unchanged > 0 { line += ", \(totals.unchanged) unchanged" }
        line += ", \(totals.failed) failed, \(totals.skipped) skipped"
        line += String(format: " in %.1f s (%.1f items/s), %@ in, %@ out", seconds, rate,
                       ByteSize.format(totals.bytesIn), ByteSize.format(totals.bytesOut))
        if stoppedByFailure {
            line += "; stopped after a failure (onError: stop)"
        } else if interrupted {
            line += "; interrupted before all inputs were processed"
        }
        let orphaned = orphans.reduce(0) { $0 + $1.outputs.count }
        if orphaned > 0 {
            line += orphans.first!.removed ? "; removed \(orphaned) outputs of vanished inputs"
                                           : "; \(orphaned) outputs of vanished inputs (--prune removes them)"
        }
        if !staleOutputs.isEmpty { line += "; \(staleOutputs.count) stale outputs (--prune removes them)" }
        if dryRun { line += "; dry run: nothing written" }
        return line
    }
}

public struct ReportMergeError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
