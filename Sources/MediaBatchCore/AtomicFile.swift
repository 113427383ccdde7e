import Foundation

/// Writes a file so that it either appears whole or not at all: the content goes to a temporary
/// file in the run's temporary folder (under the output root: same filesystem), then one
/// rename(2) publishes it. Temporary files are tracked so that an interrupted run removes
/// them; a killed run's are in one folder that the next run empties before it starts.
/// Both folders are reached through `OutputTree`, never through a symlink inside the root.
enum AtomicFile {
    /// Publishes `relativePath` under `outputRoot` with the content `produce` writes at the
    /// temporary path it is given; returns the published file's size.
    static func write(_ relativePath: String, under outputRoot: URL, via temporaryFolder: URL,
                      _ produce: (_ temporaryPath: String) throws -> Void) throws -> Int {
        var components = try OutputTree.components(of: relativePath)
        let name = components.removeLast()
        let root = try OutputTree.openRoot(outputRoot)
        defer { close(root) }
        let folder = try OutputTree.openFolder(components, under: root)
        defer { close(folder) }
        let temporaries = try OutputTree.openFolder(OutputTree.components(of: temporaryFolder, under: outputRoot), under: root)
        defer { close(temporaries) }
        let temporaryName = "\(getpid())-\(TemporaryFiles.shared.nextSerial())-\(name)"
        let temporary = temporaryFolder.appendingPathComponent(temporaryName).path
        TemporaryFiles.shared.register(temporary)
        defer { TemporaryFiles.shared.unregister(temporary) }
        do {
            // libvips and Foundation take a path: the walk above has just checked every folder on it.
            try produce(temporary)
            var status = stat()
            // rename(2) replaces a symlink at the destination itself: it never writes through it.
            guard fstatat(temporaries, temporaryName, &status, AT_SYMLINK_NOFOLLOW) == 0,
                  renameat(temporaries, temporaryName, folder, name) == 0 else {
                throw OutputTree.failure(errno, "cannot publish \(relativePath)")
            }
            return Int(status.st_size)
        } catch {
            unlinkat(temporaries, temporaryName, 0)
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
