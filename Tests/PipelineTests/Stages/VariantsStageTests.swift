import Foundation
@testable import MediaBatchCore
import MediaFormats
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The variants stage on real photos: every size in every format, each variant's format (from
/// its bytes), pixels, orientation and colour checked against libvips' own thumbnail of the
/// same size, no location, oversize sizes collapsed, and a manifest equal to the files on disk
/// through first, unchanged, extended, pruned and sharded runs.
final class VariantsStageTests: XCTestCase, RunsPipelines {
    static let samples = ["heic/IMG_1034.heic", "heic/iphone_xr_issue263.heic", "jpeg/orientation/Landscape_6.jpg",
                          "webp/iphone_x_exif_gps.webp", "png/macos_screenshot_exif.png", "livephoto/train.jpg"]
    static var input: URL!
    static var output: URL!
    static var report: RunReport!

    override class func setUp() {
        try! Vips.start()
        input = try! folder(of: samples)
        output = Fixtures.temporaryFolder("variants")
        report = try! run(try! pipeline(stages(sizes: [320, 900], formats: ["jpeg", "webp", "avif", "png"])), input: input, output: output)
    }

    static func stages(sizes: [Int], formats: [String], path: String = "{stem}-{size}.{ext}", extra: String = "") -> String {
        let list = formats.map { "\"\($0)\"" }.joined(separator: ", ")
        return #"{"stage": "filter", "match": "images"}, {"stage": "decode"}, "#
            + #"{"stage": "variants", "sizes": \#(sizes), "formats": [\#(list)]\#(extra)}, {"stage": "stripLocation"}, "#
            + #"{"stage": "write", "path": "\#(path)"}"#
    }

    func testSizesAtOrAboveTheLongestSideCollapseIntoOne() throws {
        let output = Fixtures.temporaryFolder()
        let input = try Self.folder(of: ["jpeg/orientation/Landscape_1.jpg"])
        let report = try Self.run(try pipeline(Self.stages(sizes: [4096, 640, 1800, 2048], formats: ["jpeg"])), input: input, output: output)
        let variants = try XCTUnwrap(report.items.first?.variants)
        XCTAssertEqual(variants.map(\.size), [640, 1800], "1800, 2048 and 4096 are the source's own 1800 px: once, under 1800")
        XCTAssertEqual(variants.map { [$0.width, $0.height] }, [[640, 427], [1800, 1200]])
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(written, ["Landscape_1-1800.jpg", "Landscape_1-640.jpg"])
    }

