import Dispatch
import Foundation

/// Ctrl-C and SIGTERM for a batch: the first asks the run to stop admitting items (those in
/// flight finish, the report is written); the second aborts at once, killing worker processes
/// and removing any half-written temporary output first.
public final class SignalTrap: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received: Int32?

    /// The first signal received, if any.
    public var signal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    public init(onFirstSignal: @escaping @Sendable (Int32) -> Void) {
        for number in [SIGINT, SIGTERM] {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.handle(number, onFirstSignal) }
            source.resume()
            sources.append(source)
        }
    }

    private func handle(_ number: Int32, _ onFirstSignal: @Sendable (Int32) -> Void) {
        lock.lock()
        let first = received == nil
        if first { received = number }
        lock.unlock()
        guard first else {
            LiveWorkers.shared.killAll()
            TemporaryFiles.shared.removeAll()
            _exit(128 + number)
        }
        onFirstSignal(number)
    }
}
