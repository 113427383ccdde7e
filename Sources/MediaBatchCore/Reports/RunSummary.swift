import Foundation
import PipelineModel

/// A run's report without its items: everything the JSON report, JUnit, metrics and the summary
/// line say besides the item list, which is streamed from the spool when they are written.
public struct RunSummary: Codable, Equatable, Sendable {
    public struct Totals: Codable, Equatable, Sendable {
        public var items = 0
        public var ok = 0
        public var failed = 0
        public var skipped = 0
        public var planned = 0
        public var unchanged = 0
        public var bytesIn = 0
        public var bytesOut = 0
        /// Files written (each variant counts); absent from reports of releases that did not count them.
        public var outputs: Int? = 0
        /// Items by why they were done (or not): `new`, `inputChanged`, `pipelineChanged`,
        /// `outputMissing`, `outputAltered`, `failedBefore`, `forced`, `unchanged`.
        public var changes: [String: Int] = [:]

        init() {}

        init<Items: Sequence>(_ items: Items) where Items.Element == ItemResult {
            items.forEach { count($0) }
        }

        /// Adds another shard's totals (`outputs` stays absent if either lacks it).
        mutating func add(_ other: Totals) {
            items += other.items
            ok += other.ok
            failed += other.failed
            skipped += other.skipped
            planned += other.planned
            unchanged += other.unchanged
            bytesIn += other.bytesIn
            bytesOut += other.bytesOut
            outputs = outputs.flatMap { mine in other.outputs.map { mine + $0 } }
            changes.merge(other.changes, uniquingKeysWith: +)
        }

        /// Adds one finished item.
        mutating func count(_ item: ItemResult) {
            items += 1
            bytesIn += item.bytesIn
            bytesOut += item.bytesOut
            outputs = (outputs ?? 0) + item.outputsWritten
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

    /// The mediabatch release that ran (for a merged report, the shards'); absent from reports
    /// of releases that did not record it.
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
    /// Outputs whose input vanished (or left the shard or the include globs).
    public let orphans: [OrphanedOutputs]
    /// Outputs their input no longer produces (filtered out now, or renamed by a new template),
    /// still on disk until a run with `--prune`.
    public let staleOutputs: [String]

    init(pipeline: String, inputRoot: URL, outputRoot: URL, startedAt: Date, milliseconds: Int, interrupted: Bool,
         stoppedByFailure: Bool, dryRun: Bool, shard: String?, totals: Totals, orphans: [OrphanedOutputs], staleOutputs: [String]) {
        self.init(mediabatchVersion: MediaBatchVersion.current, pipeline: pipeline, inputRoot: inputRoot.path,
                  outputRoot: outputRoot.path, startedAt: ISO8601DateFormatter().string(from: startedAt),
                  milliseconds: milliseconds, interrupted: interrupted, stoppedByFailure: stoppedByFailure, dryRun: dryRun,
                  shard: shard, totals: totals, orphans: orphans, staleOutputs: staleOutputs)
    }

    init(mediabatchVersion: String?, pipeline: String, inputRoot: String, outputRoot: String, startedAt: String,
         milliseconds: Int, interrupted: Bool, stoppedByFailure: Bool, dryRun: Bool, shard: String?, totals: Totals,
         orphans: [OrphanedOutputs], staleOutputs: [String]) {
        self.mediabatchVersion = mediabatchVersion
        self.pipeline = pipeline
        self.inputRoot = inputRoot
        self.outputRoot = outputRoot
        self.startedAt = startedAt
        self.milliseconds = milliseconds
        self.interrupted = interrupted
        self.stoppedByFailure = stoppedByFailure
        self.dryRun = dryRun
        self.shard = shard
        self.totals = totals
        self.orphans = orphans
        self.staleOutputs = staleOutputs
    }

    /// The shard summaries of one pipeline's run as one; fails when they are of different
    /// pipelines or roots. Shards are disjoint (their items' merge checks it), so totals add up.
    public init(merging summaries: [RunSummary]) throws {
        guard let first = summaries.first else { throw ReportMergeError(message: "no reports to merge") }
        for summary in summaries where (summary.pipeline, summary.inputRoot, summary.outputRoot, summary.dryRun)
            != (first.pipeline, first.inputRoot, first.outputRoot, first.dryRun) {
            throw ReportMergeError(message: "the reports are of different runs: \(first.pipeline) over \(first.inputRoot) and \(summary.pipeline) over \(summary.inputRoot)")
        }
        let versions = Set(summaries.compactMap(\.mediabatchVersion)).sorted()
        var totals = Totals()
        summaries.forEach { totals.add($0.totals) }
        self.init(mediabatchVersion: versions.isEmpty ? nil : versions.joined(separator: ", "), pipeline: first.pipeline,
                  inputRoot: first.inputRoot, outputRoot: first.outputRoot, startedAt: summaries.map(\.startedAt).min()!,
                  milliseconds: summaries.map(\.milliseconds).max()!, interrupted: summaries.contains(where: \.interrupted),
                  stoppedByFailure: summaries.contains(where: \.stoppedByFailure), dryRun: first.dryRun, shard: nil, totals: totals,
                  orphans: summaries.flatMap(\.orphans).sorted { $0.input < $1.input }, staleOutputs: summaries.flatMap(\.staleOutputs).sorted())
    }

    /// The one-line summary printed at the end of a run.
    public var line: String {
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
