import Foundation

/// Writes a file so that it either appears whole or not at all: the content goes to a temporary
/// file in the run's temporary folder (under the output root: same filesystem), then one
/// rename(2) publishes it. Temporary files are tracked so that an interrupted run removes
/// them; a killed run's are in one folder that the next run empties before it starts.
enum AtomicFile {
    static func write(to destination: URL, via temporaryFolder: URL, _ produce: (_ temporaryPath: String) throws -> Void) throws {
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
        let temporary = temporaryFolder.appendingPathComponent(
            "\(getpid())-\(TemporaryFiles.shared.nextSerial())-\(destination.lastPathComponent)").path
        TemporaryFiles.shared.register(temporary)
        defer { TemporaryFiles.shared.unregister(temporary) }
        do {
            try produce(temporary)
            guard rename(temporary, destination.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            unlink(temporary)
            throw error
        }
    }
}

/// Temporary outputs in progress, for cleanup when a run is interrupted.
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

    /// Removes every temporary file still in progress.
    func removeAll() {
        lock.lock()
        let current = paths
        lock.unlock()
        for path in current { unlink(path) }
    }
}

/// Output paths (relative to the output root) taken in this run or recorded by an earlier one:
/// two inputs mapping to one output (IMG_1.heic and IMG_1.jpg both becoming IMG_1.jpg) is
/// reported, never silently overwritten, even when the first of them is unchanged and not
/// written again.
final class OutputClaims: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed: [String: String] = [:]
    /// The input an earlier run wrote this output for, if that input is still there; set once
    /// the run has opened its state database.
    var recordedOwner: (String) -> String? = { _ in nil }

    /// Claims `output` for `input`; returns the input that already holds it, if any.
    func claim(_ output: String, for input: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if let holder = claimed[output] ?? recordedOwner(output).flatMap({ $0 == input ? nil : $0 }) { return holder }
        claimed[output] = input
        return nil
    }
}
