import Foundation
@testable import MediaBatchCore
import PipelineModel
import RunState
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// Incremental runs over real files: what a second run does, item by item, after each kind of change.
/// The HEICs are the iPhone photos a third their size (`SmallerSamples`: the same names, formats,
/// dates and places): what a run redoes does not turn on a photo's size, and every test runs twice or more.
final class RunLedgerTests: XCTestCase {
    private var input: URL!
    private var output: URL!

    static let library = [
        "heic/IMG_1034.heic", "heic/pug.heic", "jpeg/apple_iphone_4.jpg", "jpeg/canon_eos_7d_iptc_city.jpg",
        "png/macos_screenshot_exif.png", "livephoto/train.jpg", "livephoto/train.mov", "video/README.txt",
    ]

    override func setUpWithError() throws {
        try Vips.start()
        input = Fixtures.temporaryFolder("ledger-input")
        output = Fixtures.temporaryFolder("ledger-output")
        for relative in Self.library {
            let destination = input.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            if relative.hasSuffix(".txt") {
                try Data("not media".utf8).write(to: destination)
            } else if relative.hasSuffix(".heic") {
                try FileManager.default.copyItem(atPath: SmallerSamples.heic(relative), toPath: destination.path)
            } else {
                try FileManager.default.copyItem(atPath: Fixtures.sample(relative), toPath: destination.path)
            }
        }
    }

    private func pipeline(quality: Int = 80, heicQuality: Int? = nil, maxPixelSize: Int = 1024,
                          match: String = #""images""#, path: String = "{dir}/{stem}.{ext}") throws -> Pipeline {
        let transcode = heicQuality.map { #"{"stage": "transcode", "from": ["heic"], "to": "jpeg", "quality": \#($0)}"# }
            ?? #"{"stage": "transcode", "to": "jpeg", "quality": \#(quality)}"#
        return try Pipeline.decode(Data("""
            {"version": 1, "stages": [
              {"stage": "filter", "match": \(match)}, {"stage": "decode"},
              {"stage": "downsample", "maxPixelSize": \(maxPixelSize)}, \(transcode),
              {"stage": "stripLocation"}, {"stage": "write", "path": "\(path)"}]}
            """.utf8), baseDirectory: Fixtures.repositoryRoot)
    }

    @discardableResult
    private func run(_ pipeline: Pipeline, force: Bool = false, prune: Bool = false, dryRun: Bool = false) throws -> RunReport {
        var options = RunOptions(inputRoot: input, outputRoot: output, concurrency: 2, memoryBudget: ByteSize(bytes: 1 << 30),
                                 pipelineName: "ledger.json", dryRun: dryRun)
        options.force = force
        options.prune = prune
        return try RunReport(PipelineRunner(pipeline: pipeline, options: options).run())
    }

    /// Each item's change, for the items whose change is not `unchanged`.
    private func redone(_ report: RunReport) -> [String: ItemChange] {
        Dictionary(uniqueKeysWithValues: report.items.compactMap { item in
            item.change.flatMap { $0 == .unchanged ? nil : (item.input, $0) }
        })
    }

    private func stamps() throws -> [String: FileStamp] {
        var stamps: [String: FileStamp] = [:]
        let enumerator = FileManager.default.enumerator(atPath: output.path)!
        while let relative = enumerator.nextObject() as? String {
            guard !relative.hasPrefix(".mediabatch"), let stamp = FileStamp(path: output.appendingPathComponent(relative).path),
                  relative.contains(".") else { continue }
            stamps[relative] = stamp
        }
        return stamps
    }

    func testAnUnchangedSecondRunDoesNoImageWorkAndRewritesNothing() throws {
        let first = try run(try pipeline())
        XCTAssertEqual(first.totals.ok, 7, "6 images and the Live Photo movie")
        XCTAssertEqual(first.totals.changes, ["new": 8])
        let written = try stamps()
        XCTAssertEqual(written.count, 7)

        let second = try run(try pipeline())
        XCTAssertEqual(second.totals.ok, 0, "no item was processed")
        XCTAssertEqual(second.totals.unchanged, 7)
        XCTAssertEqual(second.totals.skipped, 1, "the non-media file stays skipped")
        XCTAssertEqual(second.totals.changes, ["unchanged": 8])
        XCTAssertEqual(second.totals.bytesIn, 0, "no input was read")
        XCTAssertEqual(try stamps(), written, "no output was rewritten")
        XCTAssertEqual(second.items.first { $0.input == "heic/pug.heic" }?.output, "heic/pug.jpg")

        // A touched but identical input is hashed once, found the same, and left alone.
        let pug = input.appendingPathComponent("heic/pug.heic")
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: pug.path)
        XCTAssertEqual(redone(try run(try pipeline())), [:])
    }

