import Foundation
import MediaFormats
import PipelineModel
import RunState

/// What the run has learnt about an item so far. The header phase fills it in step by step, and
/// any step can end the item with one of the results below.
struct ItemFindings: Sendable {
    let input: InputItem
    let started = Date()
    var bytesIn = 0
    /// Nil for files that never became items (unreadable, not media).
    var format: MediaFormat?
    var kinds: [MediaKind]?
    var change: ItemChange?
    /// What the state database is to record for it; nil when nothing new is to be recorded.
    var entry: RunLedger.Entry?
    /// For the report, once the item is admitted (e.g. processed despite its extension).
    var note: String?

    init(input: InputItem) {
        self.input = input
    }

    func failed(_ code: ItemError.Code, _ message: String, stage: StageName = .decode) -> ItemResult {
        failed(ItemError(code: code, message: message, item: input.relativePath, stage: stage))
    }

    func failed(_ error: ItemError) -> ItemResult {
        var result = self.result(.failed)
        result.error = .init(error)
        return result
    }

    func skipped(_ reason: String) -> ItemResult {
        var result = self.result(.skipped)
        result.reason = reason
        return result
    }

    /// `--dry-run`: where the item would be written.
    func planned(_ plan: ItemPlan) -> ItemResult {
        var result = self.result(.planned)
        result.output = plan.paths.first
        return result
    }

    /// The pixel phase's outcome, with the memory the scheduler reserved for it.
    func ran(_ outcome: PixelOutcome, estimate: Int) -> ItemResult {
        var result = outcome.error.map { failed($0) } ?? self.result(.ok)
        result.estimatedBytes = estimate
        guard outcome.error == nil else { return result }
        result.output = outcome.outputs.first?.path
        result.bytesOut = outcome.outputs.filter { !$0.planned.reused }.reduce(0) { $0 + $1.bytes }
        result.removedMetadata = outcome.removedMetadata.isEmpty ? nil : outcome.removedMetadata
        result.rawSource = outcome.rawSource
        (result.decoder, result.decoderReason, result.decoderThreads) = (outcome.decoder?.decoder, outcome.decoder?.reason, outcome.decoder?.threads)
        result.firstFrameOnly = Self.firstFrameOnly(outcome.outputs.map(\.planned))
        result.readings = outcome.readings
        // Sidecars are listed under their own key (`sidecars`), not as the item's variants.
        let made = outcome.outputs.filter { $0.planned.sidecar == nil }
        if made.count > 1 || made.contains(where: { $0.planned.variant != nil }) {
            result.variants = made.map(ItemResult.Variant.init)
            result.placeholder = outcome.placeholder
        }
        return result
    }

    /// "12 frames, the first written: jpeg does not animate", naming each reason once.
    private static func firstFrameOnly(_ outputs: [PlannedOutput]) -> String? {
        let reasons = outputs.compactMap(\.firstFrameOnly).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard let frames = outputs.first?.picture?.source.frames, !reasons.isEmpty else { return nil }
        return "\(frames) frames, the first written: " + reasons.joined(separator: "; ")
    }

    /// An item the last run decided, reported as it left it: nothing was read.
    func unchanged(_ previous: ItemRecord, outputs: [String]) -> ItemResult {
        var result = self.result(previous.status == .ok ? .unchanged : .skipped)
        result.format = previous.format
        result.change = .unchanged
        result.output = outputs.first
        result.reason = previous.status == .ok ? nil : previous.reason
        result.bytesIn = 0
        result.readings = Readings.parse(previous.readings)
        return result
    }

    private func result(_ status: ItemResult.Status) -> ItemResult {
        ItemResult(.init(input: input.relativePath, format: format?.rawValue, kinds: kinds, livePhoto: input.livePhoto, rawJpegPair: input.rawJpegPair, status: status,
                   change: change, output: nil, reason: note, removedMetadata: nil, error: nil, bytesIn: bytesIn, bytesOut: 0,
                   milliseconds: Int((Date().timeIntervalSince(started) * 1000).rounded()), estimatedBytes: nil))
    }
}
