import Foundation
@testable import MediaBatchCore
import PipelineModel
import RunState
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// What the header phase decides before an item is admitted, in real runs: refusals from lstat,
/// the size limit from stat, formats from the bytes, vanished files and output claims.
final class HeaderPhaseTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
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
        defer { try? DecoderAllowList.startLibvips(for: Defaults.formats, encoding: true) } // libvips' loader blocks are process-wide
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

    /// A dry run records nothing and so hashes no input, unless a path is named after its hash (`{inputHash}`).
    func testADryRunNamesAHashedOutputAsTheRunWould() throws {
        let input = try Self.folder(of: ["jpeg/apple_iphone_4.jpg"])
        let pipeline = try pipeline(#"{"stage": "decode"}, {"stage": "write", "path": "{inputHash:12}.{ext}"}"#)
        let hash = try ContentHash.ofFile(atPath: input.appendingPathComponent("apple_iphone_4.jpg").path)
        for dryRun in [true, false] {
            let report = try Self.run(pipeline, input: input, output: Fixtures.temporaryFolder(), dryRun: dryRun)
            XCTAssertEqual(result(report, "apple_iphone_4.jpg")?.output, "\(hash.prefix(12)).jpg", "dry run: \(dryRun)")
        }
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
}
