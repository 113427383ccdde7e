import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// `RunLock`, one run at a time over a state database: shards, with their own databases, hold
/// theirs side by side; a refusal from the command line exits 2.
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

    func testShardsShareAnOutputRootAtOnce() throws {
        let output = Fixtures.temporaryFolder("lock-out")
        let first = try RunLock.acquire(statePath: RunOptions.defaultStatePath(outputRoot: output, shard: try Shard(index: 0, count: 2)),
                                        outputRoot: output)
        XCTAssertNoThrow(try RunLock.acquire(statePath: RunOptions.defaultStatePath(outputRoot: output, shard: try Shard(index: 1, count: 2)),
                                             outputRoot: output))
        withExtendedLifetime(first) {}
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
