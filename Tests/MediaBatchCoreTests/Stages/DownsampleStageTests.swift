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

    private func picture(_ sample: String, maxPixelSize: Int) throws -> Picture? {
        try Self.planned(sample, #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": \#(maxPixelSize)}, {"stage": "write"}"#)
            .plan.outputs.first?.picture
    }

    func testFitsTheLongestSideAppliesTheOrientationAndNeverUpscales() throws {
        let sideways = try XCTUnwrap(try picture("jpeg/orientation/Landscape_6.jpg", maxPixelSize: 512))
        XCTAssertEqual(sideways.source.stored, PixelSize(width: 1200, height: 1800), "stored sideways")
        XCTAssertEqual(sideways.size, PixelSize(width: 512, height: 341))
        XCTAssertTrue(sideways.isTurned && sideways.isResized)
        let small = try XCTUnwrap(try picture("jpeg/orientation/Landscape_6.jpg", maxPixelSize: 4096))
        XCTAssertEqual(small.size, PixelSize(width: 1800, height: 1200), "upright, not upscaled")
        XCTAssertFalse(small.isUntouched, "turned: encoded again")
        let heic = try XCTUnwrap(try picture("heic/iphone_xr_issue263.heic", maxPixelSize: 2048))
        XCTAssertEqual(heic.size, PixelSize(width: 1536, height: 2048), "irot 270 applied by libheif")
        let fits = try XCTUnwrap(try picture("jpeg/orientation/Landscape_1.jpg", maxPixelSize: 4096))
        XCTAssertTrue(fits.isUntouched, "upright and within the size: nothing to do")
    }

    func testPlansTheCostOfShrinkingOnLoad() throws {
        let whole = try Self.planned("livephoto/train.jpg", #"{"stage": "decode"}, {"stage": "write"}"#).plan
        let shrunk = try Self.planned("livephoto/train.jpg", #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 500}, {"stage": "write"}"#).plan
        let header = CostEstimator.ImageHeader(format: .jpeg, width: 4032, height: 3024, bitsPerSample: 8)
        XCTAssertEqual(shrunk.estimatedBytes, CostEstimator.estimate(image: header, maxPixelSize: 500))
        XCTAssertLessThan(shrunk.estimatedBytes, whole.estimatedBytes, "4032 → 500 decodes at 1/8 scale")
        XCTAssertEqual(shrunk.outputs.map(\.format), whole.outputs.map(\.format), "downsample changes no format")
    }

    func testLeavesVideosAlone() throws {
        let movie = try Self.planned("video/sample.3gp", #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 100}, {"stage": "write"}"#)
        XCTAssertEqual(movie.plan.outputs.map(\.picture), [nil])
        XCTAssertEqual(movie.plan.estimatedBytes, CostEstimator.copyBytes)
        let stage = DownsampleStage(box: Box(width: 100, height: 100))
        var fingerprint = ItemFingerprint(recipe: [])
        stage.fingerprint(&fingerprint, format: .threeGP)
        stage.fingerprint(&fingerprint, format: nil)
        XCTAssertEqual(fingerprint.recipe, [])
        stage.fingerprint(&fingerprint, format: .heic)
        XCTAssertEqual(fingerprint.recipe, ["downsample(100)"])
    }
}
