import Foundation
import MediaFormats
import PipelineModel

/// Runs items' decoding work in `mediabatch worker` processes: header workers (as many as header
/// reads run at once) and pixel workers (as many as items run at once), each kind kept idle
/// between requests. A worker that dies (a decoder crashed) or overruns the timeout (it is
/// killed) fails only its item; the next request starts a fresh worker.
final class WorkerPool: ItemExecutor, @unchecked Sendable {
    private let executable: URL
    private let setup: Data
    private let timeoutSeconds: Int
    private let temporaryFolder: URL
    private let lock = NSLock()
    private var idle: [WorkerProcess] = []
    private var idleHeaderWorkers: [WorkerProcess] = []
    /// Pixel workers still to start with the first header read (see `init`).
    private var pixelWorkersAhead: Int

    /// `pixelWorkersAhead` pixel workers start with the first header read, not with the first
    /// item's pixel request: their start-up (the dynamic linker binding libvips' libraries,
    /// 50–70 ms each) then overlaps the header phase instead of delaying the first items. A run
    /// that decides every item from its state database starts none.
    init(executable: URL, setup: WorkerMessage.Setup, timeoutSeconds: Int, pixelWorkersAhead: Int) {
        self.executable = executable
        self.setup = (try? JSONEncoder().encode(setup)) ?? Data()
        self.timeoutSeconds = timeoutSeconds
        self.pixelWorkersAhead = pixelWorkersAhead
        temporaryFolder = URL(fileURLWithPath: setup.temporaryFolder)
        signal(SIGPIPE, SIG_IGN) // a dead worker's pipe reports EPIPE instead of killing the run
    }

    func header(_ job: ItemJob) -> HeaderVerdict {
        startPixelWorkersAhead()
        switch exchange(.header(job), among: \.idleHeaderWorkers) {
        case .success(let reply): return reply.verdict ?? HeaderVerdict(error: protocolError(job))
        case .failure(let fault): return HeaderVerdict(error: fault.itemError(job, stage: .decode, timeout: timeoutSeconds))
        }
    }

    /// A movie's renditions get the time their encoding may take besides `limits.timeout`.
    func pixels(_ job: ItemJob) -> PixelOutcome {
        let timeout = timeoutSeconds + (job.plan?.encodingSeconds ?? 0)
        defer { ItemProgress.shared.finish(job.input.relativePath) }
        switch exchange(.pixels(job), among: \.idle, timeout: timeout) {
        case .success(let reply):
            guard let outcome = reply.outcome else { return PixelOutcome(error: protocolError(job)) }
            // The run's to publish or remove from now on, even once the worker that wrote them is gone.
            for file in outcome.staged { TemporaryFiles.shared.register(file.temporaryPath) }
            return outcome
        case .failure(let fault): return PixelOutcome(error: fault.itemError(job, stage: .write, timeout: timeout))
        }
    }

    func contentIdentifier(path: String, format: MediaFormat) -> String? {
        try? exchange(.contentIdentifier(path: path, format: format), among: \.idleHeaderWorkers).get().identifier
    }

    /// Workers keep nothing between an item's header and pixel requests.
    func forget(_ job: ItemJob) {}

    /// Closes every worker's input (they exit) and waits for them.
    func shutdown() {
        lock.lock()
        let workers = idle + idleHeaderWorkers
        idle = []
        idleHeaderWorkers = []
        lock.unlock()
        for worker in workers { worker.finish() }
    }

    /// The pixel workers `init` was asked to start ahead, once; one that cannot start is left to
    /// the first pixel request, which reports why.
    private func startPixelWorkersAhead() {
        let count = lock.withLock {
            defer { pixelWorkersAhead = 0 }
            return pixelWorkersAhead
        }
        guard count > 0 else { return }
        let started = (0..<count).compactMap { _ in try? WorkerProcess(executable: executable, setup: setup, temporaryFolder: temporaryFolder) }
        lock.withLock { idle += started }
    }

    /// Sends one request to an idle worker of a kind, or a new one, which is idle again after;
    /// a worker that failed is gone.
    private func exchange(_ request: WorkerMessage.Request, among kind: ReferenceWritableKeyPath<WorkerPool, [WorkerProcess]>,
                          timeout: Int? = nil) -> Result<WorkerMessage.Reply, WorkerFault> {
        lock.lock()
        var worker = self[keyPath: kind].popLast()
        lock.unlock()
        let result = exchange(request, on: &worker, timeout: timeout ?? timeoutSeconds)
        if let worker {
            lock.lock()
            self[keyPath: kind].append(worker)
            lock.unlock()
        }
        return result
    }

    /// Sends one request, starting a worker when there is none; a worker that failed is gone.
    private func exchange(_ request: WorkerMessage.Request, on worker: inout WorkerProcess?, timeout: Int) -> Result<WorkerMessage.Reply, WorkerFault> {
        do {
            let process = try worker ?? WorkerProcess(executable: executable, setup: setup, temporaryFolder: temporaryFolder)
            worker = process
            let reply = try process.exchange(try JSONEncoder().encode(request), timeoutSeconds: timeout) { line in
                guard let progress = try? JSONDecoder().decode(WorkerMessage.Reply.self, from: line).progress else { return false }
                ItemProgress.shared.report(progress)
                return true
            }
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
