import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// Camera RAWs and JPEG XL stills damaged the ways real ones are (cut short, bytes flipped in the
/// sensor data or the directories, zeroed runs) through `decode` in worker processes, as untrusted
/// input runs: LibRaw's develop, its preview, libjxl. Every item ends reported (a picture, or a
/// clear failure), the run ends, nothing half-written is left. The damage is seeded (SplitMix):
/// the same files on every run. LibRaw and libjxl are fuzzed upstream (OSS-Fuzz); this checks what
/// mediabatch does around them.
final class HostileRawTests: XCTestCase {
    /// Seeded damage to `source` (`HostileFiles.damaged`), one kind a copy, written as `count` files named after `stem`.
    func damaged(_ source: URL, stem: String, _ count: Int, into folder: URL, seed: UInt64) throws -> [String] {
        var random = SplitMix(seed: seed)
        let whole = [UInt8](try Data(contentsOf: source))
        return try (0..<count).map { index in
            let bytes = HostileFiles.damaged(whole, kind: index, head: 2048, using: &random)
            let name = "\(stem)-\(index).\(source.pathExtension)"
            try Data(bytes).write(to: folder.appendingPathComponent(name))
            return name
        }
    }

    func testDamagedRawsAndJPEGXLsFailOneByOneAndTheRunEnds() throws {
        let input = Fixtures.temporaryFolder("hostile-raw"), output = Fixtures.temporaryFolder("hostile-raw-out")
        let made = Fixtures.temporaryFolder("hostile-raw-sources")
        let dng = made.appendingPathComponent("camera.dng"), jxl = made.appendingPathComponent("export.jxl")
        try DevelopableDNG.write(to: dng, width: 600, orientation: 6, preview: 320, gps: true)
        // From pixels (libjxl 0.11's cjxl takes a JPEG only to transcode it losslessly).
        let png = made.appendingPathComponent("photo.png").path
        for command in [["vips", "copy", Fixtures.sample("jpeg/apple_iphone_4.jpg"), png], ["cjxl", "-d", "1", png, jxl.path]] {
            let result = try runProcess(command[0], Array(command.dropFirst()))
            XCTAssertEqual(result.exitCode, 0, result.stderr)
        }
        let names = try damaged(dng, stem: "develop", 12, into: input, seed: 0xD06)
            + damaged(jxl, stem: "export", 12, into: input, seed: 0x1A1)
        try FileManager.default.copyItem(at: dng, to: input.appendingPathComponent("intact.dng"))
        let pipeline = Fixtures.temporaryFolder("hostile-raw-pipeline").appendingPathComponent("p.json")
        // develop: the sensor data is what is read; a preview-only pipeline would read the JPEG alone.
        try Data(#"""
            {"version": 1, "limits": {"timeout": "60s"}, "stages": [{"stage": "decode", "raw": "develop"},
              {"stage": "downsample", "maxPixelSize": 256}, {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write"}]}
            """#.utf8).write(to: pipeline)
        let reportFile = output.appendingPathComponent("../\(output.lastPathComponent).json").standardizedFileURL
        let result = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                               "--report", reportFile.path, "--quiet"])
        XCTAssertTrue([0, 1].contains(result.exitCode), result.stderr)
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: reportFile))
        XCTAssertEqual(report.items.map(\.input).sorted(), (names + ["intact.dng"]).sorted(), "every file reported")
        XCTAssertEqual(report.items.first { $0.input == "intact.dng" }?.status, .ok)
        for item in report.items {
            switch item.status {
            case .ok:
                let image = try VImage.decode(output.appendingPathComponent(try XCTUnwrap(item.output, item.input)).path)
                XCTAssertLessThanOrEqual(max(image.width, image.height), 256, item.input)
            case .failed:
                let error = try XCTUnwrap(item.error, item.input)
                XCTAssertTrue([.decodeFailed, .workerCrashed, .unsupportedFormat, .unsupportedMetadata, .formatMismatch].contains(error.code),
                              "\(item.input): \(error)")
                XCTAssertFalse(error.message.isEmpty, item.input)
            case .skipped:
                // Cut short enough, a file is no longer a RAW or a JPEG XL by its bytes.
                XCTAssertNotNil(item.reason, item.input)
            default: XCTFail("\(item.input): \(item.status)")
            }
        }
        let temporary = output.appendingPathComponent(".mediabatch/tmp")
        let left = (try? FileManager.default.subpathsOfDirectory(atPath: temporary.path)) ?? []
        XCTAssertEqual(left.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".dng") }, [], "no temporary output left")
    }
}
