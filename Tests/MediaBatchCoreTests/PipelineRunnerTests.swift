import Foundation
@testable import MediaBatchCore
import PipelineModel
import TestSupport
@testable import VipsKit
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

    func pipeline(_ stages: String, limits: String = "{}", input: String = "{}", onError: String = "continue") throws -> Pipeline {
        try Pipeline.decode(Data(#"""
            {"version": 1, "input": \#(input), "limits": \#(limits), "onError": "\#(onError)", "stages": [\#(stages)]}
            """#.utf8), baseDirectory: Fixtures.repositoryRoot)
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

    func testAnExtensionContradictingTheContentFailsUnlessThePipelineAllowsIt() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("photo.png").path)
        try FileManager.default.copyItem(atPath: Fixtures.sample("video/xmp480qt.mov"), toPath: input.appendingPathComponent("clip.mp4").path)
        try Data("shopping list".utf8).write(to: input.appendingPathComponent("notes.txt"))
        let refused = try Self.run(try pipeline(webStages), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(refused, "photo.png")?.error?.code, .formatMismatch)
        XCTAssertEqual(result(refused, "photo.png")?.error?.message,
                       #"named .png (png) but its content is jpeg (input.extensionMismatch: "process" reads it as jpeg)"#)
        XCTAssertEqual(result(refused, "clip.mp4")?.status, .ok, "MOV and MP4 are one family: no contradiction")
        XCTAssertEqual(result(refused, "notes.txt")?.status, .skipped)
        XCTAssertEqual(result(refused, "notes.txt")?.reason, "not a media file")

        let output = Fixtures.temporaryFolder()
        let processed = try Self.run(try pipeline(webStages, input: #"{"extensionMismatch": "process"}"#), input: input, output: output)
        XCTAssertEqual(result(processed, "photo.png")?.format, "jpeg")
        XCTAssertEqual(result(processed, "photo.png")?.output, "photo.jpg")
        XCTAssertEqual(result(processed, "photo.png")?.reason, "named .png (png) but its content is jpeg: processed as jpeg")
        let written = try VImage.open(output.appendingPathComponent("photo.jpg").path)
        XCTAssertEqual([written.width, written.height], [1296, 968])
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
                       "100000×100000 is 10000000000 pixels, over limits.maxPixels (268402689)")
        XCTAssertEqual(result(report, "huge.jpg")?.error?.code, .tooManyPixels)
        XCTAssertEqual(result(report, "frames.gif")?.error?.code, .tooManyFrames)
        // libvips' GIF loader stops counting past 4096 frames: the count is "more than the limit", not exact.
        XCTAssertEqual(result(report, "frames.gif")?.error?.message.hasSuffix("frames, over limits.maxFrames (1000)"), true)
        XCTAssertEqual(result(report, "small.gif")?.status, .ok)
        XCTAssertEqual(report.items.compactMap(\.estimatedBytes).count, 1, "only the small GIF was admitted")
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(written, ["small.gif"])
    }

    func testFilesOverMaxFileBytesFailBeforeTheyAreRead() throws {
        let input = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("big.jpg").path)
        try HostileFiles.gifAnimation(frames: 1).write(to: input.appendingPathComponent("tiny.gif"))
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "write"}"#, limits: #"{"maxFileBytes": "10KB"}"#),
                                  input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(report, "big.jpg")?.error?.code, .fileTooLarge)
        XCTAssertEqual(result(report, "big.jpg")?.error?.message, "\(ByteSize.format(result(report, "big.jpg")!.bytesIn)), over limits.maxFileBytes (9.8 KiB)")
        XCTAssertNil(result(report, "big.jpg")?.format, "refused before its first byte was read")
        XCTAssertEqual(result(report, "tiny.gif")?.status, .ok)
    }

    func testFormatsOutsideInputFormatsAreSkippedAndTheirLoadersBlocked() throws {
        let input = Fixtures.temporaryFolder()
        for sample in ["jpeg/apple_iphone_4.jpg", "heic/pug.heic", "png/macos_screenshot_exif.png"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: input.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        defer { try? DecoderAllowList.startLibvips(for: Defaults.formats) } // libvips' loader blocks are process-wide
        let report = try Self.run(try pipeline(webStages, input: #"{"formats": ["jpeg"]}"#), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(report, "apple_iphone_4.jpg")?.status, .ok)
        XCTAssertEqual(result(report, "pug.heic")?.reason, "a heic file, not in input.formats")
        XCTAssertEqual(result(report, "macos_screenshot_exif.png")?.reason, "a png file, not in input.formats")
        XCTAssertThrowsError(try VImage.open(Fixtures.sample("heic/pug.heic")), "libvips' HEIF loader is blocked for this pipeline")
        XCTAssertNoThrow(try VImage.open(Fixtures.sample("jpeg/apple_iphone_4.jpg")))
    }

    func testSpecialFilesAndBrokenSymlinksAreReportedWithoutBeingOpened() throws {
        let input = Fixtures.temporaryFolder()
        let outside = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: outside.appendingPathComponent("secret.jpg").path)
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("photo.jpg").path)
        XCTAssertEqual(mkfifo(input.appendingPathComponent("pipe.jpg").path, 0o644), 0)
        let links = [("loop-a.jpg", "loop-b.jpg"), ("loop-b.jpg", "loop-a.jpg"), ("dangling.jpg", "gone.jpg"),
                     ("outside.jpg", outside.appendingPathComponent("secret.jpg").path), ("alias.jpg", "photo.jpg"), ("self", ".")]
        for (name, target) in links {
            try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent(name).path, withDestinationPath: target)
        }
        let hasDevice = mknod(input.appendingPathComponent("zero.jpg").path, S_IFCHR | 0o644, (1 << 8) | 5) == 0 // /dev/zero: major 1, minor 5
        let report = try Self.run(try pipeline(webStages), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(report, "pipe.jpg")?.reason, "not a regular file (FIFO)")
        XCTAssertEqual(result(report, "loop-a.jpg")?.error?.message, "a symlink loop")
        XCTAssertEqual(result(report, "dangling.jpg")?.error?.message, "a symlink to nothing")
        XCTAssertEqual(result(report, "outside.jpg")?.status, .skipped)
        XCTAssertEqual(result(report, "outside.jpg")?.reason?.hasPrefix("a symlink to \(outside.resolvingSymlinksInPath().path)/secret.jpg, outside the input root"), true)
        XCTAssertEqual(result(report, "alias.jpg")?.status, .ok, "a symlink to a file inside the root is read")
        XCTAssertEqual(result(report, "self")?.reason, "a symlink to a folder inside the input root, whose files are listed where they are")
        if hasDevice { XCTAssertEqual(result(report, "zero.jpg")?.reason, "not a regular file (character device)") }
        XCTAssertEqual(report.totals.ok, 2)
    }

    func testFollowSymlinksReadsOutsideFilesAndEntersEachFolderOnce() throws {
        let input = Fixtures.temporaryFolder()
        let outside = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: outside.appendingPathComponent("shared.jpg").path)
        try FileManager.default.createDirectory(at: input.appendingPathComponent("a"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.sample("png/macos_screenshot_exif.png"), toPath: input.appendingPathComponent("a/shot.png").path)
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("a/up").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("linked").path, withDestinationPath: outside.path)
        let report = try Self.run(try pipeline(webStages, input: #"{"followSymlinks": true}"#), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(report.items.map(\.input).sorted(), ["a/shot.png", "linked/shared.jpg"])
        XCTAssertEqual(report.totals.ok, 2)
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
        XCTAssertTrue(stopped.summary.hasSuffix("; stopped after a failure (onError: stop)"), stopped.summary)
        let continued = try Self.run(try pipeline(webStages), input: input, output: Fixtures.temporaryFolder(), concurrency: 1)
        XCTAssertEqual([continued.totals.failed, continued.totals.ok], [1, 4])
        XCTAssertFalse(continued.stoppedByFailure)
    }

    func testAFileThatVanishesAfterBeingListedIsSkipped() throws {
        let input = Fixtures.temporaryFolder()
        for index in 1...3 {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("\(index).jpg").path)
        }
        let pipeline = try pipeline(webStages)
        let options = RunOptions(inputRoot: input, outputRoot: Fixtures.temporaryFolder(), concurrency: 1,
                                 memoryBudget: pipeline.limits.memoryBudget, pipelineName: "test")
        // With one lane, 3.jpg is prepared only once 1.jpg has finished (2.jpg waits for admission meanwhile).
        let report = try PipelineRunner(pipeline: pipeline, options: options) { finished in
            if finished.input == "1.jpg" { unlink(input.appendingPathComponent("3.jpg").path) }
        }.run()
        XCTAssertEqual(result(report, "3.jpg")?.status, .skipped)
        XCTAssertEqual(result(report, "3.jpg")?.reason, "vanished after it was listed")
        XCTAssertEqual(report.totals.ok, 2)
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
