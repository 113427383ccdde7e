import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The executor of untrusted runs, driven directly with real `mediabatch worker` processes:
/// the same verdicts and outputs as in this process, and a worker's crash or hang costing one
/// item.
final class WorkerPoolTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    static func pool(output: URL, timeoutSeconds: Int = 120, stages: String = InProcessExecutorTests.webPipeline,
                     workers: Int = 2) -> WorkerPool {
        let document = #"{"version": 1, "stages": [\#(stages)]}"#
        return WorkerPool(executable: Fixtures.executable, setup: WorkerMessage.Setup(
            pipelineDocument: Data(document.utf8), pipelineFolder: Fixtures.repositoryRoot.path, outputRoot: output.path,
            temporaryFolder: output.appendingPathComponent(".mediabatch/tmp/all").path), timeoutSeconds: timeoutSeconds,
            workers: workers)
    }

    /// `mediabatch worker` children of this process.
    static func workerChildren() throws -> [String] {
        let listed = try runProcess("pgrep", ["-P", "\(getpid())", "-a"]).stdout
        return listed.split(separator: "\n").map(String.init).filter { $0.hasSuffix(" worker") }
    }

    func testWorkersGiveWhatTheInProcessExecutorGives() throws {
        let local = Fixtures.temporaryFolder(), isolated = Fixtures.temporaryFolder()
        let executor = try InProcessExecutorTests.executor(output: local), pool = Self.pool(output: isolated)
        defer { pool.shutdown() }
        let samples = ["heic/IMG_1034.heic", "jpeg/samsung_gt-i9000_gps00_rot90.jpg", "png/macos_screenshot_exif.png",
                       "livephoto/train.jpg", "livephoto/train.mov", "video/sample.3gp", "webp/iphone_x_exif_gps.webp"]
        for sample in samples {
            var job = try InProcessExecutorTests.job(sample)
            let verdict = executor.header(job)
            XCTAssertEqual(pool.header(job), verdict, sample)
            guard let plan = verdict.plan else { continue }
            job.plan = plan
            let outcome = try Self.published(executor.pixels(job), under: local)
            XCTAssertEqual(try Self.published(pool.pixels(job), under: isolated), outcome, sample)
            for written in outcome.outputs {
                XCTAssertEqual(try Data(contentsOf: isolated.appendingPathComponent(written.path)),
                               try Data(contentsOf: local.appendingPathComponent(written.path)), written.path)
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: isolated.appendingPathComponent("web").path).count, 5)
        XCTAssertEqual(pool.contentIdentifier(path: Fixtures.sample("livephoto/train.mov"), format: .mov),
                       "E905E6C6-C747-4805-942F-9904A0281F02")
    }

    /// Headers and pixels go to the same workers, never more than the pool was given: a request
    /// waits for one rather than start another process.
    func testHeadersAndPixelsShareAtMostTheWorkersGiven() throws {
        let output = Fixtures.temporaryFolder()
        let pool = Self.pool(output: output, workers: 2)
        defer { pool.shutdown() }
        XCTAssertEqual(try Self.workerChildren(), [], "none before the first request")
        var job = try InProcessExecutorTests.job("jpeg/apple_iphone_4.jpg")
        job.plan = try XCTUnwrap(pool.header(job).plan)
        XCTAssertEqual(try Self.workerChildren().count, 1)
        XCTAssertEqual(try Self.published(pool.pixels(job), under: output).outputs.map(\.path), ["web/apple_iphone_4.jpg"])
        XCTAssertEqual(try Self.workerChildren().count, 1, "the header's worker took the pixels")
        let samples = ["heic/IMG_1034.heic", "jpeg/samsung_gt-i9000_gps00_rot90.jpg", "png/macos_screenshot_exif.png",
                       "livephoto/train.jpg", "webp/iphone_x_exif_gps.webp", "heic/pug.heic", "jpeg/apple_iphone_4.jpg", "jpeg/orientation/Landscape_1.jpg"]
        let jobs = try samples.map { try InProcessExecutorTests.job($0) }
        let planned = Locked(0)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            if pool.header(jobs[index]).plan != nil { planned.mutate { $0 += 1 } }
        }
        XCTAssertEqual(planned.value, samples.count)
        XCTAssertEqual(try Self.workerChildren().count, 2, "eight header reads at once, two workers")
        pool.shutdown()
        XCTAssertEqual(try Self.workerChildren(), [])
    }

    /// A movie's rendition in a worker: its progress reaches this process while it encodes (frames
    /// done of the 120 expected, by codec), and is gone once the item is.
    func testARenditionsProgressComesFromItsWorker() throws {
        let output = Fixtures.temporaryFolder()
        let stages = #"{"stage": "decode"}, {"stage": "video", "reencode": "always"}, {"stage": "write"}"#
        let pool = Self.pool(output: output, stages: stages)
        defer { pool.shutdown() }
        var job = try InProcessExecutorTests.job("video/iphone6_with-gps.mov")
        job.plan = try XCTUnwrap(pool.header(job).plan)
        let seen = Locked<[ItemProgress.Entry]>([])
        let watching = Locked(true)
        let watcher = Thread {
            while watching.value {
                for entry in ItemProgress.shared.inFlight where !seen.value.contains(entry) { seen.mutate { $0.append(entry) } }
                usleep(500)
            }
        }
        watcher.start()
        let outcome = pool.pixels(job)
        watching.mutate { $0 = false }
        XCTAssertNil(outcome.error)
        let entries = seen.value
        XCTAssertFalse(entries.isEmpty, "progress seen while the movie was encoded")
        XCTAssertTrue(entries.allSatisfy { $0.item == "video/iphone6_with-gps.mov" && $0.work == "h264" && $0.total == 120 }, "\(entries)")
        XCTAssertEqual(entries.map(\.done), entries.map(\.done).sorted(), "frames done only grow")
        XCTAssertEqual(ItemProgress.shared.inFlight, [], "nothing in flight once the item is done")
    }

    func testACrashFailsOnlyItsItemAndTheNextGetsANewWorker() throws {
        setenv("MEDIABATCH_FAULT_INJECTION", "pixels:crash:pug.heic", 1)
        defer { unsetenv("MEDIABATCH_FAULT_INJECTION") }
        let output = Fixtures.temporaryFolder()
        let pool = Self.pool(output: output)
        defer { pool.shutdown() }
        var crashing = try InProcessExecutorTests.job("heic/pug.heic")
        crashing.plan = try XCTUnwrap(pool.header(crashing).plan)
        let crashed = pool.pixels(crashing)
        XCTAssertEqual(crashed.error?.code, .workerCrashed)
        XCTAssertEqual(crashed.error?.message.hasPrefix("the worker process reading it died of signal 11 (Segmentation fault)"), true)
        var next = try InProcessExecutorTests.job("jpeg/apple_iphone_4.jpg")
        next.plan = try XCTUnwrap(pool.header(next).plan)
        XCTAssertEqual(try Self.published(pool.pixels(next), under: output).outputs.map(\.path), ["web/apple_iphone_4.jpg"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path), [])
    }

    /// A worker killed from outside (the OOM killer sends SIGKILL) fails its item saying so.
    func testAWorkerKilledFromOutsideIsNamedAsPossiblyOutOfMemory() throws {
        setenv("MEDIABATCH_FAULT_INJECTION", "pixels:kill:pug.heic", 1)
        defer { unsetenv("MEDIABATCH_FAULT_INJECTION") }
        let pool = Self.pool(output: Fixtures.temporaryFolder())
        defer { pool.shutdown() }
        var killed = try InProcessExecutorTests.job("heic/pug.heic")
        killed.plan = try XCTUnwrap(pool.header(killed).plan)
        let outcome = pool.pixels(killed)
        XCTAssertEqual(outcome.error?.code, .workerCrashed)
        XCTAssertTrue(outcome.error?.message.contains("died of signal 9 (Killed): killed from outside, out of memory?") == true,
                      "\(outcome.error?.message ?? "")")
    }

    func testAHungHeaderIsKilledAtTheTimeoutAndShutdownEndsEveryWorker() throws {
        setenv("MEDIABATCH_FAULT_INJECTION", "header:hang:pug.heic", 1)
        defer { unsetenv("MEDIABATCH_FAULT_INJECTION") }
        let pool = Self.pool(output: Fixtures.temporaryFolder(), timeoutSeconds: 1)
        let started = Date()
        let hung = pool.header(try InProcessExecutorTests.job("heic/pug.heic"))
        XCTAssertEqual(hung.error?.code, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertNotNil(pool.header(try InProcessExecutorTests.job("jpeg/apple_iphone_4.jpg")).plan, "a new worker answers")
        XCTAssertEqual(try Self.workerChildren().count, 1)
        pool.shutdown()
        XCTAssertEqual(try Self.workerChildren(), [])
    }
}

/// A value shared between a test and a thread it starts.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func mutate(_ change: (inout Value) -> Void) {
        lock.lock()
        change(&stored)
        lock.unlock()
    }
}
