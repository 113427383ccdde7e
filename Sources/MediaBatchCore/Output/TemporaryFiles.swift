import Foundation

/// Temporary files in progress (outputs, the report's spool, the claims log), for cleanup when a
/// run is aborted.
final class TemporaryFiles: @unchecked Sendable {
    static let shared = TemporaryFiles()
    private let lock = NSLock()
    private var paths: Set<String> = []
    private var serial = 0

    func nextSerial() -> Int {
        lock.lock()
        defer { lock.unlock() }
        serial += 1
        return serial
    }

    func register(_ path: String) {
        lock.lock()
        paths.insert(path)
        lock.unlock()
    }

    func unregister(_ path: String) {
        lock.lock()
        paths.remove(path)
        lock.unlock()
    }

    func isRegistered(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return paths.contains(path)
    }

    /// Runs `body` unless the process is exiting: `removeAll` holds the lock then, and `body` waits
    /// for the exit instead of running (an orphaned worker's item fails as its files are removed:
    /// what it kept for a rerun must not go with them).
    func unlessExiting(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body()
    }

    /// Removes every temporary file still in progress, for a process about to exit: the lock stays
    /// taken, so that a file registered from now on (each is registered before it is made) waits
    /// for the exit instead of being left behind.
    func removeAll() {
        lock.lock()
        for path in paths { unlink(path) }
    }
}
