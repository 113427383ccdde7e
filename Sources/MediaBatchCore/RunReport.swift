import Foundation
import PipelineModel

/// What happened to one item, as written to the JSON report.
public struct ItemResult: Codable, Equatable, Sendable {
    public enum Status: String, Codable, Sendable {
        case ok, failed, skipped
        /// `--dry-run`: the item would be processed (its `output` is where it would go).
        case planned
    }

    public struct ErrorInfo: Codable, Equatable, Sendable {
        public let code: ItemError.Code
        public let stage: String
        public let message: String
    }

    /// Relative to the input root.
    public let input: String
    public let format: String?
    /// Every kind the item is, in the order kinds are declared; absent when it was not classified.
    public let kinds: [MediaKind]?
    /// Set when the item is half of a Live Photo.
    public let livePhoto: LivePhotoPair?
    public let status: Status
    /// Relative to the output root.
    public let output: String?
    /// Why a skipped item was skipped.
    public let reason: String?
    /// Metadata removed on the way (e.g. "EXIF GPS", "moov/udta/©xyz"); absent when none.
    public let removedMetadata: [String]?
    public let error: ErrorInfo?
    public let bytesIn: Int
    public let bytesOut: Int
    public let milliseconds: Int
    /// The memory the scheduler reserved for the item.
    public let estimatedBytes: Int?
}

/// The whole run, as `--report FILE` writes it.
public struct RunReport: Codable, Equatable, Sendable {
    public struct Totals: Codable, Equatable, Sendable {
        public var items = 0
        public var ok = 0
        public var failed = 0
        public var skipped = 0
        public var planned = 0
        public var bytesIn = 0
        public var bytesOut = 0
    }

    public let pipeline: String
    public let inputRoot: String
    public let outputRoot: String
    public let startedAt: String
    public let milliseconds: Int
    /// True when a signal stopped the run before every input was admitted.
    public let interrupted: Bool
    /// `--dry-run`: headers were read and nothing was written.
    public let dryRun: Bool
    public let totals: Totals
    public let items: [ItemResult]

    init(pipeline: String, inputRoot: URL, outputRoot: URL, startedAt: Date, milliseconds: Int, interrupted: Bool,
         dryRun: Bool, items: [ItemResult]) {
        self.pipeline = pipeline
        self.inputRoot = inputRoot.path
        self.outputRoot = outputRoot.path
        self.startedAt = ISO8601DateFormatter().string(from: startedAt)
        self.milliseconds = milliseconds
        self.interrupted = interrupted
        self.dryRun = dryRun
        self.items = items.sorted { $0.input < $1.input }
        var totals = Totals()
        for item in items {
            totals.items += 1
            totals.bytesIn += item.bytesIn
            totals.bytesOut += item.bytesOut
            switch item.status {
            case .ok: totals.ok += 1
            case .failed: totals.failed += 1
            case .skipped: totals.skipped += 1
            case .planned: totals.planned += 1
            }
        }
        self.totals = totals
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
        line += ", \(totals.failed) failed, \(totals.skipped) skipped"
        line += String(format: " in %.1f s (%.1f items/s), %@ in, %@ out", seconds, rate,
                       ByteSize.format(totals.bytesIn), ByteSize.format(totals.bytesOut))
        if interrupted { line += "; interrupted before all inputs were processed" }
        if dryRun { line += "; dry run: nothing written" }
        return line
    }
}
