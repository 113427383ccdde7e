import Foundation

/// One run at a time over a state database (and the temporary folder beside it, which a run
/// empties when it starts): a second run over the same one stops at start, naming the first.
/// The lock is the kernel's (`flock` on `<state>.lock`), held by an open file for as long as the
/// run lives, so a run killed with SIGKILL or a machine that reboots leaves nothing that blocks
/// the next one; the file's text (pid and host) only names the holder. Shards have their own
/// databases, so their runs share an output root freely.
final class RunLock {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor) // releases the lock
    }

    /// - Throws: `RunSetupError` naming the run that holds the lock, or why the lock file
    ///   cannot be used.
    static func acquire(statePath: URL, outputRoot: URL) throws -> RunLock {
        let path = statePath.path + ".lock"
        let descriptor = try open(path, under: outputRoot)
        guard descriptor >= 0 else {
            throw RunSetupError(description: "cannot open the run lock \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.holder(descriptor)
            close(descriptor)
            throw RunSetupError(description: "another run (\(holder)) is using the state database \(statePath.path); "
                                + "wait for it to end, or give this run its own shard (--shard) or --state")
        }
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let text = Array("pid \(getpid()) on \(String(cString: host))\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, text, text.count, 0)
        return RunLock(descriptor: descriptor)
    }

    /// The lock file, reached through `OutputTree` (no symlink followed) when it is under the
    /// output root, as the state database's default place is; -1 with `errno` when it cannot be.
    private static func open(_ path: String, under outputRoot: URL) throws -> Int32 {
        let file = URL(fileURLWithPath: path)
        guard let components = try? OutputTree.components(of: file.deletingLastPathComponent(), under: outputRoot) else {
            try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            return Glibc.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        }
        do {
            let root = try OutputTree.openRoot(outputRoot)
            defer { close(root) }
            let folder = try OutputTree.openFolder(components, under: root)
            defer { close(folder) }
            return openat(folder, file.lastPathComponent, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        } catch let failure as StageFailure {
            throw RunSetupError(description: "cannot open the run lock \(path): \(failure.message)")
        }
    }

    /// What the holding run wrote into the lock file.
    private static func holder(_ descriptor: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 512)
        let read = pread(descriptor, &bytes, bytes.count, 0)
        let text = String(decoding: bytes.prefix(max(read, 0)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "its pid not yet written" : text
    }
}
