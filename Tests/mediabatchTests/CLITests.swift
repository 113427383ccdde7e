import Foundation
import MediaBatchCore
import MediaFormats
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The command line as users and CI see it: exit codes, messages, reports.
final class CLITests: XCTestCase {
    func mediabatch(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(Fixtures.executable.path, arguments, in: Fixtures.repositoryRoot)
    }

    /// Each invalid pipeline gives exit 2 and its golden message, from `validate` and from `run`
    /// alike (`MEDIABATCH_RECORD_GOLDENS=1` re-records the goldens).
    func testInvalidPipelinesExitTwoWithTheExpectedMessage() throws {
        let folder = Fixtures.fixtures.appendingPathComponent("invalid-pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 8)
        // Two fixtures at a time: each command is a process of its own, mostly the dynamic loader's
        // work and waiting for it; the assertions follow, in order, on this thread.
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var byFile: [String: (validate: ProcessResult, run: ProcessResult)] = [:]
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for file in files.enumerated().filter({ $0.offset % 2 == lane }).map(\.element) {
                let path = "Tests/Fixtures/invalid-pipelines/\(file)"
                guard let validate = try? mediabatch(["validate", path]),
                      let run = try? mediabatch(["run", path, "--input", "samples", "--output", Fixtures.temporaryFolder().path]) else { continue }
                results.lock.lock()
                results.byFile[file] = (validate, run)
                results.lock.unlock()
            }
        }
        for file in files {
            guard let (validate, run) = results.byFile[file] else {
                XCTFail("\(file): mediabatch did not start")
                continue
            }
            XCTAssertEqual(validate.exitCode, 2, file)
            XCTAssertEqual(validate.stdout, "", file)
            assertMatchesGolden(validate.stderr, folder.appendingPathComponent(file.replacingOccurrences(of: ".json", with: ".stderr")))
            XCTAssertEqual(run.exitCode, 2, file)
            XCTAssertEqual(run.stderr, validate.stderr, file)
        }
    }

