import Foundation
import MediaFormats
import PipelineModel

/// Runs items' decoding work in `mediabatch worker` processes, at most `workers` at once (the
/// run's `--jobs`), each kept idle between requests and taking headers and pixels alike: a
/// request waits for a worker rather than start more processes than items run at once (each
/// process's start-up, the dynamic linker binding libvips' and FFmpeg's libraries, costs CPU the
/// items could use). A worker that dies (a decoder crashed) or overruns the timeout (it is
/// killed) fails only its item; the next request starts a fresh worker.
final class WorkerPool: ItemExecutor, @unchecked Sendable {
    private let executable: URL
    private let setup: Data
    private let timeoutSeconds: Int
    private let temporaryFolder: URL
    private let lock = NSLock()
    private var idle: [WorkerProcess] = []
    /// One per worker that may run: a request holds one from before it takes a worker until it has put it back.
    private let slots: DispatchSemaphore

    init(executable: URL, setup: WorkerMessage.Setup, timeoutSeconds: Int, workers: Int) {
        self.executable = executable
        self.setup = (try? JSONEncoder().encode(setup)) ?? Data()
        self.timeoutSeconds = timeoutSeconds
        slots = DispatchSemaphore(value: max(1, workers))
        temporaryFolder = URL(fileURLWithPath: setup.temporaryFolder)
        signal(SIGPIPE, SIG_IGN) // a dead worker's pipe reports EPIPE instead of killing the run
    }

    func header(_ job: ItemJob) -> HeaderVerdict {
        switch exchange(.header(job)) {
        case .success(let reply): return reply.verdict ?? HeaderVerdict(error: protocolError(job))
        case .failure(let fault): return HeaderVerdict(error: fault.itemError(job, stage: .decode, timeout: timeoutSeconds))
        }
    }

    /// A movie's renditions get the time their encoding may take besides `limits.timeout`.
    func pixels(_ job: ItemJob) -> PixelOutcome {
        let timeout = timeoutSeconds + (job.plan?.encodingSeconds ?? 0)
        defer { ItemProgress.shared.finish(job.input.relativePath) }
        switch exchange(.pixels(job), timeout: timeout) {
        case .success(let reply):
            guard let outcome = reply.outcome else { return PixelOutcome(error: protocolError(job)) }
            // The run's to publish or remove from now on, even once the worker that wrote them is gone.
            for file in outcome.staged { TemporaryFiles.shared.register(file.temporaryPath) }
            return outcome
        case .failure(let fault): return PixelOutcome(error: fault.itemError(job, stage: .write, timeout: timeout))
        }
    }

    func contentIdentifier(path: String, format: MediaFormat) -> String? {
        try? exchange(.contentIdentifier(path: path, format: format)).get().identifier
    }

    /// Workers keep nothing between an item's header and pixel requests.
    func forget(_ job: ItemJob) {}

    /// Closes every worker's input (they exit) and waits for them.
    func shutdown() {
        lock.lock()
        let workers = idle
        idle = []
        lock.unlock()
        for worker in workers { worker.finish() }
    }

    /// Sends one request to an idle worker, or a new one, once fewer than `workers` are busy; the
    /// worker is idle again after, unless it failed.
    private func exchange(_ request: WorkerMessage.Request, timeout: Int? = nil) -> Result<WorkerMessage.Reply, WorkerFault> {
        slots.wait()
        defer { slots.signal() }
        var worker = lock.withLock { idle.popLast() }
        let result = exchange(request, on: &worker, timeout: timeout ?? timeoutSeconds)
        if let worker { lock.withLock { idle.append(worker) } }
        return result
    }

    /// Sends one request, starting a worker when there is none; a worker that failed is gone.
    private func exchange(_ request: WorkerMessage.Request, on worker: inout WorkerProcess?, timeout: Int) -> Result<WorkerMessage.Reply, WorkerFault> {
        do {
            let process = try worker ?? WorkerProcess(executable: executable, setup: setup, temporaryFolder: temporaryFolder)
            worker = process
            let decoder = JSONDecoder()
            if case .pixels(let job) = request { decoder.userInfo[WrittenOutput.planKey] = job.plan }
            // Each line decoded once: an interim progress line, or the reply.
            return .success(try process.exchange(try JSONEncoder().encode(request), timeoutSeconds: timeout) { line in
                let reply = try decoder.decode(WorkerMessage.Reply.self, from: line)
                guard let progress = reply.progress else { return reply }
                ItemProgress.shared.report(progress)
                return nil
            })
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

    func itemError(_ job: ItemJob, stage: StageName, timeout: Int) -> ItemError {
        let item = job.input.relativePath
        switch self {
        case .died(let how):
            return ItemError(code: .workerCrashed, message: "the worker process reading it \(how); the run went on with a new worker",
                             item: item, stage: stage)
        case .timedOut:
            return ItemError(code: .timedOut, message: "still running after \(timeout) s (limits.timeout): abandoned, its worker killed",
                             item: item, stage: stage)
        case .unusable(let reason):
            return ItemError(code: .workerCrashed, message: "no worker process: \(reason)", item: item, stage: stage)
        }
    }
}
