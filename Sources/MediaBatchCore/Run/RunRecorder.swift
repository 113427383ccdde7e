import Dispatch
import Foundation
import PipelineModel
import RunState

/// Where each item's decision ends up: its outputs published, recorded in the state database and
/// spooled for the report. Items are committed in batches, what finished in the last tenth of a
/// second: their staged outputs published (`OutputPublisher`: synced together, then renamed, on
/// this one thread), then recorded in one transaction (`RunLedger.commit`: their
/// folders synced first), then reported: an item the run reports done is on the disk and in the
/// database, whenever the run is killed. An item whose outputs cannot be published fails, unrecorded. Under `onError: stop`, the first
/// failure stops admission at once; whatever `onError` says, so do `fullDiskStreak` items in a
/// row that could not be written for want of space (every later one would fail the same way, and
/// a rerun once space is freed redoes exactly them). `finish` is called from any scheduler thread.
final class RunRecorder: @unchecked Sendable {
    private let ledger: RunLedger
    private let publisher: OutputPublisher?
    private let onError: Pipeline.OnError
    private let stop: @Sendable () -> Void
    private let onItemFinished: @Sendable (ItemResult) -> Void
    private let lock = NSLock()
    let spool: ResultSpool
    /// Earlier outputs the recorded items no longer produce (complete after `flush`).
    private(set) var staleOutputs: Set<String> = []
    private(set) var stoppedByFailure = false
    /// The output volume or the database's filled up: `fullDiskStreak` items in a row failed `diskFull`.
    private(set) var stoppedByFullDisk = false
    private var fullDiskInARow = 0
    private var unrecordableInARow = 0
    static let fullDiskStreak = 8
    /// Finished items awaiting their commit; touched on `commits` only.
    private var pending: [Pending] = []
    private let commits = DispatchQueue(label: "mediabatch.recorder")
    private static let batchSize = 256
    private static let batchDelay = DispatchTimeInterval.milliseconds(100)

    private struct Pending {
        var result: ItemResult
        var record: RunLedger.PendingRecord?
        var staged: [StagedFile]
    }

    init(ledger: RunLedger, publisher: OutputPublisher?, spool: ResultSpool, onError: Pipeline.OnError, stop: @escaping @Sendable () -> Void,
         onItemFinished: @escaping @Sendable (ItemResult) -> Void) {
        self.ledger = ledger
        self.publisher = publisher
        self.spool = spool
        self.onError = onError
        self.stop = stop
        self.onItemFinished = onItemFinished
    }

    /// `outputs`: what the item's outputs now are (nil: as recorded); `hashes`: their content
    /// hashes where they are known, by path; `staged`: the files to publish. The record is
    /// prepared here, on the item's lane (outputs hashed), and committed with the next batch.
    func finish(_ result: ItemResult, _ entry: RunLedger.Entry?, outputs: [PlannedOutput]?, hashes: [String: String] = [:],
                staged: [StagedFile] = []) {
        var result = result
        var record: RunLedger.PendingRecord?
        if let entry, let status = Self.recordedStatus(result.status) {
            do {
                record = try ledger.prepare(result.input, entry, status: status, outputs: outputs, hashes: hashes, staged: staged,
                                            reason: result.reason, error: result.error, milliseconds: result.milliseconds)
            } catch {
                result.reason = Self.notRecorded(error)
            }
        }
        stopIfFailed(result)
        // A failed item's files (its hashed name another input's: `HeaderPhase.claimNamed`) are never published.
        if result.status != .ok { publisher?.discard(staged) }
        queue(Pending(result: result, record: record, staged: result.status == .ok ? staged : []))
    }

