import Foundation
import MediaFormats
import MetadataKit
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The decode stage: limits enforced from the header before any pixel is decoded, the primary
/// picture planned from it, and the cost of decoding planned.
final class DecodeStageTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    private let stage = DecodeStage()
    private let decodeAndWrite = #"{"stage": "decode"}, {"stage": "write"}"#

    func testPlansThePrimaryPictureFromTheHeaderWithoutDecodingPixels() throws {
        let decodes = VImage.decodes
        let heic = try Self.planned("heic/IMG_1034.heic", decodeAndWrite)
        let picture = try XCTUnwrap(heic.plan.outputs.first?.picture)
        XCTAssertEqual(picture.source, Picture.Source(stored: PixelSize(width: 4032, height: 3024), orientation: 1,
                                                      needsConversion: true, hasProfile: true, decoder: .heif(.libavcodec(tile: PixelSize(width: 512, height: 512)))), "Display P3, its own loader's")
        XCTAssertTrue(picture.isUntouched, "decode changes nothing: the file is copied")
        XCTAssertEqual(heic.plan.outputs.first?.path, "heic/IMG_1034.heic")
        let sideways = try Self.planned("jpeg/orientation/Landscape_6.jpg", decodeAndWrite)
        XCTAssertEqual(sideways.plan.upright, PixelSize(width: 1800, height: 1200))
        XCTAssertEqual(sideways.plan.outputs.first?.picture?.size, PixelSize(width: 1200, height: 1800), "as stored")
        let movie = try Self.planned("video/iphone6_with-gps.mov", decodeAndWrite)
        XCTAssertNil(movie.plan.outputs.first?.picture)
        XCTAssertEqual(VImage.decodes, decodes, "headers only")
    }

    func testAnUnreadableHeaderFailsWithLibvipsReason() throws {
        let broken = try Self.item("corrupt-header.jpg", root: Fixtures.broken)
        XCTAssertThrowsError(try stage.check(broken)) { error in
            let failure = error as? StageFailure
            XCTAssertEqual(failure?.code, .decodeFailed)
            XCTAssertEqual(failure?.message.hasPrefix("cannot read the jpeg header: "), true, failure?.message ?? "")
        }
    }

    func testPlansTheDecodersCostForHEIFAndACopyForVideos() throws {
        let heic = try Self.item("heic/IMG_1034.heic"), movie = try Self.item("video/sample.3gp")
        var heicPlan = ItemPlan(format: .heic), moviePlan = ItemPlan(format: .threeGP)
        stage.plan(&heicPlan, for: heic)
        stage.plan(&moviePlan, for: movie)
        // libavcodec decodes a 12 MP HEIC's 512-px tiles into one picture (nothing shrinks it yet): its 36 MB and
        // half as much again for its resize, some 58 MiB (libheif's whole frame: about 7.5 bytes a pixel, 93 MiB).
        var header = CostEstimator.ImageHeader(format: .heic, width: 4032, height: 3024, bitsPerSample: 8)
        header.heifTile = PixelSize(width: 512, height: 512)
        XCTAssertEqual(heicPlan.estimatedBytes, CostEstimator.estimate(image: header, maxPixelSize: nil))
        XCTAssertGreaterThan(heicPlan.estimatedBytes, 55 << 20)
        let movieFacts = try XCTUnwrap(moviePlan.outputs.first?.movie)
        moviePlan.outputs[0].movie = nil
        XCTAssertEqual(moviePlan, ItemPlan(format: .threeGP), "a movie is copied")
        // Its size, length (FFmpeg 5.1 reads 4.933333 s, 7.1 4.933375) and codec as ffprobe reads them.
        XCTAssertEqual([movieFacts.size.width, movieFacts.size.height], [176, 144])
        XCTAssertEqual(try XCTUnwrap(movieFacts.seconds), 4.9334, accuracy: 0.0001)
        XCTAssertEqual(movieFacts.codec, "mpeg4")
        XCTAssertEqual(heicPlan.outputs.map(\.format), [.heic], "decode chooses no format")
    }

    func testTheLimitsDecideWhetherNotHow() throws {
        var fingerprint = ItemFingerprint(recipe: [])
        let strict = try Self.item("jpeg/apple_iphone_4.jpg", limits: #"{"maxPixels": 10, "maxFrames": 1}"#)
        XCTAssertThrowsError(try stage.check(strict), "the limits are the run's, not the stage's")
        stage.fingerprint(&fingerprint, format: .jpeg)
        stage.fingerprint(&fingerprint, format: .jpeg)
        stage.fingerprint(&fingerprint, format: nil)
        XCTAssertEqual(fingerprint.recipe, ["decode", "decode"], "the same whatever the limits; nothing for a file that is not media")
    }

    /// `raw` is in a camera RAW's recipe only where it is not the default (a RAW's recipe as
    /// before the option), and never in another format's.
    func testRawIsInACameraRawsRecipeOnlyAwayFromItsDefault() {
        var fingerprint = ItemFingerprint(recipe: [])
        let develop = DecodeStage(raw: .develop)
        stage.fingerprint(&fingerprint, format: .dng)
        develop.fingerprint(&fingerprint, format: .nef)
        develop.fingerprint(&fingerprint, format: .jpeg)
        XCTAssertEqual(fingerprint.recipe, ["decode", "decode(animated=true,raw=develop)", "decode"])
    }

    // MARK: Animations

    func testAnimatedChangesTheFingerprintOfAnimatingFormatsOnly() {
        func recipe(_ animated: Bool, _ format: MediaFormat) -> [String] {
            var fingerprint = ItemFingerprint(recipe: [])
            DecodeStage(animated: animated).fingerprint(&fingerprint, format: format)
            return fingerprint.recipe
        }
        XCTAssertNotEqual(recipe(true, .gif), recipe(false, .gif))
        XCTAssertNotEqual(recipe(true, .webp), recipe(false, .webp))
        XCTAssertEqual(recipe(true, .jpeg), recipe(false, .jpeg))
        XCTAssertEqual(recipe(true, .jpeg), ["decode"], "a still's fingerprint is what it was before animations")
    }
}