    /// `--dry-run` lists each item's fate and kinds on stdout (golden, re-recordable) and writes
    /// nothing; the same whether headers are read two or six at a time (`--jobs`).
    func testDryRunListsWhatWouldBeWrittenAndWritesNothing() throws {
        for jobs in ["1", "6"] {
            let output = Fixtures.temporaryFolder().appendingPathComponent("never-created")
            let run = try mediabatch(["run", "pipelines/quickstart.json", "--dry-run", "--output", output.path, "--jobs", jobs])
            XCTAssertEqual(run.exitCode, 0, run.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path))
            assertMatchesGolden(run.stdout, Fixtures.fixtures.appendingPathComponent("cli/dry-run-quickstart.txt"))
            XCTAssertTrue(run.stderr.contains("26 items: 21 would be processed, 0 failed, 5 skipped"), run.stderr)
            XCTAssertTrue(run.stderr.contains("dry run: nothing written"), run.stderr)
        }
    }

    /// One file of each kind the shipped pipelines treat (PipelineTests run every sample through the
    /// stages): a sideways JPEG with GPS, a HEIC with a gain map, a PNG screenshot, a WebP, a
    /// short 1080p movie with its location and a Live Photo pair. The HEIC and the Live Photo's still
    /// are 4032 × 3024: the 2048 px bound below has something to bound.
    static let oneOfEachKind = ["jpeg/samsung_gt-i9000_gps00_rot90.jpg", "heic/pug.heic", "png/macos_screenshot_exif.png",
                                "webp/iphone_x_exif_gps.webp", "video/with-gps_xyz.mp4", "livephoto/train.jpg", "livephoto/train.mov"]

    /// Each pipelines/*.json validates, finds its inputs under its own roots (a dry run over samples/,
    /// as a user's first run reads them), and runs over one file of each kind: every output decodes
    /// as its format, within its size, its bytes as reported.
    func testEveryShippedPipelineValidatesAndRuns() throws {
        try Vips.start()
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.pipelines.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(files, ["heic-to-jpeg.json", "library-by-date.json", "quickstart.json", "share-safe.json", "videos-copy.json",
                               "videos-web.json", "web-responsive.json"])
        let input = Fixtures.temporaryFolder("shipped-input")
        for sample in Self.oneOfEachKind {
            let target = input.appendingPathComponent(sample)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: target.path)
        }
        for file in files {
            // A pipeline without `decode` copies every file, its metadata edited in place.
            let copies = try !String(contentsOf: Fixtures.pipelines.appendingPathComponent(file), encoding: .utf8).contains(#""decode""#)
            let validate = try mediabatch(["validate", "pipelines/\(file)"])
            XCTAssertEqual(validate.exitCode, 0, "\(file): \(validate.stderr)")
            XCTAssertTrue(validate.stdout.hasPrefix("pipelines/\(file): valid (version 1,"), validate.stdout)

            let output = Fixtures.temporaryFolder()
            let dryRun = try mediabatch(["run", "pipelines/\(file)", "--output", output.appendingPathComponent("out").path, "--dry-run"])
            XCTAssertEqual(dryRun.exitCode, 0, "\(file): \(dryRun.stderr)")
            XCTAssertTrue(dryRun.stdout.contains(" heic/pug.heic"), "\(file) lists samples/: \(dryRun.stdout)")
            XCTAssertTrue(dryRun.stderr.contains(" would be processed, 0 failed"), "\(file): \(dryRun.stderr)")

            let reportFile = output.appendingPathComponent("report.json")
            let run = try mediabatch(["run", "pipelines/\(file)", "--input", input.path, "--output", output.appendingPathComponent("out").path,
                                      "--report", reportFile.path, "--quiet"])
            XCTAssertEqual(run.exitCode, 0, "\(file): \(run.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: reportFile)) as! [String: Any]
            let totals = (report["totals"] as! [String: Any]).compactMapValues { $0 as? Int }
            XCTAssertGreaterThan(totals["ok"]!, 0, file)
            XCTAssertEqual(totals["failed"], 0, file)
            for item in report["items"] as! [[String: Any]] where item["status"] as? String == "ok" {
                let written = output.appendingPathComponent("out").appendingPathComponent(item["output"] as! String)
                if written.lastPathComponent.contains(".av1.") || written.lastPathComponent.contains(".h264.") {
                    // A rendition (videos-web.json): a whole movie of its codec.
                    XCTAssertEqual(try Movies.decodingErrors(written.path), "", written.path)
                } else if copies, !["mov", "mp4", "3gp"].contains(item["format"] as? String) {
                    // A still copied, its metadata edited: the input's picture.
                    let source = try VImage.open(input.appendingPathComponent(item["input"] as! String).path)
                    let image = try VImage.open(written.path)
                    XCTAssertEqual([image.width, image.height], [source.width, source.height], written.path)
                } else if ["mov", "mp4", "3gp"].contains(item["format"] as? String) {
                    // Copied, or edited in place when location is stripped: the size never changes.
                    let source = input.appendingPathComponent(item["input"] as! String)
                    XCTAssertEqual(try written.resourceValues(forKeys: [.fileSizeKey]).fileSize,
                                   try source.resourceValues(forKeys: [.fileSizeKey]).fileSize, written.path)
                } else {
                    let image = try VImage.open(written.path)
                    let loaders = ["jpg": "jpegload", "png": "pngload", "webp": "webpload", "avif": "heifload"]
                    XCTAssertEqual(image.loader, loaders[written.pathExtension], written.path)
                    XCTAssertLessThanOrEqual(max(image.width, image.height), 2048, written.path)
                }
                let variants = (item["variants"] as? [[String: Any]])?.compactMap { $0["bytes"] as? Int }
                XCTAssertEqual(item["bytesOut"] as? Int, try variants.map { $0.reduce(0, +) }
                               ?? written.resourceValues(forKeys: [.fileSizeKey]).fileSize, written.path)
            }
            XCTAssertTrue(run.stderr.contains("mediabatch: \(totals["items"]!) items: \(totals["ok"]!) ok, 0 failed"), run.stderr)
        }
    }

    func testBrokenItemsExitOneReportEachAndTheRestSucceed() throws {
        let input = Fixtures.temporaryFolder()
        for name in ["Landscape_1_truncated_200k.jpg", "empty.heic", "corrupted.heic"] {
            try FileManager.default.copyItem(at: Fixtures.broken.appendingPathComponent(name), to: input.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent("good.jpg").path)
        let output = Fixtures.temporaryFolder()
        let reportFile = output.appendingPathComponent("report.json")
        let run = try mediabatch(["run", "pipelines/quickstart.json", "--input", input.path, "--output", output.appendingPathComponent("web").path,
                                  "--jobs", "1", "--report", reportFile.path])
        XCTAssertEqual(run.exitCode, 1)
        XCTAssertTrue(run.stderr.contains("error: empty.heic: decode: named .heic but the file is empty [unsupportedFormat]"), run.stderr)
        // libheif's and libjpeg's own words differ between Debian 12 and 13: ask them here.
        try Vips.start()
        XCTAssertThrowsError(try VImage.open(input.appendingPathComponent("corrupted.heic").path)) { error in
            let libheif = (error as? VipsError)?.message ?? "?"
            XCTAssertTrue(libheif.hasPrefix("heif: Invalid input: "), libheif)
            XCTAssertTrue(run.stderr.contains("error: corrupted.heic: decode: cannot read the heic header: \(libheif) [decodeFailed]"), run.stderr)
        }
        let truncated = try VImage.thumbnail(of: input.appendingPathComponent("Landscape_1_truncated_200k.jpg").path, maxSize: 2048)
        XCTAssertThrowsError(try truncated.write(to: output.appendingPathComponent("t.jpg").path, as: .jpeg)) { error in
            let libjpeg = (error as? VipsError)?.message ?? "?"
            XCTAssertTrue(libjpeg.lowercased().hasPrefix("vipsjpeg: premature end of "), libjpeg)
            XCTAssertTrue(run.stderr.contains("error: Landscape_1_truncated_200k.jpg: write: \(libjpeg) [decodeFailed]"), run.stderr)
        }
        XCTAssertTrue(run.stderr.contains("mediabatch: 4 items: 1 ok, 3 failed, 0 skipped"), run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("web").path).sorted(),
                       [".mediabatch", "good.jpg"], "the output and the state database")

        let report = try JSONDecoder().decode(ReportShape.self, from: Data(contentsOf: reportFile))
        XCTAssertEqual(report.totals, .init(items: 4, ok: 1, failed: 3, skipped: 0, planned: 0, unchanged: 0, changes: ["new": 4]))
        let empty = report.items.first { $0.input == "empty.heic" }!
        XCTAssertEqual(empty.status, "failed")
        XCTAssertEqual(empty.error, .init(code: "unsupportedFormat", stage: "decode", message: "named .heic but the file is empty"))
        let good = report.items.first { $0.input == "good.jpg" }!
        XCTAssertEqual(good.output, "good.jpg")
        XCTAssertGreaterThan(good.bytesOut, 0)
        XCTAssertGreaterThan(good.bytesIn, good.bytesOut)
    }

    func testBadCommandLinesExitTwo() throws {
        let cases: [([String], String)] = [
            (["run", "pipelines/quickstart.json", "--jobs", "0"], "--jobs must be at least 1, found 0"),
            (["run", "pipelines/quickstart.json", "--memory-budget", "lots"], "--memory-budget"),
            (["run", "pipelines/quickstart.json", "--frobnicate"], "Unknown option '--frobnicate'"),
            (["validate", "pipelines/missing.json"], "pipelines/missing.json: cannot read the file"),
            (["run", "Tests/Fixtures/no-roots.json"], "no input folder: set input.root in Tests/Fixtures/no-roots.json or pass --input"),
            (["run", "pipelines/quickstart.json", "--input", "pipelines/nope"], "is not a folder"),
            (["transmogrify"], "Unexpected argument 'transmogrify'"),
            (["status", "pipelines/quickstart.json", "--output", "/tmp", "--shard", "2/2"], "--shard: the shard index must be from 0 to 1, found 2"),
        ]
        for (arguments, message) in cases {
            let result = try mediabatch(arguments)
            XCTAssertEqual(result.exitCode, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        XCTAssertEqual(try mediabatch(["--help"]).exitCode, 0)
    }

    func testValidateExplainsVariants() throws {
        let result = try mediabatch(["validate", "pipelines/web-responsive.json"])
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("  variants: 4 sizes × 3 formats = up to 12 outputs an image: 320, 640x360, 1280x720, 2048x1152 px, "
                                             + "cover: cut to the box where libvips' smartcrop finds attention (never upscaled"), result.stdout)
        XCTAssertTrue(result.stdout.contains("each as avif q62 effort 2, webp q80 effort 4, jpeg q80; one decode an image, sRGB, upright; placeholder thumbhash; "
                                             + "gain maps kept in jpeg (Ultra HDR), resized with the picture"), result.stdout)
        XCTAssertTrue(result.stdout.contains("  manifest: manifest.json, under the output root"), result.stdout)
        let downsample = try mediabatch(["validate", "pipelines/quickstart.json"])
        XCTAssertTrue(downsample.stdout.contains("  decode: animated GIF and WebP keep every frame, delay and loop count in GIF and WebP; "
                                                 + "other formats get the first frame; camera RAW: its embedded preview where it is as large "
                                                 + "as the later stages need, else developed by LibRaw"), downsample.stdout)
        XCTAssertTrue(downsample.stdout.contains("  downsample: width 2048 × height 2048 px, inside: aspect ratio kept; never upscaled, upright"),
                      downsample.stdout)
        let transcode = try mediabatch(["validate", "pipelines/heic-to-jpeg.json"])
        XCTAssertTrue(transcode.stdout.contains("  transcode: heic → jpeg q80, sRGB; gain maps kept in jpeg (Ultra HDR), resized with the picture"),
                      transcode.stdout)
    }

    func testVersionIsTheOneReportsRecord() throws {
        let result = try mediabatch(["--version"])
        XCTAssertEqual(result.exitCode, 0)
        XCTAssertEqual(result.stdout, MediaBatchVersion.current + "\n")
        let report = Fixtures.temporaryFolder().appendingPathComponent("report.json")
        let run = try mediabatch(["run", "pipelines/quickstart.json", "--dry-run", "--quiet", "--report", report.path])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let written = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report))
        XCTAssertEqual(written.mediabatchVersion, MediaBatchVersion.current)
    }

    /// A run of more items than the spool keeps in memory: the report, JUnit and a dry run's
    /// listing come from sorted runs on disk, merged in input order (which is not listing order:
    /// `a-b/` sorts before `a/`, but is listed after it), and no spool file is left behind.
    func testALargeRunsReportsComeFromTheSpoolInInputOrder() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        var names: [String] = []
        // Hard links to one copy beside the input: the checkout may be on another filesystem (a Debian root's bind mount).
        let seed = Fixtures.temporaryFolder().appendingPathComponent("seed.jpg")
        try FileManager.default.copyItem(at: Fixtures.fixtures.appendingPathComponent("kinds/images/screenshot_ios.jpg"), to: seed)
        for index in 0..<600 {
            let folder = ["a", "a-b", "a/c", "Z"][index % 4]
            try FileManager.default.createDirectory(at: input.appendingPathComponent(folder), withIntermediateDirectories: true)
            names.append("\(folder)/\(index).jpg")
            try FileManager.default.linkItem(atPath: seed.path, toPath: input.appendingPathComponent(names.last!).path)
        }
        let pipeline = output.appendingPathComponent("../tiny.json").standardizedFileURL
        try Data(#"{"version": 1, "input": {"trusted": true}, "stages": [{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 32}, {"stage": "write"}]}"#.utf8)
            .write(to: pipeline)
        let json = output.appendingPathComponent("../tiny-report.json"), junit = output.appendingPathComponent("../tiny-junit.xml")
        let spools = { try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("mediabatch-spool-") } }
        let spoolsBefore = try spools()
        let dryRun = try mediabatch(["run", pipeline.path, "--input", input.path, "--output", output.path, "--dry-run"])
        XCTAssertEqual(dryRun.exitCode, 0, dryRun.stderr)
        XCTAssertEqual(try spools(), spoolsBefore, "a dry run's spool folder is removed")
        XCTAssertEqual(dryRun.stdout.split(separator: "\n").map { String($0.split(separator: " ")[1]) }, names.sorted())
        // The JUnit report from a rerun: the same 600 results through the spool, each item unchanged, none redone.
        for (path, format) in [(json, "json"), (junit, "junit")] {
            let run = try mediabatch(["run", pipeline.path, "--input", input.path, "--output", output.path, "--quiet",
                                      "--report", path.path, "--report-format", format])
            XCTAssertEqual(run.exitCode, 0, run.stderr)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp/all").path), [])
            XCTAssertTrue(run.stderr.contains(format == "json" ? "600 ok, 0 failed" : "0 ok, 600 unchanged, 0 failed"), run.stderr)
        }
        let report = try JSONDecoder().decode(ReportShape.self, from: Data(contentsOf: json))
        XCTAssertEqual(report.items.map(\.input), names.sorted())
        XCTAssertEqual(report.totals.ok, 600)
        let cases = try String(contentsOf: junit, encoding: .utf8).split(separator: "\n").filter { $0.contains("<testcase ") }
        XCTAssertEqual(cases.map { $0.components(separatedBy: #" name=""#)[1].prefix { $0 != "\"" } }.map(String.init), names.sorted())
    }

    /// FFmpeg (libavformat and its ~130 dependencies) is opened on the first video, not at
    /// start-up: the dynamic loader's own log (`LD_DEBUG=files`) shows it loaded for a movie and
    /// never for an image.
    func testLibavformatIsLoadedOnlyForVideos() throws {
        let image = try runProcess(Fixtures.executable.path, ["inspect", Fixtures.sample("jpeg/apple_iphone_4.jpg")],
                                   environment: ["LD_DEBUG": "files"])
        XCTAssertEqual(image.exitCode, 0, image.stderr)
        XCTAssertTrue(image.stderr.contains("libvips.so"), "the loader's log is missing: \(image.stderr.prefix(500))")
        XCTAssertFalse(image.stderr.contains("libavformat"))

        let movie = try runProcess(Fixtures.executable.path, ["inspect", Fixtures.sample("livephoto/train.mov")],
                                   environment: ["LD_DEBUG": "files"])
        XCTAssertEqual(movie.exitCode, 0, movie.stderr)
        XCTAssertTrue(movie.stderr.contains("libavformat.so"))
        XCTAssertTrue(movie.stdout.contains("video h264, audio pcm_s16le"), movie.stdout)
    }
}

/// The report's JSON as a script would read it.
struct ReportShape: Decodable {
    struct Item: Decodable {
        struct Failure: Decodable, Equatable {
            let code: String
            let stage: String
            let message: String
        }
        let input: String
        let status: String
        let output: String?
        let error: Failure?
        let bytesIn: Int
        let bytesOut: Int
        let milliseconds: Int
    }
    struct Totals: Decodable, Equatable {
        let items, ok, failed, skipped, planned, unchanged: Int
        let changes: [String: Int]
    }
    let totals: Totals
    let items: [Item]
}
