import Foundation
@testable import MediaBatchCore
import MetadataKit
import PipelineModel
import RunState
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Outputs that cannot be written — a full disk, a file size limit, a read-only filesystem — on
/// real photos and a real movie: each such item fails with the system's reason and leaves no
/// partial or temporary file, and the run goes on with the next items.
final class WriteStageTests: XCTestCase, RunsPipelines {
    static let samples = ["heic/IMG_1034.heic", "jpeg/orientation/Landscape_1.jpg", "jpeg/apple_iphone_4.jpg",
                          "video/iphone6_with-gps.mov", "heic/pug.heic"]
    /// What each image output decodes to: JPEG within 2048 px.
    static let imageSizes = ["IMG_1034.jpg": [2048, 1536], "Landscape_1.jpg": [1800, 1200], "apple_iphone_4.jpg": [1296, 968],
                             "pug.jpg": [2048, 1536]]
    /// Images through libvips' savers; the movie through a Foundation copy.
    static let copyingStages = """
        {"stage": "filter", "match": {"any": ["images", "videos"]}}, {"stage": "decode"},
        {"stage": "downsample", "maxPixelSize": 2048}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}
        """
    /// The movie through MovieLocationEditor instead.
    static let strippingStages = copyingStages.replacingOccurrences(of: #"{"stage": "write"}"#,
                                                                    with: #"{"stage": "stripLocation"}, {"stage": "write"}"#)

    static var input: URL!
    /// The same run on a roomy disk, in the order it took the items (one at a time, so always this order).
    static var reference: RunReport!
    static var referenceOutput: URL!
    private var mounts: [URL] = []

    override class func setUp() {
        try! Vips.start()
        input = Fixtures.temporaryFolder("write-input")
        for sample in samples {
            try! FileManager.default.copyItem(atPath: Fixtures.sample(sample),
                                              toPath: input.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        referenceOutput = Fixtures.temporaryFolder("write-reference")
        reference = try! run(copyingStages, output: referenceOutput)
    }

    override func tearDown() {
        for mount in mounts.reversed() {
            _ = try? runProcess("umount", [mount.path])
        }
    }

    /// Without a transcode an image keeps its format, HEIC and AVIF included: writing them takes
    /// libheif's HEVC and AV1 encoders (built into Debian 12's libheif1; on Debian 13 the x265 and
    /// aomenc plugins, which libheif1 only recommends: without them this fails "Unsupported compression").
    func testImagesWithoutATranscodeKeepTheirFormatHEICAndAVIFIncluded() throws {
        let input = Fixtures.temporaryFolder("keep-format-input")
        for source in [Fixtures.sample("heic/L_exif_xmp_iptc.heic"), Fixtures.fixtures.appendingPathComponent("kinds/images/spatial_stereo_pair.avif").path] {
            try FileManager.default.copyItem(atPath: source, toPath: input.appendingPathComponent((source as NSString).lastPathComponent).path)
        }
        let output = Fixtures.temporaryFolder("keep-format-output")
        let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 32}, {"stage": "write"}"#
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        XCTAssertEqual(report.items.map(\.status), [.ok, .ok], "\(report.items.compactMap(\.error))")
        for (name, compression) in [("L_exif_xmp_iptc.heic", "hevc"), ("spatial_stereo_pair.avif", "av1")] {
            let image = try VImage.open(output.appendingPathComponent(name).path)
            XCTAssertEqual(image.loader, "heifload", name)
            XCTAssertEqual(image.string("heif-compression"), compression, name)
            XCTAssertEqual(max(image.width, image.height), 32, name)
        }
    }

    /// One item at a time, so that libvips' one error buffer holds only that item's lines; the
    /// state database elsewhere, so that the output filesystem holds only outputs.
    static func run(_ stages: String, output: URL) throws -> RunReport {
        let pipeline = try Pipeline.decode(Data(#"{"version": 1, "stages": [\#(stages)]}"#.utf8), baseDirectory: Fixtures.repositoryRoot)
        return try Self.run(pipeline, input: input, output: output, concurrency: 1,
                                           statePath: Fixtures.temporaryFolder("write-state").appendingPathComponent("state.sqlite"))
    }

    /// A tmpfs of `bytes` mounted on a fresh folder, unmounted in tearDown; nil where mounting is
    /// not permitted (not root, or a container without CAP_SYS_ADMIN).
    private func mountTmpfs(bytes: Int) throws -> URL? {
        let folder = Fixtures.temporaryFolder("tmpfs")
        let mounted = try runProcess("mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", folder.path])
        guard mounted.exitCode == 0 else {
            print("cannot mount a tmpfs here: \(mounted.stderr)")
            return nil
        }
        mounts.append(folder)
        return folder
    }

    /// Runs `body` with writes past `bytes` failing with EFBIG ("File too large"): SIGXFSZ, which
    /// would kill the process, is ignored meanwhile.
    private func withFileSizeLimit<T>(_ bytes: Int, _ body: () throws -> T) throws -> T {
        let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
        var saved = rlimit()
        XCTAssertEqual(getrlimit(resource, &saved), 0)
        var limited = rlimit(rlim_cur: rlim_t(bytes), rlim_max: saved.rlim_max)
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        XCTAssertEqual(setrlimit(resource, &limited), 0)
        defer {
            setrlimit(resource, &saved)
            signal(SIGXFSZ, previousHandler)
        }
        return try body()
    }

    /// Every file and folder under `folder`, relative to it.
    private func listing(_ folder: URL) -> [String] {
        (FileManager.default.subpaths(atPath: folder.path) ?? []).sorted()
    }

    /// Every input was reported; the outputs in `fitting` were written whole (the reference
    /// run's bytes; images decode to their sizes); every other item failed with `code` and
    /// `reason`; and nothing else is under `output`: no partial output, no temporary file.
    private func assertTheRunWentOn(_ report: RunReport, output: URL, fitting: [String], code: ItemError.Code = .writeFailed, reason: String,
                                    file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(report.items.map(\.input).sorted(), Self.reference.items.map(\.input).sorted(), file: file, line: line)
        for item in report.items {
            let name = try XCTUnwrap(Self.reference.items.first { $0.input == item.input }?.output, file: file, line: line)
            if fitting.contains(name) {
                XCTAssertEqual(item.status, .ok, "\(item.input): \(item.error?.message ?? "")", file: file, line: line)
                XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent(name)),
                               try Data(contentsOf: Self.referenceOutput.appendingPathComponent(name)), name, file: file, line: line)
                if let size = Self.imageSizes[name] {
                    let image = try VImage.open(output.appendingPathComponent(name).path)
                    XCTAssertEqual([image.width, image.height], size, name, file: file, line: line)
                }
            } else {
                let message = item.error?.message ?? ""
                XCTAssertEqual(item.status, .failed, item.input, file: file, line: line)
                XCTAssertEqual(item.error?.code, code, "\(item.input): \(message)", file: file, line: line)
                XCTAssertTrue(message.hasPrefix("cannot write \(name): ") && message.contains(reason), "\(item.input): \(message)",
                              file: file, line: line)
            }
        }
        XCTAssertEqual(listing(output), ([".mediabatch", ".mediabatch/tmp", ".mediabatch/tmp/all"] + fitting).sorted(),
                       "no partial output or temporary file", file: file, line: line)
    }

    func testAFullDiskFailsTheOutputsThatDoNotFitAndTheRunGoesOn() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = { (bytes: Int) in (bytes + page - 1) / page * page }
        let first = Self.reference.items[0], second = Self.reference.items[1]
        // Room for the first two outputs and a little more, which every later output overflows.
        let slack = 64 << 10
        XCTAssertTrue(Self.reference.items.dropFirst(2).allSatisfy { $0.bytesOut > 2 * slack }, "later outputs cannot fit")
        let size = pages(first.bytesOut) + pages(second.bytesOut) + slack
        guard let disk = try mountTmpfs(bytes: size) else {
            throw XCTSkip("no tmpfs to fill here; testAFileSizeLimitFailsTheOutputsOverItAndTheRunGoesOn covers the same failure")
        }
        print("disk full: a real tmpfs of \(size) bytes")
        let report = try Self.run(Self.copyingStages, output: disk)
        try assertTheRunWentOn(report, output: disk, fitting: [first.output!, second.output!], code: .diskFull,
                               reason: "no space left on the output volume (the file needed ")
    }

