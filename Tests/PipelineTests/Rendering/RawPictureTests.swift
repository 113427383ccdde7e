import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// A camera RAW's picture through whole pipelines (worker processes, real LibRaw) on DNGs made
/// from a real photo (`DevelopableDNG`): which source `auto` takes and what the report says, the
/// preview turned once, the develop against `dcraw_emu`'s, and what happens when a source fails
/// or is smaller than asked.
final class RawPictureTests: XCTestCase, RunsPipelines {
    private static let input = Fixtures.temporaryFolder()

    override class func setUp() {
        try! Vips.start()
        // 1200×900 as stored, turned by orientation 6: 900×1200 upright. Its 1024 px preview is
        // stored unturned and says orientation 6 itself, as some cameras' do (Immich #12720).
        try! DevelopableDNG.write(to: input.appendingPathComponent("sideways.dng"), width: 1200, orientation: 6,
                                  preview: 1024, previewOrientation: 6, gps: true)
        // The same with a 384 px preview.
        try! DevelopableDNG.write(to: input.appendingPathComponent("small-preview.dng"), width: 1200, orientation: 6, preview: 384)
        // A 1024 px preview whose JPEG is cut in half.
        try! DevelopableDNG.write(to: input.appendingPathComponent("broken-preview.dng"), width: 1200, preview: 1024, brokenPreview: true)
        // Its sensor data removed but 16 bytes, with a 384 px preview: exiftool's test images are such.
        try! DevelopableDNG.write(to: input.appendingPathComponent("emptied.dng"), width: 1200, preview: 384, emptySensorData: true)
        // Half its sensor data cut off, with a 384 px preview.
        try! DevelopableDNG.write(to: input.appendingPathComponent("cut.dng"), width: 1200, preview: 384, truncate: 0.5)
    }

