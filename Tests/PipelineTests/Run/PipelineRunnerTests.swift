import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Runs pipelines in-process over real files and reads the outputs back with libvips and exiftool.
final class PipelineRunnerTests: XCTestCase, RunsPipelines {
    static var quickstartOutput: URL!
    static var quickstartReport: RunReport!

    override class func setUp() {
        try! Vips.start()
        let pipeline = try! Pipeline.load(contentsOf: Fixtures.pipelines.appendingPathComponent("quickstart.json"))
        quickstartOutput = Fixtures.temporaryFolder("quickstart")
        quickstartReport = try! run(pipeline, input: Fixtures.samples, output: quickstartOutput)
    }

    func testBrokenFilesFailClearlyAndTheRestSucceed() throws {
        let input = Fixtures.temporaryFolder("broken-input")
        for name in try FileManager.default.contentsOfDirectory(atPath: Fixtures.broken.path) where name != "MANIFEST.tsv" {
            try FileManager.default.copyItem(at: Fixtures.broken.appendingPathComponent(name), to: input.appendingPathComponent(name))
        }
        for sample in ["jpeg/apple_iphone_4.jpg", "heic/IMG_1034.heic"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample),
                                             toPath: input.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        let output = Fixtures.temporaryFolder("broken-output")
        // One at a time: libvips has one error buffer per process, so under concurrency a message
        // can carry another item's lines (codes and stages are exact either way).
        let report = try Self.run(try pipeline(#"{"stage": "filter", "match": {"any": ["images", "videos"]}}, "# + webStages),
                                  input: input, output: output, concurrency: 1)
        // Its thumbnail item has no data: libheif 1.15 refuses the header, 1.23 reads it and fails on
        // the primary image's 8 bytes of HEVC when pixels are decoded (at write).
        let headerReads = (try? VImage.open(Fixtures.broken.appendingPathComponent("heif_item_without_data.heif").path)) != nil
        let expected: [String: (ItemError.Code, String)] = [
            "empty.heic": (.unsupportedFormat, "decode"),
            "corrupted.heic": (.decodeFailed, "decode"),
            "truncated.heic": (.decodeFailed, "decode"),
            "heif_item_without_data.heif": (.decodeFailed, headerReads ? "write" : "decode"),
            "corrupt-header.jpg": (.decodeFailed, "decode"),
            "IMG_1034_truncated_60pct.heic": (.decodeFailed, "decode"),
            "Landscape_1_truncated_200k.jpg": (.decodeFailed, "write"),
            "iphone6_with-gps_truncated_50pct.mov": (.decodeFailed, "decode"),
        ]
        for (name, (code, stage)) in expected {
            let item = result(report, name)
            XCTAssertEqual(item?.status, .failed, name)
            XCTAssertEqual(item?.error?.code, code, "\(name): \(item?.error?.message ?? "")")
            XCTAssertEqual(item?.error?.stage, stage, name)
            XCTAssertFalse(item?.error?.message.isEmpty ?? true, name)
        }
        XCTAssertEqual(result(report, "apple_iphone_4.jpg")?.status, .ok)
        XCTAssertEqual(result(report, "IMG_1034.heic")?.status, .ok)
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        XCTAssertEqual(written, [".mediabatch", "IMG_1034.jpg", "apple_iphone_4.jpg"], "no partial outputs")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path + "/.mediabatch/tmp/all"), [], "no temporary files")
        XCTAssertTrue(result(report, "empty.heic")?.error?.message.contains("empty") ?? false)
        let truncated = result(report, "Landscape_1_truncated_200k.jpg")?.error?.message ?? ""
        XCTAssertTrue(truncated.lowercased().contains("premature end"), truncated) // libjpeg-turbo's words, or libvips 8.16's
    }

    func testOnErrorStopStopsAdmittingAfterTheFirstFailure() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.broken.appendingPathComponent("corrupt-header.jpg").path,
                                         toPath: input.appendingPathComponent("1-broken.jpg").path)
        for index in 2...5 {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("\(index).jpg").path)
        }
        let stopped = try Self.run(try pipeline(webStages, onError: "stop"), input: input, output: Fixtures.temporaryFolder(), concurrency: 1)
        XCTAssertEqual(stopped.totals.failed, 1)
        XCTAssertEqual(stopped.totals.ok, 0)
        XCTAssertTrue(stopped.stoppedByFailure)
        XCTAssertTrue(stopped.summary.line.hasSuffix("; stopped after a failure (onError: stop)"), stopped.summary.line)
        let continued = try Self.run(try pipeline(webStages), input: input, output: Fixtures.temporaryFolder(), concurrency: 1)
        XCTAssertEqual([continued.totals.failed, continued.totals.ok], [1, 4])
        XCTAssertFalse(continued.stoppedByFailure)
    }

    func testTheOutputRootCannotBeTheInputRoot() throws {
        let folder = Fixtures.temporaryFolder()
        XCTAssertThrowsError(try Self.run(try pipeline(webStages), input: folder, output: folder)) { error in
            XCTAssertEqual("\(error)", "the output root \(folder.path) is the input root: outputs would become inputs of the next run")
        }
    }

    static let imageSamples = [
        "heic/IMG_1034.heic", "heic/iphone_xr_issue263.heic", "jpeg/apple_iphone_4.jpg",
        "jpeg/samsung_gt-i9000_gps00_rot90.jpg", "png/macos_screenshot_exif.png", "webp/iphone_x_exif_gps.webp",
        "livephoto/train.jpg", "jpeg/canon_eos_7d_iptc_city.jpg", "jpeg/iptc_reference_2019.jpg",
        "jpeg/nikon_d5000_xmp_gps_only.jpg", "heic/L_exif_xmp_iptc.heic", "heic/pug.heic",
    ] + (1...8).map { "jpeg/orientation/Landscape_\($0).jpg" }

    func testEverySampleImageBecomesAnUprightSRGBJPEGWithinTheLimit() throws {
        let report = Self.quickstartReport!
        XCTAssertEqual(report.totals.failed, 0, "\(report.items.filter { $0.status == .failed })")
        // The filter says "images"; the Live Photo's movie goes along with its still.
        XCTAssertEqual(report.totals.ok, Self.imageSamples.count + 1)
        XCTAssertEqual(result(report, "livephoto/train.mov")?.output, "livephoto/train.mov")
        // Their profiles from one exiftool process.
        let profiles = try exiftool(Self.imageSamples.compactMap { result(report, $0)?.output }.map { Self.quickstartOutput.appendingPathComponent($0).path },
                                    ["-ICC_Profile:ProfileDescription"])
        for input in Self.imageSamples {
            guard let item = result(report, input), let output = item.output else { XCTFail("no output for \(input)"); continue }
            XCTAssertEqual(item.status, .ok, input)
            XCTAssertTrue(output.hasSuffix(".jpg"), output)
            let image = try VImage.open(Self.quickstartOutput.appendingPathComponent(output).path)
            XCTAssertEqual(image.loader, "jpegload", input)
            XCTAssertLessThanOrEqual(max(image.width, image.height), 2048, input)
            XCTAssertEqual(image.orientation, 1, input)
            let profile = try XCTUnwrap(profiles[Self.quickstartOutput.appendingPathComponent(output).path], input)["ICC_Profile:ProfileDescription"] as? String
            XCTAssertTrue(profile == nil || profile!.contains("sRGB"), "\(input): profile \(profile ?? "")")
        }
        let heicSizes = try ["heic/IMG_1034.jpg", "heic/iphone_xr_issue263.jpg"].map {
            let image = try VImage.open(Self.quickstartOutput.appendingPathComponent($0).path)
            return [image.width, image.height]
        }
        XCTAssertEqual(heicSizes, [[2048, 1536], [1536, 2048]], "grid HEIC assembled; irot 270 applied")
        XCTAssertEqual(result(report, "video/iphone6_with-gps.mov")?.status, .skipped)
    }

    func testLocationIsGoneAndCameraMetadataStays() throws {
        let withGPS = ["heic/IMG_1034.heic", "heic/iphone_xr_issue263.heic", "jpeg/apple_iphone_4.jpg",
                       "jpeg/samsung_gt-i9000_gps00_rot90.jpg", "webp/iphone_x_exif_gps.webp"]
        let locationBefore = try locationTags(withGPS.map(Fixtures.sample))
        for input in withGPS {
            XCTAssertFalse(try XCTUnwrap(locationBefore[Fixtures.sample(input)], input).isEmpty, "\(input) carries location to begin with")
        }
        let livePhotoStill = try exiftool(Self.quickstartOutput.appendingPathComponent("livephoto/train.jpg").path)
        XCTAssertEqual(livePhotoStill["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
        // One exiftool process for all the inputs, one for all the outputs, one for the outputs' location.
        let written = Self.imageSamples.compactMap { input in
            result(Self.quickstartReport, input)?.output.map { (input, Self.quickstartOutput.appendingPathComponent($0).path) }
        }
        let (tagsBefore, tagsAfter) = (try exiftool(written.map { Fixtures.sample($0.0) }), try exiftool(written.map(\.1)))
        let locationAfter = try locationTags(written.map(\.1))
        for (input, outputPath) in written {
            XCTAssertEqual(try XCTUnwrap(locationAfter[outputPath], input), [], input)
            let before = try XCTUnwrap(tagsBefore[Fixtures.sample(input)], input), after = try XCTUnwrap(tagsAfter[outputPath], input)
            for tag in ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "IFD0:Copyright"] where before[tag] != nil {
                XCTAssertEqual("\(after[tag] ?? "missing")", "\(before[tag]!)", "\(input) \(tag)")
            }
            // The Apple MakerNote, Live Photo identifier (MediaGroupUUID) included, comes through whole.
            for (tag, value) in before where tag.hasPrefix("Apple:") {
                XCTAssertEqual("\(after[tag] ?? "missing")", "\(value)", "\(input) \(tag)")
            }
        }
        let iphone = try VImage.open(Self.quickstartOutput.appendingPathComponent("heic/IMG_1034.jpg").path)
        XCTAssertEqual(iphone.fieldNames.filter { $0.hasPrefix("exif-ifd3-") }, [], "libvips reads no GPS back either")
        XCTAssertEqual(iphone.string("exif-ifd0-Model")?.hasPrefix("iPhone 8"), true)
    }
}
