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

    func testTranscodeFromLeavesOtherFormatsInTheirOwn() throws {
        let output = Fixtures.temporaryFolder()
        let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 256}, {"stage": "transcode", "from": "heic", "to": "jpeg", "quality": 60}, {"stage": "write"}"#
        let report = try Self.run(try pipeline(stages), input: Fixtures.samples.appendingPathComponent("png"), output: output)
        XCTAssertEqual(report.items.map(\.output), ["macos_screenshot_exif.png"])
        let png = try VImage.open(output.appendingPathComponent("macos_screenshot_exif.png").path)
        XCTAssertEqual([png.width, png.height, png.bands], [256, 205, 4])
        XCTAssertEqual(png.loader, "pngload")
    }

    /// On the iPhone HEIC a third its size (`SmallerSamples`): quality and format are the same on 1 MP as on 12.
    func testQualityAndOutputFormatsAreHonoured() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: SmallerSamples.iPhoneHEIC, toPath: input.appendingPathComponent("IMG_1034.heic").path)
        func convert(to format: String, quality: Int) throws -> (path: String, bytes: Int) {
            let output = Fixtures.temporaryFolder()
            let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 1024}, {"stage": "transcode", "to": "\#(format)", "quality": \#(quality)}, {"stage": "write"}"#
            let report = try Self.run(try pipeline(stages), input: input, output: output)
            let item = try XCTUnwrap(report.items.first { $0.input == "IMG_1034.heic" })
            return (output.appendingPathComponent(item.output!).path, item.bytesOut)
        }
        let low = try convert(to: "jpeg", quality: 30), high = try convert(to: "jpeg", quality: 95)
        XCTAssertLessThan(Double(low.bytes) * 2, Double(high.bytes), "quality reaches the encoder")
        for (format, loader) in [("png", "pngload"), ("webp", "webpload")] {
            let written = try convert(to: format, quality: 80)
            XCTAssertTrue(written.path.hasSuffix(".\(format)"), written.path)
            let image = try VImage.open(written.path)
            XCTAssertEqual(image.loader, loader)
            XCTAssertEqual([image.width, image.height], [1024, 768])
        }
    }

    /// JPEG XL through libvips' `jxlsave` (marked untrusted, unblocked by name for the process
    /// that encodes): outputs that djxl decodes, upright (JPEG XL takes EXIF's orientation as
    /// information), EXIF and XMP in their boxes as exiftool reads them, no location. The iPhone
    /// HEIC a third its size (`SmallerSamples`): libjxl takes seconds a 12 MP picture.
    func testJPEGXLOutputsDecodeAndCarryExifAndXMPWithoutLocation() throws {
        let input = try Self.folder(of: ["jpeg/nikon_d5000_xmp_gps_only.jpg", "jpeg/samsung_gt-i9000_gps00_rot90.jpg"])
        try FileManager.default.copyItem(atPath: SmallerSamples.iPhoneHEIC, toPath: input.appendingPathComponent("IMG_1034.heic").path)
        let output = Fixtures.temporaryFolder()
        let stages = #"{"stage": "decode"}, {"stage": "transcode", "to": "jxl"}, {"stage": "stripLocation"}, {"stage": "write"}"#
        let report = try Self.run(try pipeline(stages, input: #"{"trusted": true}"#), input: input, output: output)
        XCTAssertEqual(report.items.map(\.status), [.ok, .ok, .ok], "\(report.items.compactMap(\.error))")
        for item in report.items {
            let path = output.appendingPathComponent(try XCTUnwrap(item.output)).path
            XCTAssertTrue(path.hasSuffix(".jxl"), path)
            let png = Fixtures.temporaryFolder().appendingPathComponent("decoded.png").path
            let decoded = try runProcess("djxl", [path, png])
            XCTAssertEqual(decoded.exitCode, 0, decoded.stderr)
            let source = try VImage.open(input.appendingPathComponent(item.input).path).upright()
            let back = try VImage.open(png)
            XCTAssertEqual([back.width, back.height], [source.width, source.height], "upright: \(item.input)")
            let tags = try exiftool(path, ["-Model", "-XMP:all", "-Location:all", "-GPS:all", "-Orientation"])
            XCTAssertNotNil(tags["IFD0:Model"], item.input)
            XCTAssertEqual(tags.keys.filter { $0.hasPrefix("GPS") || $0.hasPrefix("Composite:GPS") || $0.contains("City") }, [], item.input)
            XCTAssertNotEqual(tags["IFD0:Orientation"] as? String, "Rotate 90 CW", item.input)
        }
        let nikon = try exiftool(output.appendingPathComponent("nikon_d5000_xmp_gps_only.jxl").path, ["-XMP-xmp:CreatorTool"])
        XCTAssertEqual(nikon["XMP-xmp:CreatorTool"] as? String, "Adobe Bridge CS5", "XMP carried")
    }

    /// At 512 px: the band means of the photo hardly change with its size, and those of a 12 MP
    /// picture take seconds to sum.
    func testDisplayP3OutputMatchesAnSRGBConversionOfIt() throws {
        let output = Fixtures.temporaryFolder()
        let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 512}, {"stage": "transcode", "to": "jpeg"}, "#
            + #"{"stage": "stripLocation"}, {"stage": "write"}"#
        let report = try Self.run(try pipeline(stages), input: try Self.folder(of: ["heic/IMG_1034.heic"]), output: output)
        let written = try VImage.open(output.appendingPathComponent(try XCTUnwrap(report.items.first?.output)).path)
        XCTAssertEqual(written.iccProfile.flatMap(ICCProfile.description)?.hasPrefix("sRGB"), true)
        XCTAssertEqual([written.width, written.height], [512, 384])
        let means = try written.bandMeans()
        // libvips' thumbnail keeps the photo's Display P3; libvips converts it.
        let source = try VImage.thumbnail(of: Fixtures.sample("heic/IMG_1034.heic"), width: 512, height: 384).inMemory()
        XCTAssertEqual(source.iccProfile.flatMap(ICCProfile.description), "Display P3")
        let reference = try source.convertedToSRGB().bandMeans()
        let unconverted = try source.bandMeans()
        for band in 0..<3 {
            XCTAssertEqual(means[band], reference[band], accuracy: 0.6, "band \(band)")
        }
        XCTAssertGreaterThan(abs(means[2] - unconverted[2]), 1.5, "dropping the P3 profile would leave blue here")
    }

    /// Pixel stages shape the picture in any order (see `Picture`): every order writes the same bytes.
    /// On the iPhone HEIC a third its size (`SmallerSamples`), Display P3 as the photo.
    func testEveryStageOrderWritesTheSameSRGBOutput() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: SmallerSamples.iPhoneHEIC, toPath: input.appendingPathComponent("IMG_1034.heic").path)
        let downsample = #"{"stage": "downsample", "maxPixelSize": 640}"#, transcode = #"{"stage": "transcode", "to": "jpeg"}"#
        let strip = #"{"stage": "stripLocation"}"#
        let orders = [[downsample, transcode, strip], [downsample, strip, transcode], [strip, downsample, transcode],
                      [transcode, downsample, strip], [transcode, strip, downsample], [strip, transcode, downsample]]
        var outputs: [Data] = []
        for order in orders {
            let output = Fixtures.temporaryFolder()
            let stages = ([#"{"stage": "decode"}"#] + order + [#"{"stage": "write"}"#]).joined(separator: ", ")
            let report = try Self.run(try pipeline(stages), input: input, output: output)
            let path = output.appendingPathComponent(try XCTUnwrap(report.items.first?.output)).path
            XCTAssertEqual(try VImage.open(path).iccProfile.flatMap(ICCProfile.description)?.hasPrefix("sRGB"), true, "\(order)")
            XCTAssertEqual(try locationTags(path), [], "\(order)")
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        XCTAssertEqual(Set(outputs).count, 1, "the same bytes whatever the order")
    }

    /// The encoders `variants` uses, through `transcode`: AVIF and HEIC at their default qualities.
    func testTranscodesToAVIFAndHEICWithoutLocation() throws {
        for (format, expected) in [("avif", MediaFormat.avif), ("heic", MediaFormat.heic)] {
            let output = Fixtures.temporaryFolder()
            let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 512}, {"stage": "transcode", "to": "\#(format)"}, "#
                + #"{"stage": "stripLocation"}, {"stage": "write"}"#
            let report = try Self.run(try pipeline(stages), input: try Self.folder(of: ["jpeg/samsung_gt-i9000_gps00_rot90.jpg"]), output: output)
            let path = output.appendingPathComponent(try XCTUnwrap(report.items.first?.output, "\(report.items)")).path
            XCTAssertTrue(path.hasSuffix(".\(format)"), path)
            XCTAssertEqual(try FormatSniffer.format(of: path), expected)
            let image = try VImage.open(path)
            XCTAssertEqual(max(image.width, image.height), 512)
            XCTAssertLessThan(image.width, image.height, "\(format): EXIF orientation 6 applied once")
            XCTAssertEqual(try locationTags(path), [], format)
            XCTAssertEqual(try exiftool(path)["IFD0:Model"] as? String, "GT-I9000", format)
        }
    }
}
