import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Which decoder a HEIC goes to, chosen from its header, and what the report says: libavcodec for
/// the common case, libheif for what the loader declines or when the environment asks, with why.
final class HEIFDecodingTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    func testChoiceFromTheHeaderAndTheEnvironment() {
        let photo = Fixtures.sample("heic/IMG_1034.heic")
        XCTAssertEqual(HEIFDecoding.choose(path: photo, environment: [:]), .libavcodec(tile: PixelSize(width: 512, height: 512)))
        XCTAssertEqual(HEIFDecoding.choose(path: photo, environment: ["MEDIABATCH_HEIF_DECODER": "libheif"]),
                       .libheif(reason: "MEDIABATCH_HEIF_DECODER=libheif"))
        let sequence = Fixtures.fixtures.appendingPathComponent("kinds/images/animated_avis_3frames.avif").path
        XCTAssertEqual(HEIFDecoding.choose(path: sequence, environment: [:]), .libheif(reason: "it is an image sequence (a 'moov' box)"))
    }

    /// A run of HEICs loads libavcodec for their tiles, and neither libavformat nor libavfilter (their
    /// dependencies cost a worker 30 ms more to link), as the dynamic linker tells of the run and its workers.
    func testAHEICRunOpensLibavcodecAlone() throws {
        let input = try Self.folder(of: ["heic/iphone_xr_issue263.heic"]), output = Fixtures.temporaryFolder()
        let pipelineFile = Fixtures.temporaryFolder("heic-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [\#(webStages)]}"#.utf8).write(to: pipelineFile)
        let run = try runProcess(Fixtures.executable.path, ["run", pipelineFile.path, "--input", input.path, "--output", output.path, "--quiet"],
                                 environment: ["LD_DEBUG": "files"])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("file=libavcodec.so."), "libavcodec decoded the tiles")
        XCTAssertFalse(run.stderr.contains("file=libavformat.so."))
        XCTAssertFalse(run.stderr.contains("file=libavfilter.so."))
        let written = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: output.path).first { $0.hasSuffix(".jpg") })
        XCTAssertEqual(try VImage.decode(output.appendingPathComponent(written).path).width, 1536)
    }
}
