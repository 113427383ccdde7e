import Foundation

/// Every worker process running, so that aborting the run (a second Ctrl-C) kills them and
/// removes their temporary outputs before mediabatch exits.
final class LiveWorkers: @unchecked Sendable {
    static let shared = LiveWorkers()
    private let lock = NSLock()
    private var workers: [pid_t: URL] = [:]

    func add(_ pid: pid_t, _ temporaryFolder: URL) {
        lock.lock()
        workers[pid] = temporaryFolder
        lock.unlock()
    }

    func remove(_ pid: pid_t) {
        lock.lock()
        workers[pid] = nil
        lock.unlock()
    }

    func killAll() {
        lock.lock()
        let current = workers
        lock.unlock()
        for (pid, folder) in current {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            Self.removeTemporaryFiles(of: pid, in: folder)
        }
    }

    /// Temporary outputs are named "<pid>-<serial>-<name>" (see `AtomicFile`); those the worker
    /// handed over, staged, are the run's (registered in `TemporaryFiles`) and stay to be published.
    static func removeTemporaryFiles(of pid: pid_t, in folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix("\(pid)-") {
            let path = folder.appending(path: name).path
            if !TemporaryFiles.shared.isRegistered(path) { unlink(path) }
        }
    }
}
