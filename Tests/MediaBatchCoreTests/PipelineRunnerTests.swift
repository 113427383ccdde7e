import Foundation
@testable import MediaBatchCore
import PipelineModel
import TestSupport
import VipsKit
import XCTest

/// Runs pipelines in-process over real files and reads the outputs back with libvips and exiftool.
final class PipelineRunnerTests: XCTestCase {
    static var quickstartOutput: URL!
    static var quickstartReport: RunReport!

    override class func setUp() {
        try! Vips.start()
        let pipeline = try! Pipeline.load(contentsOf: Fixtures.pipelines.appendingPathComponent("quickstart.json"))
        quickstartOutput = Fixtures.temporaryFolder("quickstart")
        quickstartReport = try! run(pipeline, input: Fixtures.samples, output: quickstartOutput)
    }

    static func run(_ pipeline: Pipeline, input: URL, output: URL, concurrency: Int = 2, statePath: URL? = nil) throws -> RunReport {
        var options = RunOptions(inputRoot: input, outputRoot: output, concurrency: concurrency,
                                 memoryBudget: pipeline.limits.memoryBudget, pipelineName: "test")
        options.statePath = statePath
        return try PipelineRunner(pipeline: pipeline, options: options).run()
    }

    func pipeline(_ stages: String, limits: String = "{}") throws -> Pipeline {
        try Pipeline.decode(Data(#"{"version": 1, "limits": \#(limits), "stages": [\#(stages)]}"#.utf8),
                            baseDirectory: Fixtures.repositoryRoot)
    }

    let webStages = """
        {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 2048},
        {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write"}
        """

    func result(_ report: RunReport, _ input: String, file: StaticString = #filePath, line: UInt = #line) -> ItemResult? {
        let found = report.items.first { $0.input == input }
        XCTAssertNotNil(found, "no report entry for \(input)", file: file, line: line)
        return found
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
        for input in Self.imageSamples {
            guard let item = result(report, input), let output = item.output else { XCTFail("no output for \(input)"); continue }
            XCTAssertEqual(item.status, .ok, input)
            XCTAssertTrue(output.hasSuffix(".jpg"), output)
            let image = try VImage.open(Self.quickstartOutput.appendingPathComponent(output).path)
            XCTAssertEqual(image.loader, "jpegload", input)
            XCTAssertLessThanOrEqual(max(image.width, image.height), 2048, input)
            XCTAssertEqual(image.orientation, 1, input)
            let profile = try exiftool(Self.quickstartOutput.appendingPathComponent(output).path)["ICC_Profile:ProfileDescription"] as? String
            XCTAssertTrue(profile == nil || profile!.contains("sRGB"), "\(input): profile \(profile ?? "")")
        }
        let heicSizes = try ["heic/IMG_1034.jpg", "heic/iphone_xr_issue263.jpg"].map {
            let image = try VImage.open(Self.quickstartOutput.appendingPathComponent($0).path)
            return [image.width, image.height]
        }
        XCTAssertEqual(heicSizes, [[2048, 1536], [1536, 2048]], "grid HEIC assembled; irot 270 applied")
        XCTAssertEqual(result(report, "video/iphone6_with-gps.mov")?.status, .skipped)
    }

    func testEveryOrientationComesOutUpright() throws {
        let reference = try VImage.open(Self.quickstartOutput.appendingPathComponent("jpeg/orientation/Landscape_1.jpg").path)
        for n in 2...8 {
            let path = "jpeg/orientation/Landscape_\(n).jpg"
            let output = try VImage.open(Self.quickstartOutput.appendingPathComponent(path).path)
            XCTAssertEqual([output.width, output.height], [1800, 1200], path)
            // Same scene, re-encoded: a few levels of JPEG noise. A missed or wrong rotation or flip
            // differs by tens of levels (see the unrotated check below).
            XCTAssertLessThan(try output.meanAbsoluteDifference(from: reference), 6, path)
        }
        let storedMirrored = try VImage.open(Fixtures.sample("jpeg/orientation/Landscape_2.jpg"))
        XCTAssertGreaterThan(try storedMirrored.meanAbsoluteDifference(from: reference), 20, "the check can fail")
    }

    func testLocationIsGoneAndCameraMetadataStays() throws {
        let withGPS = ["heic/IMG_1034.heic", "heic/iphone_xr_issue263.heic", "jpeg/apple_iphone_4.jpg",
                       "jpeg/samsung_gt-i9000_gps00_rot90.jpg", "webp/iphone_x_exif_gps.webp"]
        for input in withGPS {
            XCTAssertFalse(try locationTags(Fixtures.sample(input)).isEmpty, "\(input) carries location to begin with")
        }
        let livePhotoStill = try exiftool(Self.quickstartOutput.appendingPathComponent("livephoto/train.jpg").path)
        XCTAssertEqual(livePhotoStill["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
        for input in Self.imageSamples {
            guard let output = result(Self.quickstartReport, input)?.output else { continue }
            let outputPath = Self.quickstartOutput.appendingPathComponent(output).path
            XCTAssertEqual(try locationTags(outputPath), [], input)
            let before = try exiftool(Fixtures.sample(input)), after = try exiftool(outputPath)
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

    func testDisplayP3OutputMatchesAnSRGBConversionOfIt() throws {
        let output = try VImage.open(Self.quickstartOutput.appendingPathComponent("heic/IMG_1034.jpg").path).bandMeans()
        let source = try VImage.open(Fixtures.sample("heic/IMG_1034.heic"))
        let reference = try source.convertedToSRGB().bandMeans()
        let unconverted = try VImage.open(Fixtures.sample("heic/IMG_1034.heic")).bandMeans()
        for band in 0..<3 {
            XCTAssertEqual(output[band], reference[band], accuracy: 0.6, "band \(band)")
        }
        XCTAssertGreaterThan(abs(output[2] - unconverted[2]), 1.5, "dropping the P3 profile would leave blue here")
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
        let expected: [String: (ItemError.Code, String)] = [
            "empty.heic": (.unsupportedFormat, "decode"),
            "corrupted.heic": (.decodeFailed, "decode"),
            "truncated.heic": (.decodeFailed, "decode"),
            "heif_item_without_data.heif": (.decodeFailed, "decode"),
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
        XCTAssertTrue(truncated.contains("Premature end"), truncated)
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

    func testTranscodeFromLeavesOtherFormatsInTheirOwn() throws {
        let output = Fixtures.temporaryFolder()
        let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 256}, {"stage": "transcode", "from": "heic", "to": "jpeg", "quality": 60}, {"stage": "write"}"#
        let report = try Self.run(try pipeline(stages), input: Fixtures.samples.appendingPathComponent("png"), output: output)
        XCTAssertEqual(report.items.map(\.output), ["macos_screenshot_exif.png"])
        let png = try VImage.open(output.appendingPathComponent("macos_screenshot_exif.png").path)
        XCTAssertEqual([png.width, png.height, png.bands], [256, 205, 4])
        XCTAssertEqual(png.loader, "pngload")
    }

    func testQualityAndOutputFormatsAreHonoured() throws {
        func convert(to format: String, quality: Int) throws -> (path: String, bytes: Int) {
            let output = Fixtures.temporaryFolder()
            let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 1024}, {"stage": "transcode", "to": "\#(format)", "quality": \#(quality)}, {"stage": "write"}"#
            let report = try Self.run(try pipeline(stages), input: Fixtures.samples.appendingPathComponent("heic"), output: output)
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

    func testXMPAndIPTCLoseTheirLocationAndKeepTheRest() throws {
        let input = Fixtures.temporaryFolder()
        let tagged = input.appendingPathComponent("tagged.jpg").path
        let exif = try runProcess("exiftool", ["-q", "-o", tagged, "-XMP-photoshop:City=Paris", "-IPTC:City=Paris",
                                               "-IPTC:Country-PrimaryLocationName=France", "-EXIF:Copyright=(c) Test",
                                               "-XMP-dc:Creator=Ann Author", "-XMP-xmp:Rating=4", "-IPTC:By-line=Ann Author",
                                               "-IPTC:Keywords=harbour", Fixtures.sample("jpeg/apple_iphone_4.jpg")])
        XCTAssertEqual(exif.exitCode, 0, exif.stderr)
        let before = try locationTags(tagged)
        XCTAssertTrue(before.contains("XMP-photoshop:City") && before.contains("IPTC:City"), "\(before)")
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(webStages), input: input, output: output)
        let written = output.appendingPathComponent(try XCTUnwrap(report.items.first?.output)).path
        XCTAssertEqual(try locationTags(written), [])
        let after = try exiftool(written)
        XCTAssertEqual(after["IFD0:Copyright"] as? String, "(c) Test")
        XCTAssertEqual(after["IFD0:Model"] as? String, "iPhone 4")
        XCTAssertEqual(after["XMP-dc:Creator"] as? String, "Ann Author")
        XCTAssertEqual(after["XMP-xmp:Rating"] as? Int, 4)
        XCTAssertEqual(after["IPTC:By-line"] as? String, "Ann Author")
        XCTAssertEqual(after["IPTC:Keywords"] as? String, "harbour")
        XCTAssertNil(after["ExifTool:Warning"], "\(after["ExifTool:Warning"] ?? "")")
    }

    func testContentNotExtensionDecidesTheFormat() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("photo.png").path)
        try Data("shopping list".utf8).write(to: input.appendingPathComponent("notes.txt"))
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "filter", "match": {"format": "jpeg"}}, "# + webStages), input: input, output: output)
        XCTAssertEqual(result(report, "photo.png")?.format, "jpeg")
        XCTAssertEqual(result(report, "photo.png")?.output, "photo.jpg")
        XCTAssertEqual(result(report, "notes.txt")?.status, .skipped)
        XCTAssertEqual(result(report, "notes.txt")?.reason, "not a media file")
    }

    func testTwoInputsForOneOutputAreReportedNotOverwritten() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/orientation/Landscape_1.jpg"), toPath: input.appendingPathComponent("a.jpg").path)
        try FileManager.default.copyItem(atPath: Fixtures.sample("png/macos_screenshot_exif.png"), toPath: input.appendingPathComponent("a.png").path)
        let report = try Self.run(try pipeline(webStages), input: input, output: Fixtures.temporaryFolder(), concurrency: 1)
        XCTAssertEqual(report.items.map(\.status), [.ok, .failed])
        XCTAssertEqual(report.items[1].error?.code, .outputCollision)
        XCTAssertEqual(report.items[1].error?.message, "a.jpg is already the output of a.jpg")
    }

    func testNeverWritesOverAnInput() throws {
        let parent = Fixtures.temporaryFolder()
        let photos = parent.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let photo = photos.appendingPathComponent("a.jpg")
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: photo.path)
        let before = try Data(contentsOf: photo)
        let stages = #"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write", "path": "photos/{stem}.{ext}"}"#
        let report = try Self.run(try pipeline(stages), input: photos, output: parent)
        XCTAssertEqual(report.items.first?.error?.code, .wouldOverwriteInput)
        XCTAssertEqual(try Data(contentsOf: photo), before)
    }

    func testTheOutputRootCannotBeTheInputRoot() throws {
        let folder = Fixtures.temporaryFolder()
        XCTAssertThrowsError(try Self.run(try pipeline(webStages), input: folder, output: folder)) { error in
            XCTAssertEqual("\(error)", "the output root \(folder.path) is the input root: outputs would become inputs of the next run")
        }
    }

    func testVideosAreCopiedThroughUnchanged() throws {
        let pipeline = try Pipeline.load(contentsOf: Fixtures.pipelines.appendingPathComponent("videos-copy.json"))
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(pipeline, input: Fixtures.samples, output: output)
        let videos = ["livephoto/train.mov", "video/iphone6_with-gps.mov", "video/loci_gps_issue515.mp4",
                      "video/sample.3gp", "video/with-gps_xyz.mp4", "video/xmp480qt.mov"]
        XCTAssertEqual(report.items.filter { $0.status == .ok }.map(\.input).sorted(), videos)
        XCTAssertEqual(report.totals.skipped, report.totals.items - videos.count)
        for video in videos {
            XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent(video)),
                           try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample(video))), video)
        }
    }
}
