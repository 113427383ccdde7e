import Foundation
import MediaBatchCore
import TestSupport
import XCTest

/// Output volumes that fail a run, on real file systems (tmpfs, mounted here: root only, skipped
/// with the reason otherwise). One that fills up: the items that cannot be written fail
/// `diskFull` with what they needed, the run stops admitting after a streak of them (exit 1, a
/// summary line), leaves no temporary file and no changed input; once the volume grows, a rerun
/// finishes exactly the rest, byte for byte what an undisturbed run writes. One mounted
/// read-only: the run refuses at start (exit 2) and says why.
final class OutputVolumeTests: XCTestCase {
    private var mountPoint: URL?

    override func tearDown() {
        if let mountPoint { _ = try? runProcess("umount", ["-l", mountPoint.path]) }
    }

    private func mountTmpfs(megabytes: Int, readOnly: Bool = false) throws -> URL {
        let folder = Fixtures.temporaryFolder("full-disk")
        let mounted = try runProcess("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m\(readOnly ? ",ro" : "")", "tmpfs", folder.path])
        try XCTSkipUnless(mounted.exitCode == 0, "cannot mount a tmpfs here (root needed): \(mounted.stderr)")
        mountPoint = folder
        return folder
    }

    private func run(_ input: URL, _ output: URL) throws -> (result: ProcessResult, report: RunReport) {
        let pipeline = Fixtures.temporaryFolder("full-disk-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [{"stage": "decode"}, {"stage": "transcode", "to": "png"}, {"stage": "write"}]}"#.utf8).write(to: pipeline)
        let report = Fixtures.temporaryFolder("full-disk-report").appendingPathComponent("report.json")
        let result = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                               "--quiet", "--jobs", "1", "--report", report.path])
        return (result, try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report)))
    }

    func testAFullVolumeFailsItemsStopsAndARerunFinishesTheRest() throws {
        let input = Fixtures.temporaryFolder("full-disk-in")
        for index in 0..<14 {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("p\(index).jpg").path)
        }
        let reference = Fixtures.temporaryFolder("full-disk-reference")
        XCTAssertEqual(try run(input, reference).report.totals.ok, 14)
        let inputsBefore = try Self.contents(of: input)
        let output = try mountTmpfs(megabytes: 4)
        let (full, report) = try run(input, output)
        XCTAssertEqual(full.exitCode, 1, full.stderr)
        XCTAssertTrue(full.stderr.contains("the output volume is full (\(FinishedRun.fullDiskStreak) items in a row"), full.stderr)
        let failed = report.items.filter { $0.status == .failed }
        XCTAssertEqual(failed.count, FinishedRun.fullDiskStreak, "stopped after the streak")
        XCTAssertEqual(Set(failed.map { $0.error?.code }), [.diskFull])
        XCTAssertTrue(failed[0].error?.message.contains("no space left on the output volume (the file needed") == true, "\(failed[0])")
        XCTAssertLessThan(report.items.count, 14, "the rest was not admitted")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path)
                           .filter { !$0.hasSuffix(".bin") && !$0.hasPrefix("spool") }, [], "no temporary output left")
        XCTAssertEqual(try Self.contents(of: input), inputsBefore, "inputs untouched")

        XCTAssertEqual(try runProcess("mount", ["-o", "remount,size=256m", output.path]).exitCode, 0)
        let (rerun, again) = try run(input, output)
        XCTAssertEqual(rerun.exitCode, 0, rerun.stderr)
        XCTAssertEqual(again.totals.ok, 14 - report.totals.ok, "exactly the rest redone")
        for index in 0..<14 {
            let name = "p\(index).png"
            XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent(name)), try Data(contentsOf: reference.appendingPathComponent(name)), name)
        }
    }

    private static func contents(of folder: URL) throws -> [String: Data] {
        Dictionary(uniqueKeysWithValues: try FileManager.default.contentsOfDirectory(atPath: folder.path).map {
            ($0, try Data(contentsOf: folder.appendingPathComponent($0)))
        })
    }

    func testAReadOnlyOutputVolumeIsRefusedAtStart() throws {
        let input = Fixtures.temporaryFolder("read-only-in")
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("a.jpg").path)
        let output = try mountTmpfs(megabytes: 4, readOnly: true)
        let pipeline = Fixtures.temporaryFolder("read-only-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [{"stage": "decode"}, {"stage": "transcode", "to": "png"}, {"stage": "write"}]}"#.utf8).write(to: pipeline)
        let result = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path, "--quiet"])
        XCTAssertEqual(result.exitCode, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("Read-only file system"), result.stderr)
    }
}
