import Foundation
import TestSupport
import VipsKit
import XCTest

/// Ctrl-C and SIGTERM in the middle of a real run.
final class InterruptionTests: XCTestCase {
    /// A folder of 24 HEICs: slow enough (≈ 0.3 s each) to interrupt mid-run.
    func manyPhotos() throws -> URL {
        let input = Fixtures.temporaryFolder("interrupt-input")
        for index in 0..<24 {
            try FileManager.default.copyItem(atPath: Fixtures.sample("heic/IMG_1034.heic"),
                                             toPath: input.appendingPathComponent("IMG_\(index).heic").path)
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
        usleep(1_200_000)
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

    func testSecondSignalAbortsAtOnceLeavingNoPartialOutput() throws {
        let output = Fixtures.temporaryFolder("abort-output")
        let process = try start(try manyPhotos(), output, report: output.appendingPathComponent("../abort-report.json"))
        usleep(1_000_000)
        kill(process.processIdentifier, SIGTERM)
        usleep(50_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143)
        XCTAssertLessThan(try assertOnlyWholeOutputs(output), 24)
    }
}
