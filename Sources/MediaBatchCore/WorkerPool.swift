import Foundation
import PipelineModel

/// Runs items' decoding work in `mediabatch worker` processes: one for header reads (the
/// listing thread's, one item at a time) and up to `concurrency` for pixel work. A worker that
/// dies (a decoder crashed) or overruns the timeout (it is killed) fails only its item; the next
/// request starts a fresh worker.
final class WorkerPool: ItemExecutor, @unchecked Sendable {
    private let executable: URL
    private let setup: Data
    private let timeoutSeconds: Int
    private let temporaryFolder: URL
    private let lock = NSLock()
    private var idle: [WorkerProcess] = []
    private var headerWorker: WorkerProcess?
    private let headerLock = NSLock()

    init(executable: URL, setup: WorkerMessage.Setup, timeoutSeconds: Int) {
        self.executable = executable
        self.setup = (try? JSONEncoder().encode(setup)) ?? Data()
        self.timeoutSeconds = timeoutSeconds
        temporaryFolder = URL(fileURLWithPath: setup.temporaryFolder)
        signal(SIGPIPE, SIG_IGN) // a dead worker's pipe reports EPIPE instead of killing the run
    }

    func header(_ job: ItemJob) -> HeaderVerdict {
        headerLock.lock()
        defer { headerLock.unlock() }
        switch exchange(.header(job), on: &headerWorker) {
        case .success(let reply): return reply.verdict ?? HeaderVerdict(error: protocolError(job))
        case .failure(let fault): return HeaderVerdict(error: fault.itemError(job, stage: .decode, timeout: timeoutSeconds))
        }
    }

    func pixels(_ job: ItemJob) -> PixelOutcome {
        lock.lock()
        var worker = idle.popLast()
        lock.unlock()
        let result = exchange(.pixels(job), on: &worker)
        if let worker {
            lock.lock()
            idle.append(worker)
            lock.unlock()
        }
        switch result {
        case .success(let reply): return reply.outcome ?? PixelOutcome(error: protocolError(job))
        case .failure(let fault): return PixelOutcome(error: fault.itemError(job, stage: .write, timeout: timeoutSeconds))
        }
    }

    func contentIdentifier(path: String, format: MediaFormat) -> String? {
        headerLock.lock()
        defer { headerLock.unlock() }
        return try? exchange(.contentIdentifier(path: path, format: format), on: &headerWorker).get().identifier
    }

    /// Closes every worker's input (they exit) and waits for them.
    func shutdown() {
        lock.lock()
        let workers = idle + [headerWorker].compactMap { $0 }
        idle = []
        headerWorker = nil
        lock.unlock()
        for worker in workers { worker.finish() }
    }

    /// Sends one request, starting a worker when there is none; a worker that failed is gone.
    private func exchange(_ request: WorkerMessage.Request, on worker: inout WorkerProcess?) -> Result<WorkerMessage.Reply, WorkerFault> {
        do {
            let process = try worker ?? WorkerProcess(executable: executable, setup: setup, temporaryFolder: temporaryFolder)
            worker = process
            let reply = try process.exchange(try JSONEncoder().encode(request), timeoutSeconds: timeoutSeconds)
            return .success(try JSONDecoder().decode(WorkerMessage.Reply.self, from: reply))
        } catch let fault as WorkerFault {
            worker = nil
            return .failure(fault)
        } catch {
            worker?.kill()
            worker = nil
            return .failure(.unusable("\(error)"))
        }
    }

    private func protocolError(_ job: ItemJob) -> ItemError {
        ItemError(code: .workerCrashed, message: "the worker sent an unexpected reply", item: job.input.relativePath, stage: .decode)
    }
}

/// Why a worker could not answer.
enum WorkerFault: Error {
    case died(String)
    case timedOut
    case unusable(String)

    func itemError(_ job: ItemJob, stage: Stage.Name, timeout: Int) -> ItemError {
        let item = job.input.relativePath
        switch self {
        case .died(let how):
            return ItemError(code: .workerCrashed, message: "the worker process reading it \(how) (a decoder crashed on this file); the run went on with a new worker",
                             item: item, stage: stage)
        case .timedOut:
            return ItemError(code: .timedOut, message: "still running after \(timeout) s (limits.timeout): abandoned, its worker killed",
                             item: item, stage: stage)
        case .unusable(let reason):
            return ItemError(code: .workerCrashed, message: "no worker process: \(reason)", item: item, stage: stage)
        }
    }
}

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
        var line = setup
        line.append(0x0A)
        guard writeAll(requests, line) else { throw reap() }
    }

    /// Sends a request and waits up to the timeout for its reply line.
    func exchange(_ request: Data, timeoutSeconds: Int) throws -> Data {
        var line = request
        line.append(0x0A)
        guard writeAll(requests, line) else { throw reap() }
        let deadline = Date().addingTimeInterval(TimeInterval(timeoutSeconds))
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let reply = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
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
        if signalNumber != 0 { return .died("died of signal \(signalNumber) (\(String(cString: strsignal(signalNumber))))") }
        return .died("exited with status \((status >> 8) & 0xFF)")
    }
}

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

    /// Temporary outputs are named "<pid>-<serial>-<name>" (see `AtomicFile`).
    static func removeTemporaryFiles(of pid: pid_t, in folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix("\(pid)-") { unlink(folder.appendingPathComponent(name).path) }
    }
}
