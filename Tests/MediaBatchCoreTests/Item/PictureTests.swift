import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Pictures are planned from the header, in any stage order: each operation is recorded only
/// where it changes something, and every order of the pixel stages a pipeline may combine gives
/// the same outputs — checked on a Display P3 HEIC, a CMYK JPEG and an orientation-6 JPEG.
final class PictureTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    let source = Picture.Source(stored: PixelSize(width: 1200, height: 1800), orientation: 6, needsConversion: false, hasProfile: true)

    func testOperationsThatChangeNothingAreNotRecorded() {
        let upright = Picture(source: Picture.Source(stored: PixelSize(width: 800, height: 600), orientation: 1,
                                                     needsConversion: false, hasProfile: false))
        XCTAssertTrue(upright.fitted(in: Box(width: 2048, height: 2048), Fit()).turnedUpright().inSRGB().withoutProfile().isUntouched)
        XCTAssertFalse(upright.reencoded().isUntouched, "transcode asks for an encode")
        let sideways = Picture(source: source)
        XCTAssertEqual(sideways.size, PixelSize(width: 1200, height: 1800), "as stored until turned")
        XCTAssertEqual(sideways.turnedUpright().size, PixelSize(width: 1800, height: 1200))
        XCTAssertEqual(sideways.fitted(in: Box(width: 900, height: 900), Fit()).size, PixelSize(width: 900, height: 600))
        XCTAssertFalse(sideways.inSRGB().isConverted, "already sRGB")
        XCTAssertTrue(sideways.withoutProfile().isConverted, "its profile goes: encoded again without it")
    }

    func testTheOrderOfTheOperationsDoesNotMatter() {
        let p3 = Picture(source: Picture.Source(stored: PixelSize(width: 4032, height: 3024), orientation: 1, needsConversion: true, hasProfile: true))
        let orders: [[(Picture) -> Picture]] = [[{ $0.fitted(in: Box(width: 512, height: 512), Fit()) }, { $0.inSRGB() }, { $0.turnedUpright() }],
                                                [{ $0.inSRGB() }, { $0.turnedUpright() }, { $0.fitted(in: Box(width: 512, height: 512), Fit()) }],
                                                [{ $0.turnedUpright() }, { $0.fitted(in: Box(width: 512, height: 512), Fit()) }, { $0.inSRGB() }]]
        for start in [p3, Picture(source: source)] {
            XCTAssertEqual(Set(orders.map { $0.reduce(start) { $1($0) } }).count, 1)
        }
    }

    /// The orders refused, each naming the stage and why: exit 2 from `mediabatch validate`.
    func testOrdersWithoutAMeaningAreRefusedNamingTheStage() throws {
        let refused = [
            (#"{"stage": "transcode", "to": "jpeg"}, {"stage": "decode"}, {"stage": "write"}"#, #"stages[0]: "transcode" needs a "decode" stage before it"#),
            (#"{"stage": "decode"}, {"stage": "variants", "sizes": [480], "formats": ["jpeg"]}, {"stage": "downsample", "maxPixelSize": 480}, {"stage": "write"}"#,
             #"stages[2]: "downsample" and "variants" (stages[1]) cannot be combined"#),
            (#"{"stage": "decode"}, {"stage": "write"}, {"stage": "stripLocation"}"#, #"stages[2]: "write" must be the last stage"#),
        ]
        for (stages, message) in refused {
            let file = Fixtures.temporaryFolder().appendingPathComponent("pipeline.json")
            try Data(#"{"version": 1, "stages": [\#(stages)]}"#.utf8).write(to: file)
            let result = try runProcess(Fixtures.executable.path, ["validate", file.path])
            XCTAssertEqual(result.exitCode, 2, stages)
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
        }
    }
}
