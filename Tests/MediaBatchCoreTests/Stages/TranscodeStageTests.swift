import Foundation
@testable import MediaBatchCore
import MediaFormats
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The transcode stage: output format and quality planned and honoured, colour converted to
/// sRGB, and every accepted stage order giving the same output.
final class TranscodeStageTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    func testPlansTheFormatAndQualityOfTheImagesItApplies() throws {
        let stages = #"{"stage": "decode"}, {"stage": "transcode", "from": "heic", "to": "webp", "quality": 55}, {"stage": "write"}"#
        let heicPlan = try Self.planned("heic/pug.heic", stages).plan, pngPlan = try Self.planned("png/macos_screenshot_exif.png", stages).plan
        XCTAssertEqual(heicPlan.outputs.map(\.format), [.webp])
        XCTAssertEqual(heicPlan.outputs.map(\.quality), [55])
        XCTAssertEqual(heicPlan.outputs.map(\.effort), [MediaFormat.webp.effort?.default])
        XCTAssertEqual(heicPlan.outputs.first?.picture?.isReencoded, true)
        XCTAssertEqual(heicPlan.outputs.first?.picture?.isConverted, true, "Display P3 to sRGB")
        XCTAssertEqual(pngPlan.outputs.first?.isCopy(of: .png), true, "not in from: copied as it is")
        let stage = try Self.pixelStage(#"{"stage": "transcode", "from": "heic", "to": "webp", "quality": 55}"#)
        var fingerprint = ItemFingerprint(recipe: [])
        stage.fingerprint(&fingerprint, format: .png)
        stage.fingerprint(&fingerprint, format: .heic)
        XCTAssertEqual(fingerprint.recipe, ["transcode(heic->webp,q=55,effort=4)"])
    }

    /// An image without a profile (or with sRGB's) is not converted; it is encoded again all the
    /// same, at the quality asked.
    func testLeavesAnSRGBImageUnconvertedButEncodesIt() throws {
        let plan = try Self.planned("jpeg/apple_iphone_4.jpg", #"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg", "quality": 50}, {"stage": "write"}"#).plan
        let picture = try XCTUnwrap(plan.outputs.first?.picture)
        XCTAssertFalse(picture.isConverted, "no profile, not CMYK: no conversion")
        XCTAssertTrue(picture.isReencoded)
        XCTAssertEqual(plan.outputs.first?.isCopy(of: .jpeg), false)
    }
}