    /// A state database that cannot be read about an item says nothing of it: the item fails
    /// (`stateUnreadable`) rather than run as new over outputs the database may own.
    func testAnUnreadableStateDatabaseFailsItemsInsteadOfTakingThemForNew() throws {
        try run(try pipeline())
        let state = output.appendingPathComponent(".mediabatch/state.sqlite").path
        // Waiting out a lock, as a run would: the first run's connection may still be closing (seen once in a full suite).
        let dropped = try runProcess("sqlite3", ["-cmd", ".timeout 5000", state, "DROP TABLE items"])
        XCTAssertEqual(dropped.exitCode, 0, dropped.stderr)
        let written = try stamps()
        let second = try run(try pipeline())
        XCTAssertEqual(second.totals.ok, 0)
        XCTAssertEqual(Set(second.items.compactMap(\.error?.code)), [.stateUnreadable], "\(second.items.map(\.error))")
        XCTAssertTrue(second.items.allSatisfy { $0.error?.message.hasPrefix("cannot read the state database: ") ?? true })
        XCTAssertEqual(try stamps(), written, "no output was written over")
    }

    func testChangingOneInputRedoesExactlyThatItem() throws {
        try run(try pipeline())
        // Replace the content of one JPEG with another photo.
        let canon = input.appendingPathComponent("jpeg/canon_eos_7d_iptc_city.jpg")
        try FileManager.default.removeItem(at: canon)
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/orientation/Landscape_6.jpg"), toPath: canon.path)
        let report = try run(try pipeline())
        XCTAssertEqual(redone(report), ["jpeg/canon_eos_7d_iptc_city.jpg": .inputChanged])
        XCTAssertEqual(report.totals.ok, 1)
        let rewritten = try VImage.open(output.appendingPathComponent("jpeg/canon_eos_7d_iptc_city.jpg").path)
        XCTAssertEqual(rewritten.width, 1024, "the new content (1200×1800 stored, orientation 6), upright")
        XCTAssertLessThan(rewritten.height, rewritten.width)
    }

    func testChangingOneStageOptionRedoesOnlyTheItemsItApplies() throws {
        try run(try pipeline(heicQuality: 80))
        // The transcode applies to HEICs only: the JPEGs, the PNG and the movie stand.
        XCTAssertEqual(redone(try run(try pipeline(heicQuality: 60))),
                       ["heic/IMG_1034.heic": .pipelineChanged, "heic/pug.heic": .pipelineChanged])
        // Downsampling applies to every image but not to the movie.
        let report = try run(try pipeline(heicQuality: 60, maxPixelSize: 512))
        XCTAssertEqual(Set(redone(report).keys), ["heic/IMG_1034.heic", "heic/pug.heic", "jpeg/apple_iphone_4.jpg",
                                                   "jpeg/canon_eos_7d_iptc_city.jpg", "livephoto/train.jpg", "png/macos_screenshot_exif.png"])
        XCTAssertEqual(report.items.first { $0.input == "livephoto/train.mov" }?.status, .unchanged)
        // The same options spelled differently (the default quality written out) change nothing.
        try run(try pipeline(quality: 80))
        XCTAssertEqual(redone(try run(try Pipeline.decode(Data("""
            {"version": 1, "stages": [{"match": "images", "stage": "filter"}, {"stage": "decode"},
              {"stage": "downsample", "maxPixelSize": 1024}, {"stage": "transcode", "to": "jpeg"},
              {"stage": "stripMetadata", "remove": ["location"]}, {"stage": "write"}]}
            """.utf8), baseDirectory: Fixtures.repositoryRoot))), [:])
    }

    func testMissingOrAlteredOutputsAreRedone() throws {
        try run(try pipeline())
        try FileManager.default.removeItem(at: output.appendingPathComponent("heic/pug.jpg"))
        try Data("scribbled over".utf8).write(to: output.appendingPathComponent("jpeg/apple_iphone_4.jpg"))
        let report = try run(try pipeline())
        XCTAssertEqual(redone(report), ["heic/pug.heic": .outputMissing, "jpeg/apple_iphone_4.jpg": .outputAltered])
        XCTAssertNoThrow(try VImage.open(output.appendingPathComponent("jpeg/apple_iphone_4.jpg").path).pixels())
    }

