import Foundation
import PipelineModel
import RunState

/// Where each item's decision ends up: recorded in the state database (one transaction, after
/// its outputs are in place) and spooled for the report. Under `onError: stop`, the first
/// failure stops admission. Called from any scheduler thread.
final class RunRecorder: @unchecked Sendable {
    private let ledger: RunLedger
    private let onError: Pipeline.OnError
    private let stop: @Sendable () -> Void
    private let onItemFinished: @Sendable (ItemResult) -> Void
    private let lock = NSLock()
    let spool: ResultSpool
    /// Earlier outputs the recorded items no longer produce.
    private(set) var staleOutputs: Set<String> = []
    private(set) var stoppedByFailure = false

    init(ledger: RunLedger, spool: ResultSpool, onError: Pipeline.OnError, stop: @escaping @Sendable () -> Void,
         onItemFinished: @escaping @Sendable (ItemResult) -> Void) {
        self.ledger = ledger
        self.spool = spool
        self.onError = onError
        self.stop = stop
        self.onItemFinished = onItemFinished
    }

    /// `outputs`: what the item's outputs now are (nil: as recorded).
    func finish(_ result: ItemResult, _ entry: RunLedger.Entry?, outputs: [PlannedOutput]?) {
        var result = result
        var stale: [String] = []
        if let entry, let status = Self.recordedStatus(result.status) {
            do {
                stale = try ledger.record(result.input, entry, status: status, outputs: outputs,
                                          reason: result.reason, error: result.error, milliseconds: result.milliseconds)
            } catch {
                // The output stands but is not recorded: the next run redoes the item.
                result.reason = "not recorded in the state database (the next run redoes it): \(error)"
            }
        }
        spool.append(result)
        lock.lock()
        staleOutputs.formUnion(stale)
        let stops = result.status == .failed && onError == .stop && !stoppedByFailure
        if stops { stoppedByFailure = true }
        lock.unlock()
        if stops { stop() }
        onItemFinished(result)
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
