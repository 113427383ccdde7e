import Foundation

/// One `mediabatch worker` child: requests on its stdin, replies on its stdout, a line each.
final class WorkerProcess {
    let pid: pid_t
    private let requests: Int32
    private let replies: Int32
    private let temporaryFolder: URL
    private var buffer: [UInt8] = []
    private static let spawnLock = NSLock()

    init(executable: URL, setup: Data, temporaryFolder: URL) throws {
        // Close-on-exec, set under one lock for every spawn: a worker started later must not
        // hold another's pipe, or that one's death would never read as end of file.
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        var toWorker: [Int32] = [0, 0]
        var fromWorker: [Int32] = [0, 0]
        guard pipe(&toWorker) == 0 else { throw WorkerFault.unusable("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&fromWorker) == 0 else {
            toWorker.forEach { close($0) }
            throw WorkerFault.unusable("pipe: \(String(cString: strerror(errno)))")
        }
        for descriptor in toWorker + fromWorker { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toWorker[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fromWorker[1], STDOUT_FILENO)
        let arguments = [executable.path, "worker"]
        // A crashing worker is reported by the run; Swift's backtracer would spend seconds on it.
        let environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
            .map { "\($0)=\($1)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable.path, &actions, nil, argv, envp)
        close(toWorker[0])
        close(fromWorker[1])
        guard spawned == 0 else {
            close(toWorker[1])
            close(fromWorker[0])
            throw WorkerFault.unusable("cannot start \(executable.path): \(String(cString: strerror(spawned)))")
        }
        pid = child
        requests = toWorker[1]
        replies = fromWorker[0]
        self.temporaryFolder = temporaryFolder
        LiveWorkers.shared.add(pid, temporaryFolder)
        guard WorkerMessage.send(setup, to: requests) else { throw reap() }
    }

    /// Sends a request and waits up to the timeout for its reply: the first line `reading` makes
    /// one of (it returns nil for an interim line, a long item's progress).
    func exchange<Reply>(_ request: Data, timeoutSeconds: Int, reading: (Data) throws -> Reply?) throws -> Reply {
        guard WorkerMessage.send(request, to: requests) else { throw reap() }
        let deadline = Date().addingTimeInterval(TimeInterval(timeoutSeconds))
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let reply = try reading(line) else { continue }
                return reply
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                kill()
                throw WorkerFault.timedOut
            }
            var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 1_000_000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = read(replies, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw reap() }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Ends the worker at once (a timeout, or the run aborting).
    func kill() {
        Glibc.kill(pid, SIGKILL)
        _ = reap()
    }

    /// Closes its input: the worker finishes its loop and exits.
    func finish() {
        close(requests)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(replies)
        LiveWorkers.shared.remove(pid)
    }

    /// Waits for a worker that has gone, removes what it left in the temporary folder, and says how it went.
    private func reap() -> WorkerFault {
        close(requests)
        close(replies)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        LiveWorkers.shared.remove(pid)
        LiveWorkers.removeTemporaryFiles(of: pid, in: temporaryFolder)
        let signalNumber = status & 0x7F
        // Timeouts are killed elsewhere and said so: a SIGKILL here came from outside, most often
        // the kernel's OOM killer (a cgroup's memory.max, a Slurm or Kubernetes memory limit).
        let cause = signalNumber == SIGKILL ? ": killed from outside, out of memory? (the OOM killer sends SIGKILL)"
            : " (a decoder crashed on this file)"
        if signalNumber != 0 { return .died("died of signal \(signalNumber) (\(String(cString: strsignal(signalNumber))))\(cause)") }
        return .died("exited with status \((status >> 8) & 0xFF) (a decoder gave up on this file)")
    }
}
