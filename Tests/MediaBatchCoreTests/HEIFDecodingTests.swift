import Foundation
@testable import MediaBatchCore
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
        XCTAssertEqual(HEIFDecoding.choose(path: photo, environment: [:]), .libavcodec)
        XCTAssertEqual(HEIFDecoding.choose(path: photo, environment: ["MEDIABATCH_HEIF_DECODER": "libheif"]),
                       .libheif(reason: "MEDIABATCH_HEIF_DECODER=libheif"))
        let sequence = Fixtures.fixtures.appendingPathComponent("kinds/images/animated_avis_3frames.avif").path
        XCTAssertEqual(HEIFDecoding.choose(path: sequence, environment: [:]), .libheif(reason: "it is an image sequence (a 'moov' box)"))
    }

    /// Pictures no larger than the photo's 320×240 thumbnail item: libheif decodes that item (as
    /// libvips' thumbnail chooses), not libavcodec the whole photo; one larger: libavcodec.
    func testAThumbnailItemThatCoversThePicturesGoesToLibheif() throws {
        let input = try Self.folder(of: ["heic/IMG_1034.heic"])
        for (size, decoder) in [(256, ItemResult.ImageDecoder.libheif), (400, .libavcodec)] {
            let stages = """
                {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": \(size)}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}
                """
            let item = try XCTUnwrap(result(try Self.run(try pipeline(stages), input: input, output: Fixtures.temporaryFolder()), "IMG_1034.heic"))
            XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
            XCTAssertEqual(item.decoder, decoder, "\(size)")
            XCTAssertEqual(item.decoderReason, decoder == .libheif ? "its 320×240 thumbnail covers the largest picture" : nil)
        }
    }

    /// Whole runs, in worker processes, of an iPhone photo turned a quarter: the report names
    /// libavcodec; with `MEDIABATCH_HEIF_DECODER=libheif` (the workers inherit it), libheif and
    /// why. The two PNGs are the same picture, upright (the decodes are sample for sample the
    /// same: `HEIFPictureTests`); libavcodec's is turned after the reduce, libheif's before, so
    /// the passes run across the other axis and round apart at hard edges (mean 0.31 measured).
    func testRunReportsTheDecoderAndTheEnvironmentForcesLibheif() throws {
        let input = try Self.folder(of: ["heic/iphone_xr_issue263.heic"])
        var written: [VImage] = []
        for forced in [false, true] {
            if forced { setenv("MEDIABATCH_HEIF_DECODER", "libheif", 1) }
            defer { unsetenv("MEDIABATCH_HEIF_DECODER") }
            let output = Fixtures.temporaryFolder()
            let stages = webStages.replacingOccurrences(of: #""to": "jpeg""#, with: #""to": "png""#)
            let item = try XCTUnwrap(result(try Self.run(try pipeline(stages), input: input, output: output), "iphone_xr_issue263.heic"))
            XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
            XCTAssertEqual(item.decoder, forced ? .libheif : .libavcodec)
            XCTAssertEqual(item.decoderReason, forced ? "MEDIABATCH_HEIF_DECODER=libheif" : nil)
            written.append(try VImage.decode(output.appendingPathComponent(try XCTUnwrap(item.output)).path))
        }
        XCTAssertEqual(written.map { [$0.width, $0.height] }, [[1536, 2048], [1536, 2048]])
        XCTAssertLessThan(try written[0].meanAbsoluteDifference(from: written[1]), 0.5)
    }
}
