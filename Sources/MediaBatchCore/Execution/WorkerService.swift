import Foundation
import PipelineModel
import VipsKit

/// The worker side of `--isolation`: `mediabatch worker` reads a setup line, then answers one
/// request per line until its input closes. A decoder that crashes takes only this process
/// down; the run records the item and starts another worker.
public enum WorkerService {
    /// Serves requests on stdin; replies go to what was stdout, while stdout itself is pointed at
    /// stderr so that nothing a C library prints can corrupt a reply.
    public static func serve() -> Never {
        // Ctrl-C reaches the whole process group: the run decides what stops, not the terminal.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let replies = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        exitWhenOrphaned()
        let executor = setUp()
        ItemProgress.shared.sendReports { entry in
            guard let data = try? JSONEncoder().encode(WorkerMessage.Reply(progress: entry)) else { return }
            _ = WorkerMessage.send(data, to: replies)
        }
        let faults = FaultInjection(ProcessInfo.processInfo.environment)
        while let line = readLine() {
            guard let request = try? JSONDecoder().decode(WorkerMessage.Request.self, from: Data(line.utf8)) else {
                fail("unreadable request")
            }
            let reply = answer(request, executor, faults)
            guard let data = try? JSONEncoder().encode(reply) else { fail("cannot encode a reply") }
            guard WorkerMessage.send(data, to: replies) else { exit(0) } // the run is gone
        }
        exit(0)
    }

    /// Reads the setup line and builds the pipeline's stages from it.
    private static func setUp() -> InProcessExecutor {
        guard let line = readLine(), let setup = try? JSONDecoder().decode(WorkerMessage.Setup.self, from: Data(line.utf8)) else {
            fail("expected a setup line")
        }
        do {
            let pipeline = try Pipeline.decode(setup.pipelineDocument, baseDirectory: URL(fileURLWithPath: setup.pipelineFolder))
            try DecoderAllowList.startLibvips(for: pipeline.input.formats, encoding: true)
            let stages = StageList.runnable(pipeline)
            let environment = RunEnvironment(outputRoot: URL(fileURLWithPath: setup.outputRoot),
                                             temporaryFolder: URL(fileURLWithPath: setup.temporaryFolder), limits: pipeline.limits, input: pipeline.input, stages: stages)
            return InProcessExecutor(stages: stages, environment: environment, keepsContexts: false)
        } catch {
            fail("cannot set up: \(error)")
        }
    }

    private static func answer(_ request: WorkerMessage.Request, _ executor: InProcessExecutor, _ faults: FaultInjection)
        -> WorkerMessage.Reply {
        var reply = WorkerMessage.Reply()
        switch request {
        case .header(let job):
            faults.strike(.header, job)
            reply.verdict = executor.header(job)
        case .pixels(let job):
            faults.strike(.pixels, job)
            let outcome = executor.pixels(job)
            // Its staged files are the run's now: an orphaned worker must not remove them.
            for file in outcome.staged { TemporaryFiles.shared.unregister(file.temporaryPath) }
            reply.outcome = outcome
            // The budget counts an item while it runs; a worker must not keep its peak after.
            // Some free heap stays for the next item: trimming all of it after every photo costs
            // throughput in page faults.
            Vips.releaseFreeMemory(keepingUpTo: 16 << 20)
        case .contentIdentifier(let path, let format):
            reply.identifier = executor.contentIdentifier(path: path, format: format)
        }
        return reply
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("mediabatch worker: \(message)\n".utf8))
        exit(2)
    }

    /// A worker whose run was killed is re-parented; it removes its temporary output and goes,
    /// rather than finishing an item nobody will record.
    private static func exitWhenOrphaned() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { usleep(200_000) }
            TemporaryFiles.shared.removeAll()
            _exit(0)
        }
    }
}
