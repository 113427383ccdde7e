import Foundation
import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The manifest a site build reads, through a library's life: equal to the files on disk after
/// a first run, an unchanged run, a run that adds a size (only the new files are written), a run
/// that drops one (`--prune` removes its files, nothing is decoded), and for shards once merged.
final class ManifestTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    func pipelineFile(sizes: [Int]) throws -> URL {
        let file = Fixtures.temporaryFolder("manifest-pipeline").appendingPathComponent("web.json")
        try Data(#"""
            {"version": 1, "output": {"manifest": "site/manifest.json"},
             "stages": [{"stage": "filter", "match": "images"}, {"stage": "decode"},
                        {"stage": "variants", "sizes": \#(sizes), "formats": ["webp", "jpeg"], "placeholder": "thumbhash"},
                        {"stage": "stripLocation"}, {"stage": "write", "path": "img/{dir}/{stem}-{size}.{ext}"}]}
            """#.utf8).write(to: file)
        return file
    }

    /// Two photos larger than 800 px, turned upright (JPEGs: an iPhone HEIC took 1.5 s of CPU a run),
    /// a small one and a movie the filter leaves out.
    func library() throws -> URL {
        let input = Fixtures.temporaryFolder("manifest-input")
        for sample in ["jpeg/orientation/Landscape_3.jpg", "jpeg/orientation/Landscape_6.jpg", "webp/iphone_x_exif_gps.webp", "video/sample.3gp"] {
            let target = input.appendingPathComponent(sample)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: target.path)
        }
        return input
    }

    @discardableResult
    func run(_ pipeline: URL, _ input: URL, _ output: URL, _ extra: [String] = []) throws -> RunReport {
        let report = Fixtures.temporaryFolder("manifest-report").appendingPathComponent("report.json")
        let result = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                               "--quiet", "--report", report.path] + extra)
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        return try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: report))
    }

    func manifest(_ file: URL) throws -> ManifestDocument {
        try ManifestDocument.read(file)
    }

    /// Every variant the manifest lists is on disk with its pixels and bytes, and every image
    /// file under the output's `img/` is listed.
    func assertManifestIsTheFiles(_ manifest: ManifestDocument, _ output: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(manifest.items.map(\.input), manifest.items.map(\.input).sorted(), file: file, line: line)
        var listed: Set<String> = []
        for item in manifest.items {
            XCTAssertEqual(Data(base64Encoded: item.placeholder ?? "")?.count ?? 0 >= 20, true, item.input, file: file, line: line)
            for variant in item.variants {
                listed.insert(variant.path)
                let path = output.appendingPathComponent(variant.path).path
                let image = try VImage.open(path)
                XCTAssertEqual([image.width, image.height], [variant.width, variant.height], variant.path, file: file, line: line)
                let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                XCTAssertEqual(bytes, variant.bytes, variant.path, file: file, line: line)
            }
        }
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: output.appendingPathComponent("img").path)
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".webp") }.map { "img/\($0)" }
        XCTAssertEqual(Set(onDisk), listed, file: file, line: line)
    }

    /// The manifest marks the variants that carry an HDR gain map: an iPhone HEIC's JPEGs, not
    /// its WebPs, not another photo's.
    func testVariantsThatCarryAGainMapAreMarked() throws {
        let input = Fixtures.temporaryFolder("manifest-input"), output = Fixtures.temporaryFolder("manifest-output")
        for sample in ["heic/pug.heic", "heic/IMG_1034.heic"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: input.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        try run(pipelineFile(sizes: [200]), input, output)
        let manifest = try manifest(output.appendingPathComponent("site/manifest.json"))
        let marked = manifest.items.flatMap { item in item.variants.map { "\(item.input) \($0.format ?? "") \($0.gainMap == true)" } }
        XCTAssertEqual(marked.sorted(), ["IMG_1034.heic jpeg false", "IMG_1034.heic webp false", "pug.heic jpeg true", "pug.heic webp false"])
        let pug = try XCTUnwrap(manifest.items.first { $0.input == "pug.heic" }?.variants.first { $0.format == "jpeg" })
        XCTAssertEqual(try exiftool(output.appendingPathComponent(pug.path).path, ["-NumberOfImages"])["MPF0:NumberOfImages"] as? Int, 2)
    }

    /// A box size comes back as written, `{"height": H, "width": W}`, beside numbers, from the
    /// state database: after a run that reuses the box's outputs too.
    func testABoxSizeIsGivenBackAsWritten() throws {
        let input = try library(), output = Fixtures.temporaryFolder("manifest-output")
        let file = Fixtures.temporaryFolder("manifest-pipeline").appendingPathComponent("boxes.json")
        func write(_ sizes: String) throws {
            try Data(#"""
                {"version": 1, "output": {"manifest": "site/manifest.json"},
                 "stages": [{"stage": "filter", "match": "images"}, {"stage": "decode"},
                            {"stage": "variants", "sizes": \#(sizes), "formats": ["webp"], "fit": "cover", "placeholder": "thumbhash"},
                            {"stage": "write", "path": "img/{dir}/{stem}-{size}.{ext}"}]}
                """#.utf8).write(to: file)
        }
        try write(#"[100, {"width": 300, "height": 150}]"#)
        try run(file, input, output)
        let manifestFile = output.appendingPathComponent("site/manifest.json")
        let text = try String(contentsOf: manifestFile, encoding: .utf8)
        XCTAssertTrue(text.contains(#""size" : {\#n            "height" : 150,\#n            "width" : 300\#n          }"#), text)
        XCTAssertTrue(text.contains(#""size" : 100,"#), text)
        let first = try manifest(manifestFile)
        for item in first.items {
            XCTAssertEqual(item.variants.map(\.size), [100, .box(width: 300, height: 150)], item.input)
            // The WebP is 240 × 320: the box shrinks to 240 × 120, its shape kept, never upscaled.
            let box: [Int?] = item.input.hasSuffix(".webp") ? [240, 120] : [300, 150]
            XCTAssertEqual(item.variants.map { [$0.width, $0.height] }, [[100, 100], box], "\(item.input): squares and the box")
            XCTAssertTrue(item.variants[1].path.hasSuffix("-300x150.webp"), item.variants[1].path)
        }
        try assertManifestIsTheFiles(first, output)
        try write(#"[100, {"width": 300, "height": 150}, 50]"#)
        let extended = try run(file, input, output)
        XCTAssertEqual(extended.items.first?.variants?.filter(\.reused).map(\.size), [100, .box(width: 300, height: 150)])
        XCTAssertEqual(try manifest(manifestFile).items.first?.variants.map(\.size), [50, 100, .box(width: 300, height: 150)])
    }

    func testTheManifestIsTheFilesOnDiskRunAfterRun() throws {
        let input = try library(), output = Fixtures.temporaryFolder("manifest-output")
        let manifestFile = output.appendingPathComponent("site/manifest.json")
        try run(pipelineFile(sizes: [200, 500]), input, output)
        let first = try manifest(manifestFile)
        XCTAssertEqual(first.items.map(\.input), ["jpeg/orientation/Landscape_3.jpg", "jpeg/orientation/Landscape_6.jpg", "webp/iphone_x_exif_gps.webp"])
        XCTAssertEqual(first.items.map { [$0.width, $0.height] }, [[1800, 1200], [1800, 1200], [240, 320]], "as shown")
        XCTAssertEqual(first.items[2].variants.map(\.size), [200, 200, 500, 500], "320 px high: 500 is its own size")
        try assertManifestIsTheFiles(first, output)

        let unchanged = try run(pipelineFile(sizes: [200, 500]), input, output)
        XCTAssertEqual(unchanged.totals.unchanged, 3)
        XCTAssertEqual(try manifest(manifestFile), first)

        let before = try modificationDates(output)
        let extended = try run(pipelineFile(sizes: [200, 500, 800]), input, output)
        XCTAssertEqual(extended.totals.outputs, 4, "800 px for the two large photos, in two formats; the rest reused")
        XCTAssertEqual(extended.items.first?.variants?.filter(\.reused).map(\.size), [200, 200, 500, 500])
        XCTAssertEqual(try modificationDates(output).filter { before[$0.key] != nil }, before, "no earlier file rewritten")
        try assertManifestIsTheFiles(try manifest(manifestFile), output)

        // Dropping 500: the large photos' other outputs stand (nothing decoded); the small WebP's own
        // size is now named after 800, its smallest size at or above 320, so it is written again.
        let pruned = try run(pipelineFile(sizes: [200, 800]), input, output, ["--prune"])
        XCTAssertEqual(pruned.totals.unchanged, 2)
        XCTAssertEqual(pruned.totals.outputs, 2)
        let afterPrune = try manifest(manifestFile)
        XCTAssertFalse(afterPrune.items.flatMap(\.variants).contains { $0.size == 500 })
        try assertManifestIsTheFiles(afterPrune, output)
    }

    func testALibraryWithNothingToListHasAnEmptyManifest() throws {
        let input = Fixtures.temporaryFolder("manifest-empty-input"), output = Fixtures.temporaryFolder("manifest-empty-output")
        try FileManager.default.copyItem(atPath: Fixtures.sample("video/sample.3gp"), toPath: input.appendingPathComponent("sample.3gp").path)
        try run(pipelineFile(sizes: [200]), input, output)
        XCTAssertEqual(try manifest(output.appendingPathComponent("site/manifest.json")), ManifestDocument(version: 1, items: []))
    }

    /// A camera's RAW+JPEG pair is one photo: its entry is the JPEG's variants and names the RAW
    /// beside it (the RAW, skipped, has none).
    func testARawJpegPairIsOnePhotoNamingBothSources() throws {
        let input = Fixtures.temporaryFolder("manifest-input"), output = Fixtures.temporaryFolder("manifest-output")
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/orientation/Landscape_6.jpg"), toPath: input.appendingPathComponent("IMG_0001.JPG").path)
        try CameraRawFile.cr2.write(to: input.appendingPathComponent("IMG_0001.CR2").path)
        let report = try run(pipelineFile(sizes: [200]), input, output)
        XCTAssertEqual(report.items.first { $0.input == "IMG_0001.CR2" }?.reason?.hasPrefix("pairedWithJpeg: IMG_0001.JPG"), true)
        let items = try manifest(output.appendingPathComponent("site/manifest.json")).items
        XCTAssertEqual(items.map(\.input), ["IMG_0001.JPG"])
        XCTAssertEqual(items.first?.pairedWith, "IMG_0001.CR2")
        XCTAssertEqual(items.first?.variants.map(\.path).sorted(), ["img/IMG_0001-200.jpg", "img/IMG_0001-200.webp"])
        try assertManifestIsTheFiles(try manifest(output.appendingPathComponent("site/manifest.json")), output)
    }

    func testShardManifestsMergeIntoTheWholeRunsManifest() throws {
        let input = try library(), pipeline = try pipelineFile(sizes: [200, 500])
        let whole = Fixtures.temporaryFolder("manifest-whole")
        try run(pipeline, input, whole)
        let sharded = Fixtures.temporaryFolder("manifest-sharded")
        for index in 0..<2 { try run(pipeline, input, sharded, ["--shard", "\(index)/2"]) }
        let parts = (0..<2).map { sharded.appendingPathComponent("site/manifest.shard-\($0)-of-2.json").path }
        let merged = Fixtures.temporaryFolder().appendingPathComponent("merged.json")
        let merge = try runProcess(Fixtures.executable.path, ["merge-manifests", merged.path] + parts)
        XCTAssertEqual(merge.exitCode, 0, merge.stderr)
        XCTAssertEqual(try manifest(merged), try manifest(whole.appendingPathComponent("site/manifest.json")))
        let overlap = try runProcess(Fixtures.executable.path, ["merge-manifests", merged.path, parts[0], parts[0]])
        XCTAssertEqual(overlap.exitCode, 2)
        XCTAssertTrue(overlap.stderr.contains("the shards overlap"), overlap.stderr)
        // A manifest is not a report, nor the other way round: each command names the file it cannot read.
        let notAManifest = try runProcess(Fixtures.executable.path, ["merge-manifests", merged.path, Fixtures.pipelines.appendingPathComponent("quickstart.json").path])
        XCTAssertEqual(notAManifest.exitCode, 2)
        XCTAssertTrue(notAManifest.stderr.hasPrefix("error: \(Fixtures.pipelines.path)/quickstart.json is not a mediabatch manifest: "), notAManifest.stderr)
        let notAReport = try runProcess(Fixtures.executable.path, ["merge-reports", merged.path, parts[0]])
        XCTAssertEqual(notAReport.exitCode, 2)
        XCTAssertTrue(notAReport.stderr.hasPrefix("error: \(parts[0]) is not a mediabatch report: "), notAReport.stderr)
        XCTAssertEqual(try manifest(merged), try manifest(whole.appendingPathComponent("site/manifest.json")), "a refused merge writes nothing")
    }

    func modificationDates(_ output: URL) throws -> [String: Date] {
        let files = try FileManager.default.subpathsOfDirectory(atPath: output.appendingPathComponent("img").path)
        var dates: [String: Date] = [:]
        for file in files where file.contains(".") {
            dates[file] = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("img/\(file)").path)[.modificationDate] as? Date
        }
        return dates
    }

    func testAnimatedOutputsCarryTheirFramesAndDuration() throws {
        let input = Fixtures.temporaryFolder("manifest-animation"), output = Fixtures.temporaryFolder("manifest-out")
        try Animations.make(in: input)
        let report = try run(try pipelineFile(sizes: [120]), input, output)
        XCTAssertEqual(report.totals.failed, 0)
        let manifest = try manifest(output.appendingPathComponent("site/manifest.json"))
        for item in manifest.items {
            let byFormat = Dictionary(uniqueKeysWithValues: item.variants.map { ($0.format ?? "", $0) })
            XCTAssertEqual(byFormat["webp"]?.frames, 5, item.input)
            XCTAssertEqual(byFormat["webp"]?.duration, 1.5, "100 + 200 + … + 500 ms: \(item.input)")
            XCTAssertNil(byFormat["jpeg"]?.frames, "a JPEG is the first frame: \(item.input)")
            XCTAssertNil(byFormat["jpeg"]?.duration, item.input)
        }
        XCTAssertEqual(manifest.items.count, 3, "the GIF, the WebP and the GIF with transparency")
    }
}