    func testAFileSizeLimitFailsTheOutputsOverItAndTheRunGoesOn() throws {
        // RLIMIT_FSIZE fails writes at the syscall as a full disk would, mount or no mount.
        let sizes = Self.reference.items.map(\.bytesOut).sorted()
        XCTAssertLessThan(sizes[1] * 5 / 4, sizes[2], "a limit between the second and third smallest outputs")
        let limit = (sizes[1] + sizes[2]) / 2
        print("disk full: RLIMIT_FSIZE of \(limit) bytes")
        let output = Fixtures.temporaryFolder("write-limited")
        let report = try withFileSizeLimit(limit) { try Self.run(Self.copyingStages, output: output) }
        let fitting = Self.reference.items.filter { $0.bytesOut <= limit }.compactMap(\.output)
        XCTAssertEqual(fitting.count, 2)
        try assertTheRunWentOn(report, output: output, fitting: fitting, reason: "File too large")
    }

    func testAReadOnlyOutputFailsEveryItemWithItsReason() throws {
        // As root, permissions do not stop a write: a read-only filesystem does.
        guard let disk = try mountTmpfs(bytes: 64 << 20) else {
            throw XCTSkip("no tmpfs to make read-only here")
        }
        // The folders exist, so the failures come from libvips' savers and MovieLocationEditor.
        try FileManager.default.createDirectory(at: disk.appendingPathComponent(".mediabatch/tmp/all"), withIntermediateDirectories: true)
        let remounted = try runProcess("mount", ["-o", "remount,ro", disk.path])
        guard remounted.exitCode == 0 else { throw XCTSkip("cannot remount the tmpfs read-only: \(remounted.stderr)") }
        let report = try Self.run(Self.strippingStages, output: disk)
        try assertTheRunWentOn(report, output: disk, fitting: [], reason: "Read-only file system")
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

    /// A picture its output format cannot hold fails before a pixel is decoded, naming the format's
    /// limit and the picture's size: a scrolled screenshot and a panorama to WebP (libwebp would
    /// refuse them unnamed) and to HEIC (libheif 1.15 would write one it cannot read back); brought
    /// within the limit first, both are written.
    func testAPictureTooLargeForItsFormatFailsNamingBoth() throws {
        let input = Fixtures.temporaryFolder()
        _ = try runProcess("vips", ["black", input.appendingPathComponent("scroll.png").path, "790", "36861"])
        _ = try runProcess("vips", ["black", input.appendingPathComponent("panorama.png").path, "16385", "64"])
        for format in ["webp", "heic"] {
            let output = Fixtures.temporaryFolder()
            let stages = #"{"stage": "decode"}, {"stage": "transcode", "to": "\#(format)"}, {"stage": "write"}"#
            let report = try Self.run(try pipeline(stages), input: input, output: output)
            let limit = format == "webp" ? 16383 : 16384
            for (name, size) in [("scroll.png", "790×36861"), ("panorama.png", "16385×64")] {
                let error = report.items.first { $0.input == name }?.error
                XCTAssertEqual(error?.code, .tooLargeForFormat, "\(format) \(name)")
                let written = (name as NSString).deletingPathExtension + "." + (format == "webp" ? "webp" : "heic")
                XCTAssertEqual(error?.message, "cannot write \(written): \(format) holds at most \(limit) pixels a side, and this picture "
                               + "would be \(size); downsample it to \(limit) or less first")
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }, [])
        }
        let output = Fixtures.temporaryFolder()
        let bounded = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 16383}, {"stage": "transcode", "to": "webp"}, {"stage": "write"}"#
        let report = try Self.run(try pipeline(bounded), input: input, output: output)
        XCTAssertEqual(report.items.map(\.status), [.ok, .ok])
        let written = try ["panorama.webp", "scroll.webp"].map { try VImage.open(output.appendingPathComponent($0).path) }
        XCTAssertEqual(written.map { [$0.width, $0.height] }, [[16383, 64], [351, 16383]])
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