    /// libwebp's method reaches the encoder: effort 0 writes a larger file than effort 6, and
    /// the picture is the same.
    func testWebPEffortTradesBytesForTime() throws {
        let input = try Self.folder(of: ["jpeg/orientation/Landscape_1.jpg"])
        var written: [Int: URL] = [:]
        for effort in [0, 6] {
            let output = Fixtures.temporaryFolder()
            let report = try Self.run(try pipeline(Self.stages(sizes: [900], formats: ["webp"], extra: #", "effort": {"webp": \#(effort)}"#)),
                                      input: input, output: output)
            let variant = try XCTUnwrap(report.items.first?.variants?.first)
            written[effort] = output.appendingPathComponent(variant.path)
        }
        let fast = try VImage.open(written[0]!.path).inMemory(), small = try VImage.open(written[6]!.path).inMemory()
        let bytes = try written.mapValues { try Data(contentsOf: $0).count }
        XCTAssertGreaterThan(Double(bytes[0]!), 1.05 * Double(bytes[6]!), "effort 0 skips the search that makes files smaller")
        // Two lossy encodes of one picture differ by a few levels (3.0 with Debian 13's libwebp 1.5); another
        // picture, orientation or colour, by tens.
        XCTAssertLessThan(try fast.meanAbsoluteDifference(from: small), 6, "the same picture")
    }

    func testAVariantItsFormatCannotHoldFailsTheItemNamingTheVariantAndPublishesNothing() throws {
        let input = Fixtures.temporaryFolder()
        // WebP stops at 16383 pixels a side: the 17000 px variant cannot be written; its JPEG and the small ones could.
        let wide = try VImage.thumbnail(of: Fixtures.sample("jpeg/orientation/Landscape_1.jpg"), width: 17000, height: 20)
        try wide.write(to: input.appendingPathComponent("panorama.png").path, as: .png)
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(Self.stages(sizes: [100, 17000], formats: ["jpeg", "webp"])), input: input, output: output)
        let failed = try XCTUnwrap(report.items.first)
        XCTAssertEqual(failed.error?.code, .tooLargeForFormat)
        XCTAssertEqual(failed.error?.message.hasPrefix("cannot write panorama-17000.webp: webp holds at most 16383 pixels a side, "
                                                       + "and this picture would be 17000×20"), true, failed.error?.message ?? "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }, [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path), [])
    }

    /// libvips' own thumbnail of the input at the variant's pixels, in sRGB: the reference.
    func reference(_ input: String, _ width: Int, _ height: Int) throws -> VImage {
        try SRGB.converting(VImage.thumbnail(of: Self.input.appendingPathComponent(input).path, width: width, height: height)).inMemory()
    }

    func testEveryVariantIsItsFormatUprightSRGBAndWithoutLocation() throws {
        XCTAssertEqual(Self.report.totals.failed, 0, "\(Self.report.items.filter { $0.status == .failed })")
        // The WebP is 320 × 240: 320 and 900 are both its own size, one variant.
        XCTAssertEqual(Self.report.totals.outputs, 5 * 2 * 4 + 4)
        let expectedFormats: [String: MediaFormat] = ["jpeg": .jpeg, "webp": .webp, "avif": .avif, "png": .png]
        let paths = Self.report.items.flatMap { $0.variants ?? [] }.map { Self.output.appendingPathComponent($0.path).path }
        let locations = try locationTags(paths)
        for item in Self.report.items {
            let variants = try XCTUnwrap(item.variants, item.input)
            let sizes: [VariantSize] = item.input.hasSuffix(".webp") ? [320] : [320, 900]
            XCTAssertEqual(variants.map(\.size), sizes.flatMap { Array(repeating: $0, count: 4) }, item.input)
            // One reference a size, for its four formats: a HEIC's takes a decode of the whole photo.
            var references: [[Int]: VImage] = [:]
            for variant in variants {
                let path = Self.output.appendingPathComponent(variant.path).path
                XCTAssertEqual(try FormatSniffer.format(of: path), expectedFormats[variant.format], variant.path)
                let image = try VImage.open(path)
                XCTAssertEqual([image.width, image.height], [variant.width, variant.height], variant.path)
                XCTAssertLessThanOrEqual(max(image.width, image.height), variant.size?.box.width ?? 0, "\(variant.path): never upscaled")
                XCTAssertEqual(image.orientation, 1, variant.path)
                let size = [variant.width, variant.height]
                let reference = try references[size] ?? reference(item.input, variant.width, variant.height)
                references[size] = reference
                let difference = try image.inMemory().meanAbsoluteDifference(from: reference)
                // Lossy encoders at q62–80 differ by a few levels (a screenshot's text at 320 px: 6); a wrong
                // orientation or colour, by tens (see below).
                XCTAssertLessThan(difference, variant.format == "png" ? 1 : 8, "\(variant.path): upright, sRGB, the same picture")
                XCTAssertEqual(try XCTUnwrap(locations[path], variant.path), [], variant.path)
            }
        }
    }

    func testOrientationIsAppliedOnceWhateverTheContainer() throws {
        let sideways = try XCTUnwrap(result(Self.report, "Landscape_6.jpg")?.variants?.last)
        XCTAssertEqual([sideways.width, sideways.height], [900, 600], "EXIF orientation 6 turns 1200×1800 upright")
        let rotated = try XCTUnwrap(result(Self.report, "iphone_xr_issue263.heic")?.variants?.last)
        XCTAssertEqual([rotated.width, rotated.height], [675, 900], "libheif applies irot; nothing turns it again")
        // The same scene stored upright; turned half a turn, it differs by tens of levels: the check can fail.
        let upright = try VImage.open(Self.output.appendingPathComponent("Landscape_6-900.png").path)
        let scene = try VImage.thumbnail(of: Fixtures.sample("jpeg/orientation/Landscape_1.jpg"), width: 900, height: 600).inMemory()
        XCTAssertLessThan(try upright.meanAbsoluteDifference(from: scene), 3)
        let turned = try scene.samples().chunked(by: scene.bands).reversed().flatMap { $0 }
        XCTAssertGreaterThan(try VImage.meanAbsoluteDifference(upright.samples(), upright.bands, turned, scene.bands), 20)
    }

    func testDisplayP3BecomesSRGBAndCameraMetadataStays() throws {
        let avif = Self.output.appendingPathComponent("IMG_1034-900.avif").path
        XCTAssertEqual(try VImage.open(avif).iccProfile.flatMap(ICCProfile.description)?.hasPrefix("sRGB"), true)
        let source = try VImage.open(Fixtures.sample("heic/IMG_1034.heic"))
        XCTAssertEqual(source.iccProfile.flatMap(ICCProfile.description), "Display P3")
        for name in ["IMG_1034-900.jpg", "IMG_1034-900.webp", "IMG_1034-320.avif"] {
            let tags = try exiftool(Self.output.appendingPathComponent(name).path)
            XCTAssertEqual(tags["IFD0:Model"] as? String, "iPhone 8", name)
        }
        for name in ["train-320.jpg", "train-320.webp", "train-900.png"] {
            let still = try exiftool(Self.output.appendingPathComponent(name).path)
            XCTAssertEqual(still["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02", "\(name): Live Photo identifier kept")
            XCTAssertNil(still["ExifTool:Warning"], "\(name): \(still["ExifTool:Warning"] ?? "")")
        }
    }
}

private extension Array {
    func chunked(by size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