    private func run(_ name: String, raw: String = "auto", size: Int, to format: String = "png",
                     extra: String = "") throws -> (item: ItemResult, output: URL?) {
        let folder = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(at: Self.input.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        let report = try Self.run(try pipeline("""
            {"stage": "decode", "raw": "\(raw)"}, {"stage": "downsample", "maxPixelSize": \(size)},
            {"stage": "transcode", "to": "\(format)"}\(extra), {"stage": "write"}
            """), input: folder, output: output)
        let item = try XCTUnwrap(result(report, name))
        return (item, item.output.map { output.appendingPathComponent($0) })
    }

    /// 800 px asked, a 1024 px preview: `auto` takes it, turned upright by the RAW's orientation
    /// alone — the photo as shown, not turned twice by the JPEG's own tag as well.
    func testAutoTakesAPreviewLargeEnoughTurnedOnce() throws {
        let (item, output) = try run("sideways.dng", size: 800)
        XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
        XCTAssertEqual(item.rawSource, .init(source: .preview, width: 768, height: 1024))
        let written = try VImage.decode(try XCTUnwrap(output).path)
        XCTAssertEqual([written.width, written.height], [600, 800])
        let shown = try DevelopableDNG.photoAsShown(width: 1200, orientation: 6, longestSide: 800)
        XCTAssertLessThan(try written.meanAbsoluteDifference(from: shown), 4)
        XCTAssertGreaterThan(try written.meanAbsoluteDifference(from: try shown.oriented(3)), 20, "turned twice would be upside down")
    }

    /// More than the preview asked: a full develop, and where no resize is needed, the very
    /// pixels `dcraw_emu -w -o 1 -q 3` writes; 600 px, half the sensor: a half-size develop,
    /// `dcraw_emu -h`'s.
    func testAutoDevelopsWhenThePreviewIsTooSmallAtHalfSizeWhereHalfIsEnough() throws {
        let path = Self.input.appendingPathComponent("small-preview.dng").path
        for (size, halfSize) in [(1200, false), (600, true)] {
            let (item, output) = try run("small-preview.dng", size: size)
            let upright = halfSize ? [450, 600] : [900, 1200]
            XCTAssertEqual(item.rawSource, .init(source: .develop, width: upright[0], height: upright[1], halfSize: halfSize))
            let written = try VImage.decode(try XCTUnwrap(output).path)
            XCTAssertEqual([written.width, written.height], upright)
            XCTAssertLessThanOrEqual(try written.meanAbsoluteDifference(from: try DevelopableDNG.reference(path, halfSize: halfSize)), 1)
        }
        XCTAssertEqual(try run("small-preview.dng", size: 601).item.rawSource?.halfSize, false, "more than half: full size")
    }

    /// `develop` develops even where the preview would do.
    func testDevelopAlwaysDevelops() throws {
        XCTAssertEqual(try run("sideways.dng", raw: "develop", size: 500).item.rawSource,
                       .init(source: .develop, width: 450, height: 600, halfSize: true))
    }

    /// `preview` takes it even smaller than asked: written as it is, never enlarged, and the
    /// report says what the stages asked (2000 px, never upscaled: the RAW's own 1200).
    func testPreviewSmallerThanAskedIsWrittenAsItIsAndReported() throws {
        let (item, output) = try run("sideways.dng", raw: "preview", size: 2000)
        XCTAssertEqual(item.status, .ok)
        XCTAssertEqual(item.rawSource, .init(source: .preview, width: 768, height: 1024, asked: 1200))
        let written = try VImage.decode(try XCTUnwrap(output).path)
        XCTAssertEqual([written.width, written.height], [768, 1024])
    }

    /// A RAW cut off, or emptied of its sensor data: its develop is known to fail from its
    /// directories; `auto` then has only a preview smaller than asked, and the item fails naming
    /// both reasons. Asked for no more than the preview, it is written.
    func testAFailedDevelopWithATooSmallPreviewFailsNamingBoth() throws {
        let failed = try run("cut.dng", size: 1000).item
        XCTAssertEqual(failed.status, .failed)
        XCTAssertEqual(failed.error?.code, .decodeFailed)
        let message = failed.error?.message ?? ""
        XCTAssertTrue(message.hasPrefix("LibRaw cannot develop it: the file is cut off (its image data reach byte "), message)
        XCTAssertTrue(message.hasSuffix("; and its embedded preview, 384×288, is smaller than the 1000 px needed"), message)
        let emptied = try run("emptied.dng", size: 1000).item
        XCTAssertEqual(emptied.error?.message, "LibRaw cannot develop it: its sensor data are 16 bytes, fewer than a bit a sample "
                                               + "(135000 bytes): they were removed; and its embedded preview, 384×288, is smaller than the 1000 px needed")
        let small = try run("cut.dng", size: 300)
        XCTAssertEqual(small.item.rawSource, .init(source: .preview, width: 384, height: 288))
        XCTAssertEqual(try VImage.decode(try XCTUnwrap(small.output).path).width, 300)
    }

    /// `auto` takes a preview large enough; when it does not decode, the develop is the picture,
    /// and the report says why. `preview` has no other source: the item fails.
    func testAPreviewThatDoesNotDecodeFallsBackToTheDevelop() throws {
        let (item, output) = try run("broken-preview.dng", size: 600)
        XCTAssertEqual(item.status, .ok, item.error?.message ?? "")
        XCTAssertEqual(item.rawSource?.source, .develop)
        XCTAssertEqual(item.rawSource?.halfSize, true)
        XCTAssertEqual(item.rawSource?.fallbackReason?.hasPrefix("cannot decode its embedded preview: "), true, item.rawSource?.fallbackReason ?? "")
        XCTAssertEqual(try VImage.decode(try XCTUnwrap(output).path).width, 600)
        let failed = try run("broken-preview.dng", raw: "preview", size: 600).item
        XCTAssertEqual(failed.error?.code, .decodeFailed)
        XCTAssertEqual(failed.error?.message.hasPrefix("cannot decode its embedded preview: "), true, failed.error?.message ?? "")
    }

    /// The RAW's EXIF goes to its outputs (orientation 1: the pixels are upright), its location
    /// only where no stage strips it.
    func testTheRawsMetadataGoesToItsOutputs() throws {
        let kept = try XCTUnwrap(run("sideways.dng", size: 800, to: "jpeg").output)
        let tags = try exiftool(kept.path, ["-n"])
        XCTAssertEqual(tags["IFD0:Model"] as? String, "Test Camera")
        XCTAssertEqual(tags["ExifIFD:DateTimeOriginal"] as? String, "2024:05:01 10:11:12")
        XCTAssertEqual(tags["IFD0:Orientation"] as? Int, 1)
        XCTAssertEqual(tags["GPS:GPSLatitude"] as? Double ?? 0, 49.18, accuracy: 0.001)
        let stripped = try XCTUnwrap(run("sideways.dng", size: 800, to: "jpeg", extra: #", {"stage": "stripLocation"}"#).output)
        XCTAssertEqual(try locationTags(stripped.path), [])
        XCTAssertEqual(try exiftool(stripped.path)["IFD0:Model"] as? String, "Test Camera")
    }
}
