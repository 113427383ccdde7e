import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import XCTest

/// Output volumes that fail a run, on real file systems (tmpfs, mounted here: root only, skipped
/// with the reason otherwise). One that fills up: the items that cannot be written fail
/// `diskFull` with what they needed, the run stops admitting after a streak of them (exit 1, a
/// summary line), leaves no temporary file and no changed input; once the volume grows, a rerun
/// finishes exactly the rest, byte for byte what an undisturbed run writes. The state database's
/// own volume filling up: the items it cannot record fail `diskFull` in the same way, and every
/// item it recorded is on the disk. One mounted read-only: the run refuses at start (exit 2) and
/// says why. An output folder nothing can be written into (`chattr +i`, which binds root too):
/// its items fail `writeFailed` naming it, the others are done.
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

    /// `small`: 64-px outputs, for a test whose volume is the state database's, not the outputs'.
    private func run(_ input: URL, _ output: URL, state: URL? = nil, small: Bool = false) throws -> (result: ProcessResult, report: RunReport) {
        let pipeline = Fixtures.temporaryFolder("full-disk-pipeline").appendingPathComponent("p.json")
        let downsample = small ? #"{"stage": "downsample", "maxPixelSize": 64}, "# : ""
        try Data(#"{"version": 1, "stages": [{"stage": "decode"}, \#(downsample){"stage": "transcode", "to": "png"}, {"stage": "write"}]}"#.utf8)
            .write(to: pipeline)
        let report = Fixtures.temporaryFolder("full-disk-report").appendingPathComponent("report.json")
        let result = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                               "--quiet", "--jobs", "1", "--report", report.path]
                                        + (state.map { ["--state", $0.path] } ?? []))
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
        XCTAssertTrue(full.stderr.contains("no space left (\(FinishedRun.fullDiskStreak) items in a row"), full.stderr)
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

    func testAFullStateVolumeFailsTheItemsItCannotRecordAndRecordsNothingThatIsNotOnDisk() throws {
        let input = Fixtures.temporaryFolder("full-state-in")
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("p0.jpg").path)
        let reference = Fixtures.temporaryFolder("full-state-reference"), output = Fixtures.temporaryFolder("full-state-out")
        let state = try mountTmpfs(megabytes: 4).appendingPathComponent("state.sqlite")
        XCTAssertEqual(try run(input, output, state: state, small: true).report.totals.ok, 1, "the database made while there is room")
        // Enough items that admission outlasts the first failed commit, which comes up to a tenth of a second
        // after its items (24 were not, once pixel workers started ahead on Debian 13), at 64 px each.
        let count = 120
        for index in 1..<count {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("p\(index).jpg").path)
        }
        XCTAssertEqual(try run(input, reference, small: true).report.totals.ok, count)
        // Room for the run's start (the WAL's shared memory, its first commit) and a few items' commits.
        let filler = state.deletingLastPathComponent().appendingPathComponent("filler")
        let free = try XCTUnwrap(try FileManager.default.attributesOfFileSystem(forPath: state.deletingLastPathComponent().path)[.systemFreeSize] as? Int)
        try Data(count: free - 96 * 1024).write(to: filler)

        let (full, report) = try run(input, output, state: state, small: true)
        XCTAssertEqual(full.exitCode, 1, full.stderr)
        XCTAssertTrue(full.stderr.contains("no space left (\(FinishedRun.fullDiskStreak) items in a row"), full.stderr)
        let failed = report.items.filter { $0.status == .failed }
        // A commit follows its items by up to a tenth of a second: those admitted meanwhile fail too.
        XCTAssertGreaterThanOrEqual(failed.count, FinishedRun.fullDiskStreak)
        XCTAssertLessThan(report.items.count, count, "the rest was not admitted")
        XCTAssertEqual(Set(failed.map { $0.error?.code }), [.diskFull])
        XCTAssertTrue(failed[0].error?.message.hasPrefix("cannot record it: the state database's volume is full") == true, "\(failed[0])")
        XCTAssertGreaterThan(report.totals.ok, 0, "items recorded before the volume filled")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path)
                           .filter { !$0.hasSuffix(".bin") && !$0.hasPrefix("spool") }, [], "no temporary output left")

        try FileManager.default.removeItem(at: filler)
        let (rerun, again) = try run(input, output, state: state, small: true)
        XCTAssertEqual(rerun.exitCode, 0, rerun.stderr)
        XCTAssertEqual(again.totals.unchanged, 1 + report.totals.ok, "every recorded item found whole on the disk")
        XCTAssertEqual(again.totals.ok, count - 1 - report.totals.ok, "exactly the rest redone")
        for index in 0..<count {
            let name = "p\(index).png"
            XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent(name)), try Data(contentsOf: reference.appendingPathComponent(name)), name)
        }
    }

    func testAnUnwritableOutputFolderFailsOnlyItsItems() throws {
        let input = Fixtures.temporaryFolder("locked-in"), output = Fixtures.temporaryFolder("locked-out")
        for folder in ["locked", "open"] {
            try FileManager.default.createDirectory(at: input.appendingPathComponent(folder), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("\(folder)/p.jpg").path)
        }
        let locked = output.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        let immutable = try runProcess("chattr", ["+i", locked.path])
        try XCTSkipUnless(immutable.exitCode == 0, "cannot make a folder immutable here (root and ext4 or the like needed): \(immutable.stderr)")
        defer { _ = try? runProcess("chattr", ["-i", locked.path]) }

        let (result, report) = try run(input, output)
        XCTAssertEqual(result.exitCode, 1, result.stderr)
        let failed = try XCTUnwrap(report.items.first { $0.input == "locked/p.jpg" })
        XCTAssertEqual(failed.error?.code, .writeFailed)
        XCTAssertEqual(failed.error?.message, "cannot publish locked/p.png: Operation not permitted")
        XCTAssertEqual(report.items.first { $0.input == "open/p.jpg" }?.status, .ok)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locked.path), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path)
                           .filter { !$0.hasSuffix(".bin") && !$0.hasPrefix("spool") }, [], "no temporary output left")

        XCTAssertEqual(try runProcess("chattr", ["-i", locked.path]).exitCode, 0)
        let (rerun, again) = try run(input, output)
        XCTAssertEqual(rerun.exitCode, 0, rerun.stderr)
        XCTAssertEqual(again.items.filter { $0.status == .ok }.map(\.input), ["locked/p.jpg"], "exactly the failed item redone")
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
