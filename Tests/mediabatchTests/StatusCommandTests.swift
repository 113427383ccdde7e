import Foundation
import MediaBatchCore
import TestSupport
import XCTest

/// `status` reads what runs recorded: counts, the last run, failures with their reasons.
final class StatusCommandTests: XCTestCase {
    func testStatusShowsTheLastRunAndEachFailureWithItsReason() throws {
        let input = Fixtures.temporaryFolder("status-input")
        try FileManager.default.copyItem(at: Fixtures.broken.appendingPathComponent("corrupted.heic"),
                                         to: input.appendingPathComponent("corrupted.heic"))
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("good.jpg").path)
        let output = Fixtures.temporaryFolder("status-output")
        let executable = Fixtures.executable.path

        let none = try runProcess(executable, ["status", "pipelines/quickstart.json", "--output", output.path], in: Fixtures.repositoryRoot)
        XCTAssertEqual(none.exitCode, 0)
        XCTAssertTrue(none.stdout.contains("no state database at"), none.stdout)

        let run = try runProcess(executable, ["run", "pipelines/quickstart.json", "--input", input.path, "--output", output.path, "--quiet"],
                                 in: Fixtures.repositoryRoot)
        XCTAssertEqual(run.exitCode, 1, run.stderr)
        let status = try runProcess(executable, ["status", "pipelines/quickstart.json", "--output", output.path], in: Fixtures.repositoryRoot)
        XCTAssertEqual(status.exitCode, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("last run: #1 started"), status.stdout)
        XCTAssertTrue(status.stdout.contains(", by mediabatch \(MediaBatchVersion.current)\n"), status.stdout)
        XCTAssertTrue(status.stdout.contains("items: 1 ok, 1 failed, 0 skipped"), status.stdout)
        XCTAssertTrue(status.stdout.contains("  corrupted.heic: decode: cannot read the heic header"), status.stdout)
        XCTAssertTrue(status.stdout.contains("[decodeFailed]"), status.stdout)

        let badShard = try runProcess(executable, ["status", "pipelines/quickstart.json", "--output", output.path, "--shard", "x"],
                                      in: Fixtures.repositoryRoot)
        XCTAssertEqual(badShard.exitCode, 2)
    }
}
