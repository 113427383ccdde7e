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

    func testItemsOverMaxPixelsFailBeforeDecoding() throws {
        let report = try Self.run(try pipeline(webStages, limits: #"{"maxPixels": 3000000}"#),
                                  input: Fixtures.samples.appendingPathComponent("heic"), output: Fixtures.temporaryFolder())
        XCTAssertEqual(report.totals.failed, 3)
        XCTAssertEqual(report.items.filter { $0.error?.code == .tooManyPixels }.map(\.input).sorted(),
                       ["IMG_1034.heic", "iphone_xr_issue263.heic", "pug.heic"])
        XCTAssertEqual(result(report, "L_exif_xmp_iptc.heic")?.status, .ok, "64×64 is under the limit")
        XCTAssertEqual(report.items.first?.error?.message, "4032×3024 is 12192768 pixels, over limits.maxPixels (3000000)")
    }

    func testHeaderBombsFailOnTheirHeaderBeforeAnyPixelIsDecoded() throws {
        let input = Fixtures.temporaryFolder()
        try HostileFiles.pngHeaderBomb(width: 100_000, height: 100_000).write(to: input.appendingPathComponent("bomb.png"))
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("jpeg/apple_iphone_4.jpg")))
        try XCTUnwrap(HostileFiles.jpegClaiming(width: 65_500, height: 65_500, from: jpeg)).write(to: input.appendingPathComponent("huge.jpg"))
        try HostileFiles.gifAnimation(frames: 10_000).write(to: input.appendingPathComponent("frames.gif"))
        try HostileFiles.gifAnimation(frames: 3).write(to: input.appendingPathComponent("small.gif"))
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "write"}"#), input: input, output: output)
        XCTAssertEqual(result(report, "bomb.png")?.error?.code, .tooManyPixels)
        XCTAssertEqual(result(report, "bomb.png")?.error?.message,
                       "100000×100000 is 10000000000 pixels, over limits.maxPixels (1073741824, its default where the decoder streams)")
        XCTAssertEqual(result(report, "huge.jpg")?.error?.code, .tooManyPixels)
        XCTAssertEqual(result(report, "frames.gif")?.error?.code, .tooManyFrames)
        // libvips' GIF loader stops counting past 4096 frames: the count is "more than the limit", not exact.
        XCTAssertEqual(result(report, "frames.gif")?.error?.message.hasSuffix("frames, over limits.maxFrames (1000)"), true)
        XCTAssertEqual(result(report, "small.gif")?.status, .ok)
        XCTAssertEqual(report.items.compactMap(\.estimatedBytes).count, 1, "only the small GIF was admitted")
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(written, ["small.gif"])
    }

    /// Past a whole frame's default, a picture whose decoder streams is admitted (a 17000 × 17000
    /// JPEG, made by libvips, shrunk on load) while a header declaring 900 million pixels in a few
    /// bytes is refused as a bomb, naming both; a `maxPixels` of the pipeline's own applies to all.
    func testAStreamedPictureOverAWholeFramesLimitRunsAndABombUnderItsLimitDoesNot() throws {
        let input = Fixtures.temporaryFolder()
        _ = try runProcess("vips", ["black", input.appendingPathComponent("scan.jpg").path, "17000", "17000"])
        let bomb = HostileFiles.pngHeaderBomb(width: 30_000, height: 30_000)
        try bomb.write(to: input.appendingPathComponent("bomb.png"))
        let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 2048}, {"stage": "write"}"#
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        XCTAssertEqual(result(report, "scan.jpg")?.status, .ok, "\(String(describing: result(report, "scan.jpg")?.error))")
        let scan = try VImage.open(output.appendingPathComponent("scan.jpg").path)
        XCTAssertEqual([scan.width, scan.height], [2048, 2048])
        XCTAssertEqual(result(report, "bomb.png")?.error?.message, "30000×30000 is 900000000 pixels from \(bomb.count) bytes, "
                       + "over 1024 pixels a byte: a decompression bomb (setting limits.maxPixels admits it)")
        let limited = try Self.run(try pipeline(stages, limits: #"{"maxPixels": 268402689}"#), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(limited, "scan.jpg")?.error?.message, "17000×17000 is 289000000 pixels, over limits.maxPixels (268402689)")
    }

    private let stage = DecodeStage()
    /// libvips' TIFF loader would read a RAW's first directory, its 8×6 thumbnail, and call it the
    /// photo: every camera RAW goes to LibRaw, which develops the 32×24 sensor data (its 8×6
    /// thumbnail is too small for `auto`); a CR3 whose sensor data is not Canon's is skipped as
    /// unsupported, naming LibRaw; a TIFF image is still read by libvips.
    func testACameraRawIsDevelopedByLibRawNeverReadAsItsThumbnail() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        try CameraRawFile.writeCameraFolder(input, withLocation: false)
        try FileManager.default.copyItem(atPath: Fixtures.fixtures.appendingPathComponent("metadata/tiff-location-everywhere.tif").path,
                                         toPath: input.appendingPathComponent("scan.tif").path)
        let report = try Self.run(try pipeline(webStages), input: input, output: output)
        XCTAssertEqual(result(report, "scan.tif")?.status, .ok)
        for (name, format) in [("IMG_0001.DNG", "dng"), ("DSC_0002.NEF", "nef"), ("IMG_0003.CR2", "cr2")] {
            let item = try XCTUnwrap(result(report, name))
            XCTAssertEqual(item.format, format, name)
            XCTAssertEqual(item.rawSource, .init(source: .develop, width: 32, height: 24, halfSize: false), name)
            let written = try VImage.open(output.appendingPathComponent(try XCTUnwrap(item.output, name)).path)
            XCTAssertEqual([written.width, written.height], [32, 24], name)
        }
        let cr3 = try XCTUnwrap(result(report, "IMG_0004.CR3"))
        XCTAssertEqual(cr3.status, .failed, "a format this build decodes that LibRaw cannot read is not 'unsupported'")
        XCTAssertEqual(cr3.error?.code, .decodeFailed)
        XCTAssertEqual(cr3.error?.message.hasPrefix("LibRaw cannot read this cr3 (damaged, or from a camera this LibRaw does not know): "), true,
                       cr3.error?.message ?? "")
    }

    /// A stub CR2 (its 16-byte header, then zeros: LibRaw's "unsupported file format") fails the
    /// item with LibRaw's reason instead of being skipped as a format this build cannot decode.
    func testADamagedRawFailsTheItemAsADecodeFailure() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        let whole = try CameraRawFile.cr2.write(to: input.appendingPathComponent("IMG_0001.CR2").path)
        try Data(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(16) + Data(count: 4096)).write(to: input.appendingPathComponent("stub.CR2"))
        let report = try Self.run(try pipeline(webStages), input: input, output: output)
        XCTAssertEqual(result(report, "IMG_0001.CR2")?.status, .ok)
        let stub = try XCTUnwrap(result(report, "stub.CR2"))
        XCTAssertEqual(stub.status, .failed)
        XCTAssertEqual(stub.error?.code, .decodeFailed, "\(stub)")
        XCTAssertEqual(stub.error?.message.hasPrefix("LibRaw cannot read this cr2 (damaged"), true, stub.error?.message ?? "")
    }

    func testAJPEGOfAnAnimationIsItsFirstFrameAndTheReportSaysSo() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        try Animations.make(in: input)
        let report = try Self.run(try pipeline(#"""
            {"stage": "decode"}, {"stage": "variants", "sizes": [120], "formats": ["webp", "jpeg"]}, {"stage": "write", "path": "{stem}.{ext}"}
            """#, input: #"{"include": ["*.gif"]}"#), input: input, output: output)
        let item = try XCTUnwrap(result(report, "animation-gif.gif"))
        XCTAssertEqual(item.firstFrameOnly, "5 frames, the first written: jpeg does not animate")
        let jpeg = try Animations.read(output.appendingPathComponent("animation-gif.jpg"), against: input.appendingPathComponent("animation-gif.gif"))
        XCTAssertEqual([jpeg.frames, jpeg.width, jpeg.frameHeight], [1, 120, 80])
        XCTAssertLessThanOrEqual(jpeg.meanDifferences.first ?? .infinity, 1.0, "the first frame: \(jpeg.meanDifferences)")
        XCTAssertEqual(try Animations.read(output.appendingPathComponent("animation-gif.webp"), against: input.appendingPathComponent("animation-gif.gif")).frames, 5)
    }

    func testAnimatedFalseTakesTheFirstFrameOnly() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        try Animations.make(in: input)
        let report = try Self.run(try pipeline(#"""
            {"stage": "decode", "animated": false}, {"stage": "downsample", "maxPixelSize": 120}, {"stage": "write"}
            """#), input: input, output: output)
        for name in ["animation-gif.gif", "animation-webp.webp"] {
            XCTAssertEqual(result(report, name)?.firstFrameOnly, "5 frames, the first written: decode's animated is false")
            let read = try Animations.read(output.appendingPathComponent(name), against: input.appendingPathComponent(name))
            XCTAssertEqual([read.frames, read.width, read.frameHeight], [1, 120, 80], name)
            XCTAssertLessThanOrEqual(read.meanDifferences.first ?? .infinity, name.hasSuffix(".gif") ? 2.0 : 1.0, "\(name): \(read.meanDifferences)")
        }
    }

    func testAnAnimationOverMaxFramesFailsOnItsHeader() throws {
        let input = Fixtures.temporaryFolder()
        try Animations.make(in: input)
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 100}, {"stage": "write"}"#,
                                               limits: #"{"maxFrames": 4}"#), input: input, output: Fixtures.temporaryFolder())
        for name in ["animation-gif.gif", "animation-webp.webp"] {
            XCTAssertEqual(result(report, name)?.error?.code, .tooManyFrames, name)
            XCTAssertEqual(result(report, name)?.error?.message, "5 frames, over limits.maxFrames (4)", name)
            XCTAssertNil(result(report, name)?.estimatedBytes, "refused before admission: \(name)")
        }
    }
}
