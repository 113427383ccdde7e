import Foundation
@testable import MediaBatchCore
import PipelineModel
import TestSupport
@testable import VipsKit
import XCTest

/// The downsample stage: within the size, never upscaled, upright, and planned cheaper when
/// libjpeg can shrink on load.
final class DownsampleStageTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    /// `item` after decode, as the header phase leaves it.
    private func decoded(_ sample: String) throws -> ItemContext {
        let item = try Self.item(sample)
        try DecodeStage(maxPixels: Defaults.maxPixels, maxFrames: Defaults.maxFrames).run(item)
        return item
    }

    func testFitsTheLongestSideAppliesTheOrientationAndNeverUpscales() throws {
        let sideways = try decoded("jpeg/orientation/Landscape_6.jpg")
        XCTAssertEqual([sideways.image?.width, sideways.image?.height, sideways.image?.orientation], [1200, 1800, 6], "stored sideways")
        try DownsampleStage(maxPixelSize: 512).run(sideways)
        XCTAssertEqual([sideways.image?.width, sideways.image?.height, sideways.image?.orientation], [512, 341, 1])
        let small = try decoded("jpeg/orientation/Landscape_6.jpg")
        try DownsampleStage(maxPixelSize: 4096).run(small)
        XCTAssertEqual([small.image?.width, small.image?.height], [1800, 1200], "upright, not upscaled")
        let heic = try decoded("heic/iphone_xr_issue263.heic")
        try DownsampleStage(maxPixelSize: 2048).run(heic)
        XCTAssertEqual([heic.image?.width, heic.image?.height], [1536, 2048], "irot 270 applied by libheif")
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

    func testPlansTheCostOfShrinkingOnLoad() throws {
        let jpeg = try decoded("livephoto/train.jpg")
        var whole = ItemPlan(format: .jpeg)
        DecodeStage(maxPixels: Defaults.maxPixels, maxFrames: Defaults.maxFrames).plan(&whole, for: jpeg)
        var shrunk = whole
        DownsampleStage(maxPixelSize: 500).plan(&shrunk, for: jpeg)
        let header = CostEstimator.ImageHeader(format: .jpeg, width: 4032, height: 3024, bitsPerSample: 8)
        XCTAssertEqual(shrunk.estimatedBytes, CostEstimator.estimate(image: header, maxPixelSize: 500))
        XCTAssertLessThan(shrunk.estimatedBytes, whole.estimatedBytes, "4032 → 500 decodes at 1/8 scale")
        XCTAssertEqual(shrunk.outputs, whole.outputs, "downsample changes no format or path")
    }

    func testLeavesVideosAlone() throws {
        let movie = try decoded("video/sample.3gp")
        var plan = ItemPlan(format: .threeGP)
        let stage = DownsampleStage(maxPixelSize: 100)
        stage.plan(&plan, for: movie)
        try stage.run(movie)
        XCTAssertEqual(plan, ItemPlan(format: .threeGP))
        XCTAssertNil(movie.image)
        XCTAssertNotNil(movie.video)
        var fingerprint = ItemFingerprint(recipe: [])
        stage.fingerprint(&fingerprint, format: .threeGP)
        stage.fingerprint(&fingerprint, format: nil)
        XCTAssertEqual(fingerprint.recipe, [])
        stage.fingerprint(&fingerprint, format: .heic)
        XCTAssertEqual(fingerprint.recipe, ["downsample(100)"])
    }
}
