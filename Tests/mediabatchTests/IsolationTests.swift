import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// Untrusted input runs its decoders in `mediabatch worker` processes. A real decoder crash
/// needs an exploit; `MEDIABATCH_FAULT_INJECTION` makes a worker raise SIGSEGV or hang on a
/// named file instead, and everything around it (the run, the other items, temporary files) is real.
final class IsolationTests: XCTestCase {
    /// A small HEIC and a large one (the one faults are injected into: never decoded but by the trusted run).
    let samples = ["heic/L_exif_xmp_iptc.heic", "heic/pug.heic", "jpeg/apple_iphone_4.jpg", "jpeg/canon_eos_7d_iptc_city.jpg",
                   "png/macos_screenshot_exif.png"]

    func library() throws -> URL {
        let input = Fixtures.temporaryFolder("isolation-input")
        for sample in samples {
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample),
                                             toPath: input.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        return input
    }

    /// The quickstart stages, trusted or not, with a timeout.
    func pipelineFile(trusted: Bool, timeout: String = "2m") throws -> URL {
        let file = Fixtures.temporaryFolder("isolation-pipeline").appendingPathComponent("pipeline.json")
        try Data("""
            {"version": 1, "input": {"trusted": \(trusted)}, "limits": {"timeout": "\(timeout)"},
             "stages": [{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 1024},
                        {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write"}]}
            """.utf8).write(to: file)
        return file
    }

    func run(_ pipeline: URL, _ input: URL, faults: String? = nil) throws -> (ProcessResult, RunReport, URL) {
        let output = Fixtures.temporaryFolder("isolation-output")
        let report = output.appendingPathComponent("../\(output.lastPathComponent).json").standardizedFileURL
        let result = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                               "--jobs", "2", "--report", report.path, "--quiet"],
                                    environment: faults.map { ["MEDIABATCH_FAULT_INJECTION": $0] } ?? [:])
        return (result, try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report)), output)
    }

    func outputs(_ output: URL) throws -> [String: Data] {
        let names = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0 != ".mediabatch" }
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: output.appendingPathComponent($0))) })
    }

    func assertNoTemporaryFiles(_ output: URL, file: StaticString = #filePath, line: UInt = #line) {
        let temporary = output.appendingPathComponent(".mediabatch/tmp/all").path
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [], [], file: file, line: line)
    }

    func testADecoderCrashFailsOnlyItsItemAndTheOthersMatchATrustedRun() throws {
        let input = try library()
        let (trustedResult, trusted, trustedOutput) = try run(try pipelineFile(trusted: true), input)
        XCTAssertEqual(trustedResult.exitCode, 0, trustedResult.stderr)
        let (result, report, output) = try run(try pipelineFile(trusted: false), input,
                                               faults: "header:crash:pug.heic,pixels:crash:apple_iphone_4.jpg")
        XCTAssertEqual(result.exitCode, 1, "items failed, the run did not")
        let failed = report.items.filter { $0.status == .failed }
        XCTAssertEqual(failed.map(\.input), ["apple_iphone_4.jpg", "pug.heic"])
        XCTAssertEqual(failed.map { $0.error?.code }, [.workerCrashed, .workerCrashed])
        XCTAssertEqual(failed.map { $0.error?.stage }, ["write", "decode"])
        XCTAssertTrue(failed[0].error?.message.hasPrefix("the worker process reading it died of signal 11 (Segmentation fault)") == true,
                      failed[0].error?.message ?? "")
        XCTAssertEqual(report.totals.ok, 3)
        var expected = try outputs(trustedOutput)
        expected["apple_iphone_4.jpg"] = nil
        expected["pug.jpg"] = nil
        XCTAssertEqual(try outputs(output), expected, "the other outputs are byte for byte those of an in-process run")
        XCTAssertEqual(trusted.totals.ok, 5)
        assertNoTemporaryFiles(output)
    }

    /// 3 s: time for a debug build to start a worker and decode the other photos, all small, on a busy
    /// machine (1 s failed pug.heic under load, 3 s the Canon JPEG beside pug.heic's decode when
    /// another engineer's build was running too), and the hung ones are still abandoned.
    func testAStuckDecodeIsAbandonedAfterTheTimeoutAndTheRunGoesOn() throws {
        let input = try library()
        let started = Date()
        let (result, report, output) = try run(try pipelineFile(trusted: false, timeout: "3s"), input,
                                               faults: "pixels:hang:pug.heic,header:hang:macos_screenshot_exif.png")
        XCTAssertEqual(result.exitCode, 1)
        let failed = report.items.filter { $0.status == .failed }
        XCTAssertEqual(failed.map(\.input), ["macos_screenshot_exif.png", "pug.heic"])
        XCTAssertEqual(failed.map { $0.error?.code }, [.timedOut, .timedOut])
        XCTAssertEqual(failed.first?.error?.message, "still running after 3 s (limits.timeout): abandoned, its worker killed")
        XCTAssertEqual(report.totals.ok, 3)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "the hung workers were killed, not waited for")
        assertNoTemporaryFiles(output)
    }
}
