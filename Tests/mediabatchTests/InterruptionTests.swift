import Foundation
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// Ctrl-C and SIGTERM in the middle of a real run.
final class InterruptionTests: XCTestCase {
    /// A folder of 24 screenshots (PNG with an ICC profile and alpha, ≈ 0.4 s of CPU each; an iPhone
    /// HEIC took 1.5 s): a signal sent once the first is being written finds most not started.
    func manyPhotos() throws -> URL {
        let input = Fixtures.temporaryFolder("interrupt-input")
        for index in 0..<24 {
            try FileManager.default.copyItem(atPath: Fixtures.sample("png/macos_screenshot_exif.png"),
                                             toPath: input.appendingPathComponent("shot_\(index).png").path)
        }
        return input
    }

    func start(_ input: URL, _ output: URL, report: URL) throws -> Process {
        let process = Process()
        process.executableURL = Fixtures.executable
        process.arguments = ["run", "pipelines/quickstart.json", "--input", input.path, "--output", output.path,
                             "--jobs", "2", "--report", report.path, "--quiet"]
        process.currentDirectoryURL = Fixtures.repositoryRoot
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// What the interrupted run left: every file a whole JPEG, no temporary files.
    func assertOnlyWholeOutputs(_ output: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        try Vips.start()
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []).filter { $0 != ".mediabatch" }
        let temporary = output.appendingPathComponent(".mediabatch/tmp/all").path
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [], [], "temporary files left", file: file, line: line)
        for name in names {
            XCTAssertTrue(name.hasSuffix(".jpg") && !name.hasPrefix("."), "left behind: \(name)", file: file, line: line)
            let image = try VImage.open(output.appendingPathComponent(name).path)
            XCTAssertNoThrow(try image.pixels(), "\(name) decodes completely", file: file, line: line)
        }
        return names.count
    }

    func testFirstSignalFinishesInFlightItemsWritesTheReportAndExits130() throws {
        let output = Fixtures.temporaryFolder("interrupt-output")
        let report = output.appendingPathComponent("../\(output.lastPathComponent)-report.json").standardizedFileURL
        let process = try start(try manyPhotos(), output, report: report)
        // Once an item is being written (in flight, so finished after the signal), not after a fixed
        // time: a loaded machine once had none in flight after 1.2 s.
        waitForTemporaryFile(".jpg", under: output)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let written = try assertOnlyWholeOutputs(output)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any]
        XCTAssertEqual(json["interrupted"] as? Bool, true)
        let totals = (json["totals"] as! [String: Any]).compactMapValues { $0 as? Int }
        XCTAssertEqual(totals["ok"], written, "every admitted item finished and was reported")
        XCTAssertGreaterThan(written, 0)
        XCTAssertLessThan(written, 24)
    }

    /// SIGTERM (a Kubernetes pod's or Slurm job's end) while an item is being written: that item
    /// is finished, published and recorded, nothing else is started, and a rerun does the rest.
    func testSIGTERMDuringALongItemFinishesItAndARerunDoesTheRest() throws {
        let input = Fixtures.temporaryFolder("long-item-in"), output = Fixtures.temporaryFolder("long-item-out")
        // 6000 × 6000, turned upright: decoded whole (108 MB, over libvips' 100 MiB: to a file of its own),
        // then written: its temporary output is there for ~0.15 s (as a 9000 × 9000 one's was), the
        // signal sent within a poll (5 ms) of it.
        let long = input.appendingPathComponent("a_long.jpg").path
        XCTAssertEqual(try runProcess("vips", ["black", long, "6000", "6000", "--bands", "3"]).exitCode, 0)
        XCTAssertEqual(try runProcess("exiftool", ["-q", "-n", "-Orientation=6", "-overwrite_original", long]).exitCode, 0)
        for name in ["b1.jpg", "b2.jpg"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent(name).path)
        }
        let pipeline = Fixtures.temporaryFolder("long-item-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [{"stage": "decode"}, {"stage": "transcode", "to": "png"}, {"stage": "write"}]}"#.utf8).write(to: pipeline)
        let report = Fixtures.temporaryFolder("long-item-report").appendingPathComponent("report.json")
        let (arguments, process) = try startOneAtATime(pipeline, input, output, report: report)
        // The long item's output is being written once its temporary file is there.
        let temporary = output.appendingPathComponent(".mediabatch/tmp/all").path
        waitForTemporaryFile("a_long.png", under: output)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143)
        let interrupted = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report))
        XCTAssertEqual(interrupted.items.map(\.input), ["a_long.jpg"], "nothing started after the signal")
        XCTAssertEqual(interrupted.items.first?.status, .ok)
        try Vips.start()
        let written = try VImage.open(output.appendingPathComponent("a_long.png").path)
        XCTAssertEqual([written.width, written.height], [6000, 6000])
        XCTAssertNoThrow(try written.pixels(), "written whole")
        XCTAssertEqual(((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).filter { !$0.hasSuffix(".bin") }, [])

        let rerun = try runProcess(Fixtures.executable.path, arguments)
        XCTAssertEqual(rerun.exitCode, 0, rerun.stderr)
        let again = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report))
        XCTAssertEqual(again.items.filter { $0.status == .ok }.map(\.input), ["b1.jpg", "b2.jpg"], "exactly the rest")
        XCTAssertEqual(again.totals.unchanged, 1)
    }

    func testSecondSignalAbortsAtOnceLeavingNoPartialOutput() throws {
        let output = Fixtures.temporaryFolder("abort-output")
        let process = try start(try manyPhotos(), output, report: output.appendingPathComponent("../abort-report.json"))
        // Once outputs are being written (the signals are trapped by then: a loaded machine once had not
        // trapped them after a fixed second, and the first SIGTERM ended the run as the default action does).
        waitForTemporaryFile(".jpg", under: output)
        kill(process.processIdentifier, SIGTERM)
        usleep(50_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143)
        XCTAssertLessThan(try assertOnlyWholeOutputs(output), 24)
    }

    /// Three 2 s movies, each made into AV1 and H.264 renditions (most of a second each).
    func renditionRun(_ input: URL, _ output: URL, report: URL) throws -> (arguments: [String], process: Process) {
        for index in 0..<3 {
            let clip = try Movies.clip("clip\(index).mp4", "testsrc2=size=480x270:rate=30:duration=2",
                                       ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
            try FileManager.default.copyItem(atPath: clip, toPath: input.appendingPathComponent("clip\(index).mp4").path)
        }
        let pipeline = Fixtures.temporaryFolder("renditions-pipeline").appendingPathComponent("p.json")
        try Data(#"""
            {"version": 1, "stages": [{"stage": "decode"}, {"stage": "video", "codec": ["av1", "h264"], "reencode": "always"},
             {"stage": "write", "path": "{stem}.{codec}.{ext}"}]}
            """#.utf8).write(to: pipeline)
        return try startOneAtATime(pipeline, input, output, report: report)
    }

    /// A run of `pipeline`, one item at a time, in the background; its arguments, for a rerun.
    func startOneAtATime(_ pipeline: URL, _ input: URL, _ output: URL, report: URL) throws -> (arguments: [String], process: Process) {
        let arguments = ["run", pipeline.path, "--input", input.path, "--output", output.path, "--jobs", "1", "--report", report.path, "--quiet"]
        let process = Process()
        process.executableURL = Fixtures.executable
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (arguments, process)
    }

    /// Waits until an output whose name holds `name` is being written (its temporary file is there).
    func waitForTemporaryFile(_ name: String, under output: URL) {
        let temporary = output.appendingPathComponent(".mediabatch/tmp/all").path
        waitUntil { ((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).contains { $0.contains(name) } }
    }

    /// Polls `condition` every 5 ms, for a minute at most (the assertions after it then say what was missing).
    func waitUntil(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !condition() {
            usleep(5_000)
        }
    }

    /// What a killed or interrupted rendition run left: whole movies only, each decodable to its end.
    func assertWholeRenditions(_ output: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []).filter { $0 != ".mediabatch" }.sorted()
        for name in names {
            let path = output.appendingPathComponent(name).path
            XCTAssertEqual(try Movies.decodingErrors(path), "", name, file: file, line: line)
            XCTAssertEqual(Double(try Movies.probe(path).format["duration"] as? String ?? "") ?? 0, 2, accuracy: 0.05, name, file: file, line: line)
        }
        return names
    }

    /// SIGKILL while a movie's H.264 rendition is being encoded (its AV1 one done): nothing of
    /// that movie is published, nothing partial is left, and a rerun makes exactly the rest —
    /// the AV1 rendition finished before the kill is not encoded again.
    func testSIGKILLDuringARenditionLeavesNothingPartialAndARerunFinishes() throws {
        let input = Fixtures.temporaryFolder("kill-renditions-in"), output = Fixtures.temporaryFolder("kill-renditions-out")
        let report = Fixtures.temporaryFolder("kill-renditions-report").appendingPathComponent("report.json")
        let (arguments, process) = try renditionRun(input, output, report: report)
        waitForTemporaryFile("clip1.h264", under: output)
        let killedAt = Date()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let published = try assertWholeRenditions(output)
        XCTAssertTrue(Set(published).isSubset(of: ["clip0.av1.mp4", "clip0.h264.mp4"]), "\(published): clip1's AV1 rendition is not published alone")
        let rerun = try runProcess(Fixtures.executable.path, arguments)
        XCTAssertEqual(rerun.exitCode, 0, rerun.stderr)
        XCTAssertEqual(try assertWholeRenditions(output), ["clip0.av1.mp4", "clip0.h264.mp4", "clip1.av1.mp4", "clip1.h264.mp4",
                                                           "clip2.av1.mp4", "clip2.h264.mp4"])
        let finished = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("clip1.av1.mp4").path)[.modificationDate] as? Date
        XCTAssertLessThan(try XCTUnwrap(finished), killedAt, "the AV1 rendition made before the kill")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/renditions/all").path), [],
                       "nothing kept once the movie is done")
        let again = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report))
        XCTAssertEqual(again.items.filter { $0.status == .ok }.map(\.input), published.isEmpty ? ["clip0.mp4", "clip1.mp4", "clip2.mp4"] : ["clip1.mp4", "clip2.mp4"])
        XCTAssertEqual(((try? FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path)) ?? [])
            .filter { !$0.hasSuffix(".bin") }, [])
    }

    /// SIGTERM while a movie's renditions are being encoded: they are finished and published, nothing
    /// else is started, and a rerun does the rest.
    func testSIGTERMDuringARenditionFinishesItsMovie() throws {
        let input = Fixtures.temporaryFolder("term-renditions-in"), output = Fixtures.temporaryFolder("term-renditions-out")
        let report = Fixtures.temporaryFolder("term-renditions-report").appendingPathComponent("report.json")
        let (arguments, process) = try renditionRun(input, output, report: report)
        waitForTemporaryFile("clip0.av1", under: output)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143)
        XCTAssertEqual(try assertWholeRenditions(output), ["clip0.av1.mp4", "clip0.h264.mp4"])
        let interrupted = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report))
        XCTAssertEqual(interrupted.items.map(\.input), ["clip0.mp4"], "nothing started after the signal")
        let rerun = try runProcess(Fixtures.executable.path, arguments)
        XCTAssertEqual(rerun.exitCode, 0, rerun.stderr)
        XCTAssertEqual(try assertWholeRenditions(output).count, 6)
    }
}
