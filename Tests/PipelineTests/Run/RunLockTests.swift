import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Runs against a held lock: a second run is refused at start naming the first's pid and host,
/// touching nothing (from the command line: exit 2); a lock holder killed (SIGKILL) blocks no run after it.
final class RunLockTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    private func folders() throws -> (input: URL, output: URL) {
        let input = Fixtures.temporaryFolder("lock-in")
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("a.jpg").path)
        return (input, Fixtures.temporaryFolder("lock-out"))
    }

    private var stages: String { #"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}"# }

    func testASecondRunIsRefusedNamingTheFirst() throws {
        let (input, output) = try folders()
        let state = RunOptions.defaultStatePath(outputRoot: output, shard: nil)
        var held: RunLock? = try RunLock.acquire(statePath: state, outputRoot: output)
        XCTAssertNotNil(held)
        XCTAssertThrowsError(try Self.run(try pipeline(stages), input: input, output: output)) { error in
            XCTAssertTrue("\(error)".hasPrefix("another run (pid \(getpid()) on "), "\(error)")
            XCTAssertTrue("\(error)".contains("--shard"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("a.jpg").path))
        held = nil
        XCTAssertEqual(try Self.run(try pipeline(stages), input: input, output: output).totals.ok, 1, "free once the first ends")
    }

    /// Another process holds the same kernel lock (Python's `fcntl.flock`); SIGKILL frees it.
    func testALockHolderKilledBlocksNothing() throws {
        let (input, output) = try folders()
        let lock = RunOptions.defaultStatePath(outputRoot: output, shard: nil).path + ".lock"
        try FileManager.default.createDirectory(atPath: (lock as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let holder = Process(), ready = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
                            + "print('held', flush=True); time.sleep(60)", lock]
        holder.standardOutput = ready
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        // Its first line says it holds the lock (the rest of the line may come in a second read).
        XCTAssertTrue(String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("held"))
        XCTAssertThrowsError(try Self.run(try pipeline(stages), input: input, output: output), "refused while another process holds it")
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        XCTAssertEqual(try Self.run(try pipeline(stages), input: input, output: output).totals.ok, 1)
    }

    func testTheCommandLineExitsTwo() throws {
        let (input, output) = try folders()
        let held = try RunLock.acquire(statePath: RunOptions.defaultStatePath(outputRoot: output, shard: nil), outputRoot: output)
        let pipelineFile = Fixtures.temporaryFolder("lock-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [\#(stages)]}"#.utf8).write(to: pipelineFile)
        let result = try runProcess(Fixtures.executable.path, ["run", pipelineFile.path, "--input", input.path, "--output", output.path, "--quiet"])
        XCTAssertEqual(result.exitCode, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("another run (pid \(getpid()) on "), result.stderr)
        withExtendedLifetime(held) {}
    }
}