    /// A pipeline that selects and writes without decoding collects the selected files: copied
    /// byte for byte, through the temporary folder, each under its own name (`a.jpeg` stays
    /// `a.jpeg`) unless its name lies about its format, with the usual collision rule.
    func testWithoutDecodeTheSelectedFilesAreCopiedByteForByte() throws {
        let input = try Self.folder(of: ["heic/IMG_1034.heic", "png/macos_screenshot_exif.png", "video/sample.3gp",
                                         "livephoto/train.jpg"])
        try FileManager.default.createDirectory(at: input.appendingPathComponent("dup"), withIntermediateDirectories: true)
        for name in ["dup/a.jpg", "dup/a.jpeg", "dup/a.png"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent(name).path)
        }
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "filter", "match": "images"}, {"stage": "write"}"#,
                                               input: #"{"extensionMismatch": "process"}"#), input: input, output: output, concurrency: 1)
        XCTAssertEqual(report.items.filter { $0.status == .ok }.map(\.input),
                       ["IMG_1034.heic", "dup/a.jpeg", "dup/a.jpg", "macos_screenshot_exif.png", "train.jpg"])
        for item in report.items where item.status == .ok {
            let written = try Data(contentsOf: output.appendingPathComponent(try XCTUnwrap(item.output, item.input)))
            XCTAssertEqual(written, try Data(contentsOf: input.appendingPathComponent(item.input)), item.input)
            XCTAssertEqual(item.bytesOut, item.bytesIn, item.input)
            XCTAssertEqual(item.estimatedBytes, CostEstimator.copyBytes, "a copy decodes nothing")
        }
        XCTAssertEqual(result(report, "dup/a.jpeg")?.output, "dup/a.jpeg", "its own name")
        XCTAssertEqual(result(report, "dup/a.png")?.error?.code, .outputCollision, "a JPEG named .png is named by its bytes: a.jpg, taken")
        XCTAssertEqual(result(report, "sample.3gp")?.status, .skipped)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path), [])
    }

    // MARK: Paths named by the output's bytes ({hash})

    /// A copy, its location removed in place, is named by the bytes written, not by its input's.
    func testACopyIsNamedByItsEditedBytes() throws {
        let input = try Self.folder(of: ["jpeg/nikon_d5000_xmp_gps_only.jpg"]), output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "stripLocation"}, {"stage": "write", "path": "{stem}.{hash:12}.{ext}"}"#),
                                  input: input, output: output)
        let path = try XCTUnwrap(report.items.first?.output)
        let written = try ContentHash.ofFile(atPath: output.appendingPathComponent(path).path)
        XCTAssertEqual(path, "nikon_d5000_xmp_gps_only.\(written.prefix(12)).jpg")
        XCTAssertNotEqual(written, try ContentHash.ofFile(atPath: input.appendingPathComponent("nikon_d5000_xmp_gps_only.jpg").path),
                          "the location went: other bytes")
        XCTAssertEqual(report.items.first?.removedMetadata?.isEmpty, false)
    }

    func testTwoInputsWithByteIdenticalOutputsCollide() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        for name in ["a.jpg", "b.jpg"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent(name).path)
        }
        let pipeline = try pipeline(#"""
            {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 320}, {"stage": "transcode", "to": "webp"}, {"stage": "write", "path": "img/{hash}.{ext}"}
            """#)
        let report = try Self.run(pipeline, input: input, output: output, concurrency: 1)
        XCTAssertEqual(report.items.map(\.status), [.ok, .failed])
        let written = try XCTUnwrap(report.items[0].output)
        XCTAssertEqual(report.items[1].error?.code, .outputCollision)
        XCTAssertEqual(report.items[1].error?.message, "\(written) is already the output of a.jpg, with the same bytes")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("img").path), [(written as NSString).lastPathComponent])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp").path)
            .filter { $0.hasSuffix(".webp") }, [], "the second's file was not published, nor left behind")
    }

    /// A pipeline naming its WebPs by their own bytes, run over `input` into `output` with a state database.
    private func hashedRun(_ input: URL, _ output: URL, quality: Int, prune: Bool = false, concurrency: Int = 2) throws -> RunReport {
        let pipeline = try pipeline(#"""
            {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 320}, {"stage": "transcode", "to": "webp", "quality": \#(quality)},
            {"stage": "write", "path": "img/{stem}.{hash}.{ext}"}
            """#)
        var options = RunOptions(inputRoot: input, outputRoot: output, concurrency: concurrency,
                                 memoryBudget: pipeline.limits.memoryBudget, pipelineName: "test")
        options.prune = prune
        return try RunReport(PipelineRunner(pipeline: pipeline, options: options).run())
    }

    /// Each output as the report names it, checked against the SHA-256 of the file's bytes.
    private func assertNamedByTheirBytes(_ report: RunReport, _ output: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: String] {
        var names: [String: String] = [:]
        for item in report.items {
            let path = try XCTUnwrap(item.output, item.input, file: file, line: line)
            let hash = try ContentHash.ofFile(atPath: output.appendingPathComponent(path).path)
            XCTAssertEqual(path, "img/\((item.input as NSString).deletingPathExtension).\(hash.prefix(10)).webp", file: file, line: line)
            names[item.input] = path
        }
        return names
    }

    func testTheReferenceRunWritesEveryOutput() throws {
        XCTAssertEqual(Self.reference.items.map(\.status), Array(repeating: .ok, count: Self.samples.count),
                       "\(Self.reference.items.compactMap(\.error))")
        XCTAssertEqual(Self.reference.items.compactMap(\.output).sorted(), (Array(Self.imageSizes.keys) + ["iphone6_with-gps.mov"]).sorted())
    }

    func testHashedNamesChangeExactlyWhenTheBytesDo() throws {
        let input = try Self.folder(of: ["jpeg/apple_iphone_4.jpg", "jpeg/orientation/Landscape_1.jpg"]), output = Fixtures.temporaryFolder()
        let first = try hashedRun(input, output, quality: 80)
        XCTAssertEqual(first.totals.ok, 2, "\(first.items)")
        let named = try assertNamedByTheirBytes(first, output)

        let again = try hashedRun(input, output, quality: 80)
        XCTAssertEqual(again.items.map(\.status), [.unchanged, .unchanged], "nothing redone")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: again.items.map { ($0.input, $0.output ?? "") }), named, "the same names")

        let requality = try hashedRun(input, output, quality: 60)
        XCTAssertEqual(requality.items.map(\.change), [.pipelineChanged, .pipelineChanged])
        let renamed = try assertNamedByTheirBytes(requality, output)
        for (input, path) in named {
            XCTAssertNotEqual(renamed[input], path, "other bytes, another name")
            XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(path).path), "stale, kept until --prune")
        }

        let pruned = try hashedRun(input, output, quality: 60, prune: true)
        XCTAssertEqual(pruned.items.map(\.status), [.unchanged, .unchanged])
        let left = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("img").path).sorted()
        XCTAssertEqual(left, renamed.values.map { ($0 as NSString).lastPathComponent }.sorted(), "the old names pruned")
    }
}
