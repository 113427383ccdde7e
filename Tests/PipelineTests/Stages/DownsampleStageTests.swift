import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The downsample stage: within the size, never upscaled, upright, planned cheaper when libjpeg
/// can shrink on load, and a picture it need not change left as it is (copied, not encoded).
final class DownsampleStageTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    func testEveryOrientationComesOutUpright() throws {
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(webStages), input: Fixtures.samples.appendingPathComponent("jpeg/orientation"), output: output)
        XCTAssertEqual(report.totals.ok, 8)
        let reference = try VImage.open(output.appendingPathComponent("Landscape_1.jpg").path)
        for n in 2...8 {
            let written = try VImage.open(output.appendingPathComponent("Landscape_\(n).jpg").path)
            XCTAssertEqual([written.width, written.height, written.orientation], [1800, 1200, 1], "Landscape_\(n)")
            // Same scene, re-encoded: a few levels of JPEG noise. A missed or wrong rotation or flip
            // differs by tens of levels (see the unrotated check below).
            XCTAssertLessThan(try written.meanAbsoluteDifference(from: reference), 6, "Landscape_\(n)")
        }
        let storedMirrored = try VImage.open(Fixtures.sample("jpeg/orientation/Landscape_2.jpg"))
        XCTAssertGreaterThan(try storedMirrored.meanAbsoluteDifference(from: reference), 20, "the check can fail")
    }

    /// A photo already within the size and upright keeps its coded bytes: no generation loss.
    func testAPictureThatFitsIsCopiedNotEncodedAgain() throws {
        let output = Fixtures.temporaryFolder()
        let input = try Self.folder(of: ["jpeg/orientation/Landscape_1.jpg", "jpeg/orientation/Landscape_6.jpg"])
        let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 2048}, {"stage": "write"}"#
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        XCTAssertEqual(report.items.map(\.status), [.ok, .ok])
        XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent("Landscape_1.jpg")),
                       try Data(contentsOf: input.appendingPathComponent("Landscape_1.jpg")))
        XCTAssertNotEqual(try Data(contentsOf: output.appendingPathComponent("Landscape_6.jpg")),
                          try Data(contentsOf: input.appendingPathComponent("Landscape_6.jpg")), "turned upright: encoded")
    }
}
