import Dispatch
import Foundation
import MediaBatchCore
import PipelineModel

/// Shows how a run is going: on a terminal a live line redrawn in place; otherwise (CI, cron)
/// a plain log line every `logInterval` seconds. The total is counted on a background thread
/// (names only, folder by folder), so progress never delays the run.
final class ProgressReporter: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0
    private var failed = 0
    private var total: Int?
    private let started = Date()
    private let budget: ByteSize
    /// Memory the scheduler has reserved for items in flight.
    var reservedBytes: () -> Int = { 0 }
    private let interactive = isatty(STDERR_FILENO) == 1
    private var timer: DispatchSourceTimer?
    private static let logInterval = 10.0

    init(counting items: some Sequence<InputItem>, budget: ByteSize) {
        self.budget = budget
        DispatchQueue.global(qos: .utility).async { [self] in
            let count = items.reduce(0) { count, _ in count + 1 }
            lock.lock()
            total = count
            lock.unlock()
        }
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        let interval = interactive ? 0.25 : Self.logInterval
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.draw() }
        timer.resume()
        self.timer = timer
    }

    func itemFinished(_ result: ItemResult) {
        lock.lock()
        done += 1
        if result.status == .failed { failed += 1 }
        lock.unlock()
    }

    /// Clears the live line so that another message starts at the left; the next tick redraws it.
    func clearLine() {
        if interactive { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    func stop() {
        timer?.cancel()
        clearLine()
    }

    var line: String {
        lock.lock()
        let (done, failed, total) = (self.done, self.failed, self.total)
        lock.unlock()
        let elapsed = Date().timeIntervalSince(started)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var text = "\(done)/\(total.map(String.init) ?? "?") items"
        if failed > 0 { text += " (\(failed) failed)" }
        text += String(format: ", %.1f items/s", rate)
        if let total, rate > 0, total > done {
            text += ", ETA \(Self.duration(Double(total - done) / rate))"
        }
        text += ", memory \(ByteSize.format(reservedBytes())) of \(budget)"
        // Long items (a movie's renditions) say how far they are: "IMG_0001.MOV h264 120/900 frames".
        for entry in ItemProgress.shared.inFlight {
            text += "; \(entry.item) \(entry.work) \(entry.done)/\(entry.total.map(String.init) ?? "?") frames"
        }
        return text
    }

    private func draw() {
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
        } else {
            FileHandle.standardError.write(Data("mediabatch: \(line)\n".utf8))
        }
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? "\(whole / 3600)h\(whole % 3600 / 60)m" : whole >= 60 ? "\(whole / 60)m\(whole % 60)s" : "\(whole)s"
    }
}
