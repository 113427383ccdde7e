import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// `input.duplicates: keeper` over real copies: each photo's keeper processed, its copies skipped
/// with why, and a copy arriving in a later run skipped too.
final class DuplicateScanTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    private let stages = #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 256}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}"#

    /// A phone photo, its re-encode at q60, and another photo.
    private func library() throws -> URL {
        let folder = try Self.folder(of: ["jpeg/apple_iphone_4.jpg", "jpeg/canon_eos_7d_iptc_city.jpg"])
        let photo = folder.appendingPathComponent("apple_iphone_4.jpg").path
        XCTAssertEqual(try runProcess("vips", ["copy", photo, folder.appendingPathComponent("apple_iphone_4_q60.jpg").path + "[Q=60]"]).exitCode, 0)
        return folder
    }

    func testTheKeeperIsProcessedAndItsCopiesSkippedNowAndLater() throws {
        let input = try library(), output = Fixtures.temporaryFolder()
        let pipeline = try pipeline(stages, input: #"{"duplicates": "keeper"}"#)
        let first = try Self.run(pipeline, input: input, output: output)
        XCTAssertEqual(first.items.filter { $0.status == .ok }.map(\.input).sorted(), ["apple_iphone_4.jpg", "canon_eos_7d_iptc_city.jpg"])
        let copy = try XCTUnwrap(result(first, "apple_iphone_4_q60.jpg"))
        XCTAssertEqual(copy.status, .skipped)
        XCTAssertEqual(copy.reason, "duplicateOf: apple_iphone_4.jpg (samePhoto)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("apple_iphone_4_q60.jpg").path))

        // A later copy (the same bytes under another name) meets the photo already done.
        try FileManager.default.copyItem(at: input.appendingPathComponent("apple_iphone_4.jpg"), to: input.appendingPathComponent("later/IMG_0001.jpg"),
                                         creatingFolder: true)
        let second = try Self.run(pipeline, input: input, output: output)
        XCTAssertEqual(result(second, "later/IMG_0001.jpg")?.reason, "duplicateOf: apple_iphone_4.jpg (samePhoto)")
        XCTAssertEqual(result(second, "apple_iphone_4.jpg")?.status, .unchanged)
        XCTAssertEqual(second.items.filter { $0.status == .ok }.count, 0)
    }

    /// The larger copy arriving later becomes the keeper: the smaller, done before, is skipped, and
    /// its output, no longer produced, goes with --prune.
    func testABetterCopyArrivingLaterTakesOver() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        let photo = Fixtures.sample("jpeg/apple_iphone_4.jpg")
        XCTAssertEqual(try runProcess("vips", ["resize", photo, input.appendingPathComponent("small.jpg").path, "0.5"]).exitCode, 0)
        let pipeline = try pipeline(stages, input: #"{"duplicates": "keeper"}"#)
        XCTAssertEqual(try Self.run(pipeline, input: input, output: output).totals.ok, 1)
        try FileManager.default.copyItem(atPath: photo, toPath: input.appendingPathComponent("large.jpg").path)
        let later = try Self.run(pipeline, input: input, output: output, prune: true)
        XCTAssertEqual(result(later, "large.jpg")?.status, .ok)
        XCTAssertEqual(result(later, "small.jpg")?.reason, "duplicateOf: large.jpg (samePhoto)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }, ["large.jpg"])
    }

    /// A dry run lists the copy as skipped and writes nothing, its fingerprints' database included.
    func testADryRunSkipsTheCopiesAndWritesNothing() throws {
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(stages, input: #"{"duplicates": "keeper"}"#), input: try library(), output: output, dryRun: true)
        XCTAssertEqual(result(report, "apple_iphone_4_q60.jpg")?.reason, "duplicateOf: apple_iphone_4.jpg (samePhoto)")
        XCTAssertEqual(result(report, "apple_iphone_4.jpg")?.status, .planned)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path), [])
    }

    /// A RAW arriving beside its camera's JPEG, done before: the pair's rule (`rawJpegPairs: raw`)
    /// hands the photo over to the RAW, and a copy of the JPEG stays skipped, now as a copy of the
    /// RAW. Under the default rule the RAW is paired away and never the JPEG's keeper.
    func testARawArrivingLaterTakesOverItsJpegAndItsCopies() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        XCTAssertEqual(try runProcess("vips", ["thumbnail", DevelopableDNG.photo, input.appendingPathComponent("IMG_1.jpg").path, "1200"]).exitCode, 0)
        XCTAssertEqual(try runProcess("vips", ["thumbnail", DevelopableDNG.photo, input.appendingPathComponent("IMG_1_mailed.jpg").path + "[Q=60]", "600"]).exitCode, 0)
        let raw = try pipeline(stages, input: #"{"duplicates": "keeper", "rawJpegPairs": "raw"}"#)
        let first = try Self.run(raw, input: input, output: output)
        XCTAssertEqual(result(first, "IMG_1_mailed.jpg")?.reason, "duplicateOf: IMG_1.jpg (samePhoto)")

        try DevelopableDNG.write(to: input.appendingPathComponent("IMG_1.dng"), width: 1200, preview: 1024)
        let byDefault = try Self.run(try pipeline(stages, input: #"{"duplicates": "keeper"}"#), input: input, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(byDefault, "IMG_1.jpg")?.status, .ok)
        XCTAssertEqual(result(byDefault, "IMG_1.dng")?.status, .skipped)
        XCTAssertEqual(result(byDefault, "IMG_1_mailed.jpg")?.reason, "duplicateOf: IMG_1.jpg (samePhoto)")

        let later = try Self.run(raw, input: input, output: output)
        XCTAssertEqual(result(later, "IMG_1.dng")?.status, .ok)
        XCTAssertEqual(result(later, "IMG_1.jpg")?.status, .skipped)
        XCTAssertEqual(result(later, "IMG_1_mailed.jpg")?.reason, "duplicateOf: IMG_1.dng (samePhoto)")
        XCTAssertEqual(result(later, "IMG_1.jpg")?.reason?.hasPrefix("pairedWithRaw: IMG_1.dng"), true)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }, ["IMG_1.jpg"],
                       "the RAW's output under the name the JPEG's had")
    }

    func testEveryFileIsProcessedByDefault() throws {
        let report = try Self.run(try pipeline(stages), input: try library(), output: Fixtures.temporaryFolder())
        XCTAssertEqual(report.totals.ok, 3)
    }
}

extension FileManager {
    fileprivate func copyItem(at source: URL, to destination: URL, creatingFolder: Bool) throws {
        try createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try copyItem(at: source, to: destination)
    }
}