    func testAFilterChangeRedecidesFromHeadersWithoutRedoingSelectedItems() throws {
        try run(try pipeline())
        let written = try stamps()
        // Now screenshots are out: the PNG's output becomes stale; every other output stands.
        let report = try run(try pipeline(match: #"{"all": ["images", {"not": "screenshots"}]}"#))
        XCTAssertEqual(report.totals.ok, 0)
        XCTAssertEqual(report.items.first { $0.input == "jpeg/apple_iphone_4.jpg" }?.status, .unchanged)
        XCTAssertEqual(report.items.first { $0.input == "png/macos_screenshot_exif.png" }?.status, .skipped)
        XCTAssertEqual(try stamps(), written)
        XCTAssertEqual(report.staleOutputs, ["png/macos_screenshot_exif.jpg"])
        // --prune removes it.
        let pruned = try run(try pipeline(match: #"{"all": ["images", {"not": "screenshots"}]}"#), prune: true)
        XCTAssertEqual(pruned.staleOutputs, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("png/macos_screenshot_exif.jpg").path))
    }

    func testVanishedInputsAreReportedAndPrunedOnlyWhenAsked() throws {
        try run(try pipeline())
        try FileManager.default.removeItem(at: input.appendingPathComponent("heic/pug.heic"))
        let report = try run(try pipeline())
        XCTAssertEqual(report.orphans, [OrphanedOutputs(input: "heic/pug.heic", outputs: ["heic/pug.jpg"], removed: false)])
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("heic/pug.jpg").path))
        let pruned = try run(try pipeline(), prune: true)
        XCTAssertEqual(pruned.orphans, [OrphanedOutputs(input: "heic/pug.heic", outputs: ["heic/pug.jpg"], removed: true)])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("heic/pug.jpg").path))
        XCTAssertEqual(try run(try pipeline()).orphans, [], "forgotten once pruned")
    }

    func testFailuresAreRetriedAndForceRedoesEverything() throws {
        try FileManager.default.copyItem(at: Fixtures.broken.appendingPathComponent("corrupted.heic"),
                                         to: input.appendingPathComponent("heic/corrupted.heic"))
        XCTAssertEqual(try run(try pipeline()).totals.failed, 1)
        let second = try run(try pipeline())
        XCTAssertEqual(redone(second), ["heic/corrupted.heic": .failedBefore])
        let forced = try run(try pipeline(), force: true)
        XCTAssertEqual(forced.totals.ok, 7)
        XCTAssertEqual(Set(redone(forced).values), [.forced])
    }

    func testAnOutputNameTakenByAnUnchangedItemIsACollision() throws {
        try run(try pipeline())
        let written = try stamps()
        // IMG_1034.jpg would become heic/IMG_1034.jpg, which the unchanged HEIC already wrote.
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"),
                                         toPath: input.appendingPathComponent("heic/IMG_1034.jpg").path)
        let report = try run(try pipeline())
        let collision = report.items.first { $0.input == "heic/IMG_1034.jpg" }
        XCTAssertEqual(collision?.error?.code, .outputCollision)
        XCTAssertEqual(collision?.error?.message, "heic/IMG_1034.jpg is already the output of heic/IMG_1034.heic")
        XCTAssertEqual(try stamps(), written, "the HEIC's output stands")
    }

    func testDryRunSaysWhatWouldBeDoneAndWritesNothing() throws {
        try run(try pipeline())
        try FileManager.default.removeItem(at: output.appendingPathComponent("heic/pug.jpg"))
        let database = output.appendingPathComponent(".mediabatch/state.sqlite").path
        let before = try XCTUnwrap(try StateStore(readingExisting: database))
        let (lastRun, pug) = (try before.lastRun(), try before.item("heic/pug.heic"))
        let report = try run(try pipeline(), dryRun: true)
        XCTAssertEqual(redone(report), ["heic/pug.heic": .outputMissing])
        XCTAssertEqual(report.totals.planned, 1)
        XCTAssertEqual(report.totals.unchanged, 6)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("heic/pug.jpg").path))
        let after = try XCTUnwrap(try StateStore(readingExisting: database))
        XCTAssertEqual(try after.lastRun(), lastRun, "a dry run records no run")
        XCTAssertEqual(try after.item("heic/pug.heic"), pug)
    }

    func testCaptureDateAndHashPlaceholders() throws {
        let report = try run(try pipeline(path: "{date:yyyy}/{date:MM}/{stem}-{inputHash:8}.{ext}"))
        let pug = try XCTUnwrap(report.items.first { $0.input == "heic/pug.heic" })
        let hash = try ContentHash.ofFile(atPath: input.appendingPathComponent("heic/pug.heic").path)
        XCTAssertEqual(pug.output, "2023/02/pug-\(hash.prefix(8)).jpg", "captured 2023-02-21T14:33:08+03:00")
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(pug.output!).path))
    }
}
