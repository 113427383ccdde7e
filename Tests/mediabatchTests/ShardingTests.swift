import Foundation
import TestSupport
import XCTest

/// Shards run separately (each with its own state database, sharing one output root) produce
/// exactly the outputs of one unsharded run, each input in exactly one shard.
final class ShardingTests: XCTestCase {
    func report(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    func inputs(_ report: [String: Any]) -> [String] {
        (report["items"] as! [[String: Any]]).map { $0["input"] as! String }
    }

    func testShardsTogetherWriteExactlyWhatOneRunWrites() throws {
        let input = try CrashResumeTests.library()
        let whole = Fixtures.temporaryFolder("shard-whole")
        let reports = Fixtures.temporaryFolder("shard-reports")
        let single = try runProcess(Fixtures.executable.path, CrashResumeTests.arguments(input, whole) + ["--report", reports.path + "/whole.json"],
                                    in: Fixtures.repositoryRoot)
        XCTAssertEqual(single.exitCode, 0, single.stderr)

        let sharded = Fixtures.temporaryFolder("shard-parts")
        var seen: [String: Int] = [:]
        for index in 0..<3 {
            // Shard 1 finds its index the way a Kubernetes Indexed Job passes it.
            let selection = index == 1 ? ["--shard-count", "3"] : ["--shard", "\(index)/3"]
            let run = try runProcess(Fixtures.executable.path, CrashResumeTests.arguments(input, sharded) + selection
                                        + ["--report", reports.path + "/shard-\(index).json"],
                                     in: Fixtures.repositoryRoot, environment: index == 1 ? ["JOB_COMPLETION_INDEX": "1"] : [:])
            XCTAssertEqual(run.exitCode, 0, run.stderr)
            let shardReport = try report(reports.path + "/shard-\(index).json")
            XCTAssertEqual(shardReport["shard"] as? String, "\(index)/3")
            XCTAssertGreaterThan(inputs(shardReport).count, 0, "every shard has work")
            for item in inputs(shardReport) { seen[item, default: 0] += 1 }
        }
        XCTAssertEqual(seen.keys.sorted(), inputs(try report(reports.path + "/whole.json")).sorted())
        XCTAssertEqual(seen.values.filter { $0 != 1 }, [], "no input is in two shards")
        XCTAssertEqual(try CrashResumeTests.outputs(sharded), try CrashResumeTests.outputs(whole))
        let databases = try FileManager.default.contentsOfDirectory(atPath: sharded.path + "/.mediabatch").filter { $0.hasSuffix(".sqlite") }
        XCTAssertEqual(databases.sorted(), (0..<3).map { "state-shard-\($0)-of-3.sqlite" })

        // Merged, the shard reports are the whole run's items; merging a shard twice is refused.
        let merged = reports.path + "/merged.json"
        let merge = try runProcess(Fixtures.executable.path, ["merge-reports", merged] + (0..<3).map { reports.path + "/shard-\($0).json" })
        XCTAssertEqual(merge.exitCode, 0, merge.stderr)
        XCTAssertEqual(inputs(try report(merged)), inputs(try report(reports.path + "/whole.json")))
        // The shards' totals add up to the whole run's.
        let mergedTotals = try XCTUnwrap(try report(merged)["totals"] as? NSDictionary)
        XCTAssertEqual(mergedTotals, try XCTUnwrap(try report(reports.path + "/whole.json")["totals"] as? NSDictionary))
        XCTAssertEqual(mergedTotals["items"] as? Int, 14)
        let before = try Data(contentsOf: URL(fileURLWithPath: merged))
        let overlap = try runProcess(Fixtures.executable.path, ["merge-reports", merged, reports.path + "/shard-0.json", reports.path + "/shard-0.json"])
        XCTAssertEqual(overlap.exitCode, 2)
        XCTAssertTrue(overlap.stderr.contains("the shards overlap"), overlap.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: merged)), before, "a refused merge writes nothing")
    }

    func testShardSelectionErrorsExitTwo() throws {
        let bad = try runProcess(Fixtures.executable.path, ["run", "pipelines/quickstart.json", "--shard", "3/3", "--dry-run"],
                                 in: Fixtures.repositoryRoot)
        XCTAssertEqual(bad.exitCode, 2)
        XCTAssertTrue(bad.stderr.contains("the shard index must be from 0 to 2, found 3"), bad.stderr)
        let noCount = try runProcess(Fixtures.executable.path, ["run", "pipelines/quickstart.json", "--dry-run"],
                                     in: Fixtures.repositoryRoot, environment: ["JOB_COMPLETION_INDEX": "2"])
        XCTAssertEqual(noCount.exitCode, 2)
        XCTAssertTrue(noCount.stderr.contains("JOB_COMPLETION_INDEX is set: pass --shard-count N"), noCount.stderr)
    }
}