    /// An item whose outputs stand as an earlier run wrote them: reported as `result` says
    /// (unchanged), recorded as done with its new fingerprints and `outputs` (nil: as recorded).
    func stand(_ result: ItemResult, _ entry: RunLedger.Entry?, outputs: [PlannedOutput]?, milliseconds: Int) {
        let record = entry.flatMap { entry in
            try? ledger.prepare(result.input, entry, status: .ok, outputs: outputs, hashes: [:], staged: [], reason: nil, error: nil,
                                milliseconds: milliseconds)
        }
        queue(Pending(result: result, record: record, staged: []))
    }

    private func queue(_ item: Pending) {
        commits.async { [self, item] in
            pending.append(item)
            if pending.count >= Self.batchSize {
                commit()
            } else if pending.count == 1 {
                commits.asyncAfter(deadline: .now() + Self.batchDelay) { [self] in commit() }
            }
        }
    }

    /// Commits and reports what is pending: once every item has finished.
    func flush() {
        commits.sync { commit() }
    }

    private func commit() {
        guard !pending.isEmpty else { return }
        var batch = pending
        pending.removeAll(keepingCapacity: true)
        publish(&batch)
        record(&batch)
        for item in batch {
            spool.append(item.result)
            onItemFinished(item.result)
        }
    }

    /// Records the batch in one transaction. A full database volume fails its items as a full
    /// output volume does (a streak of them stops the run); any other failure leaves them as they
    /// are, unrecorded: their outputs stand and the next run redoes them.
    private func record(_ batch: inout [Pending]) {
        do {
            staleOutputs.formUnion(try ledger.commit(batch.compactMap(\.record)).joined())
            lock.lock()
            unrecordableInARow = 0
            lock.unlock()
        } catch let full as StateStoreError where full.code == .volumeFull {
            for index in batch.indices where batch[index].record != nil {
                let input = batch[index].result.input
                batch[index].result.failToRecord(ItemError(code: .diskFull, message: "cannot record it: \(full.message); its outputs stand",
                                                           item: input, stage: .write))
                stopIfFailed(batch[index].result, committing: true)
            }
        } catch {
            for index in batch.indices where batch[index].record != nil { batch[index].result.reason = Self.notRecorded(error) }
        }
    }

    /// Puts the batch's staged outputs in place; an item whose files cannot be fails (as the file
    /// system says: `diskFull`, `writeFailed`) and is not recorded.
    private func publish(_ batch: inout [Pending]) {
        guard let publisher, batch.contains(where: { !$0.staged.isEmpty }) else { return }
        for (index, failure) in zip(batch.indices, publisher.publish(batch.map(\.staged))) {
            guard let failure else { continue }
            let input = batch[index].result.input
            batch[index].result.failToRecord(ItemError(code: failure.code, message: failure.message, item: input, stage: .write))
            batch[index].record = nil
            stopIfFailed(batch[index].result, committing: true)
        }
    }

    /// `committing`: the item failed as its batch was published or recorded, after it had finished
    /// ok, so its streak is counted apart: one that a recorded batch ends.
    private func stopIfFailed(_ result: ItemResult, committing: Bool = false) {
        lock.lock()
        if committing {
            unrecordableInARow += result.error?.code == .diskFull ? 1 : 0
        } else if result.error?.code == .diskFull {
            fullDiskInARow += 1
        } else if result.status == .ok {
            fullDiskInARow = 0
        }
        let full = max(fullDiskInARow, unrecordableInARow) >= Self.fullDiskStreak && !stoppedByFullDisk
        let stops = (result.status == .failed && onError == .stop || full) && !stoppedByFailure
        if full { stoppedByFullDisk = true }
        if stops { stoppedByFailure = true }
        lock.unlock()
        if stops { stop() }
    }

    private static func notRecorded(_ error: Error) -> String {
        "not recorded in the state database (the next run redoes it): \(error)"
    }

    private static func recordedStatus(_ status: ItemResult.Status) -> ItemRecord.Status? {
        switch status {
        case .ok: return .ok
        case .failed: return .failed
        case .skipped: return .skipped
        case .planned, .unchanged: return nil
        }
    }
}
