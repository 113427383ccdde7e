import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Whole runs over an output tree with symlinks planted in it (a folder, a destination, the work
/// folder, the root itself, what `--prune` walks): nothing is written or removed outside the root.
final class OutputTreeTests: XCTestCase, RunsPipelines {
    private var input: URL!
    private var output: URL!
    /// Where planted symlinks point: must stay as the test left it.
    private var outside: URL!

    override func setUpWithError() throws {
        try Vips.start()
        input = Fixtures.temporaryFolder("tree-input")
        output = Fixtures.temporaryFolder("tree-output")
        outside = Fixtures.temporaryFolder("tree-outside")
    }

    private func addInput(_ sample: String, as relativePath: String) throws {
        let destination = input.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: destination.path)
    }

    private func runPipeline(into outputRoot: URL? = nil) throws -> RunReport {
        let pipeline = try Pipeline.decode(Data("""
            {"version": 1, "stages": [{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}]}
            """.utf8), baseDirectory: Fixtures.repositoryRoot)
        return try Self.run(pipeline, input: input, output: outputRoot ?? output, concurrency: 1)
    }

    private func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    private func dimensions(_ path: String) throws -> [Int] {
        let image = try VImage.open(path)
        XCTAssertEqual(image.loader, "jpegload", path)
        return [image.width, image.height]
    }

    func testASymlinkedFolderInTheOutputTreeFailsItsItemsAndNothingIsWrittenOutside() throws {
        try addInput("jpeg/apple_iphone_4.jpg", as: "2023/apple_iphone_4.jpg")
        try addInput("jpeg/orientation/Landscape_1.jpg", as: "2024/Landscape_1.jpg")
        try FileManager.default.createSymbolicLink(at: output.appendingPathComponent("2023"), withDestinationURL: outside)
        let report = try runPipeline()

        let refused = try XCTUnwrap(report.items.first { $0.input == "2023/apple_iphone_4.jpg" })
        XCTAssertEqual(refused.status, .failed)
        XCTAssertEqual(refused.error?.code, .writeFailed)
        XCTAssertEqual(refused.error?.message, "refusing to write through the symlink 2023 in the output tree")
        XCTAssertEqual(try contents(outside), [], "nothing written through the symlink")
        XCTAssertEqual(try contents(output.appendingPathComponent(".mediabatch/tmp/all")), [], "no temporary file left")

        // The run goes on; a missing folder is created as mkdir -p would.
        XCTAssertEqual(report.items.first { $0.input == "2024/Landscape_1.jpg" }?.status, .ok)
        XCTAssertEqual(try dimensions(output.appendingPathComponent("2024/Landscape_1.jpg").path), [1800, 1200])
        let mask = umask(0)
        umask(mask)
        let mode = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("2024").path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o777 & ~Int(mask))
    }

    func testADestinationThatIsASymlinkIsReplacedAndItsTargetIsUntouched() throws {
        try addInput("jpeg/apple_iphone_4.jpg", as: "apple_iphone_4.jpg")
        let target = outside.appendingPathComponent("precious.png")
        try FileManager.default.copyItem(atPath: Fixtures.sample("png/macos_screenshot_exif.png"), toPath: target.path)
        let before = try Data(contentsOf: target)
        let destination = output.appendingPathComponent("apple_iphone_4.jpg")
        try FileManager.default.createSymbolicLink(at: destination, withDestinationURL: target)
        let report = try runPipeline()

        XCTAssertEqual(report.items.first?.status, .ok, "\(report.items.first?.error?.message ?? "")")
        let type = try FileManager.default.attributesOfItem(atPath: destination.path)[.type] as? FileAttributeType
        XCTAssertEqual(type, .typeRegular, "the symlink itself was replaced")
        XCTAssertEqual(try dimensions(destination.path), [1296, 968])
        XCTAssertEqual(try Data(contentsOf: target), before, "the file it pointed to is unchanged")
        XCTAssertEqual(try contents(outside), ["precious.png"])
    }

    func testTheOutputRootItselfMayBeASymlink() throws {
        try addInput("heic/L_exif_xmp_iptc.heic", as: "small/L_exif_xmp_iptc.heic")
        let link = Fixtures.temporaryFolder("tree-link").appendingPathComponent("output")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: output)
        let report = try runPipeline(into: link)

        XCTAssertEqual(report.items.first?.status, .ok, "\(report.items.first?.error?.message ?? "")")
        XCTAssertEqual(try dimensions(output.appendingPathComponent("small/L_exif_xmp_iptc.jpg").path), [64, 64])
    }

    func testARunRefusesASymlinkedWorkFolderWithoutTouchingWhatItPointsTo() throws {
        try addInput("jpeg/apple_iphone_4.jpg", as: "a.jpg")
        let planted = outside.appendingPathComponent("tmp/all/keep.txt")
        try FileManager.default.createDirectory(at: planted.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: planted)
        try FileManager.default.createSymbolicLink(at: output.appendingPathComponent(".mediabatch"), withDestinationURL: outside)
        XCTAssertThrowsError(try runPipeline()) { error in
            // The run lock, beside the state database, is the first thing a run opens there.
            XCTAssertEqual("\(error)", "cannot open the run lock \(self.output.path)/.mediabatch/state.sqlite.lock: "
                           + "refusing to write through the symlink .mediabatch in the output tree")
        }
        XCTAssertEqual(try Data(contentsOf: planted), Data("precious".utf8), "emptying a killed run's temporary folder never follows a symlink")
        XCTAssertEqual(try contents(outside), ["tmp"], "no state database or lock opened through the symlink")
    }

    func testPruneRemovesNothingThroughASymlinkPlantedInTheOutputTree() throws {
        try addInput("jpeg/apple_iphone_4.jpg", as: "2023/a.jpg")
        XCTAssertEqual(try runPipeline().totals.ok, 1)
        // The input vanishes, and its output's folder is swapped for a symlink to a folder holding a file of that name.
        try FileManager.default.removeItem(at: input.appendingPathComponent("2023"))
        try FileManager.default.removeItem(at: output.appendingPathComponent("2023"))
        try Data("precious".utf8).write(to: outside.appendingPathComponent("a.jpg"))
        try FileManager.default.createSymbolicLink(at: output.appendingPathComponent("2023"), withDestinationURL: outside)
        let pipeline = try Pipeline.decode(Data("""
            {"version": 1, "stages": [{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}]}
            """.utf8), baseDirectory: Fixtures.repositoryRoot)
        var options = RunOptions(inputRoot: input, outputRoot: output, concurrency: 1, memoryBudget: pipeline.limits.memoryBudget,
                                 pipelineName: "test")
        options.prune = true
        let report = try RunReport(PipelineRunner(pipeline: pipeline, options: options).run())
        XCTAssertEqual(report.orphans.map(\.outputs), [["2023/a.jpg"]])
        XCTAssertEqual(try Data(contentsOf: outside.appendingPathComponent("a.jpg")), Data("precious".utf8))
    }
}
