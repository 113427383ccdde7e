import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// A camera RAW's picture through whole pipelines (worker processes, real LibRaw) on DNGs made
/// from a real photo (`DevelopableDNG`): which source `auto` takes and what the report says, the
/// preview turned once, the develop against `dcraw_emu`'s, and what happens when a source fails
/// or is smaller than asked.
final class RawPictureTests: XCTestCase, RunsPipelines {
    private static let input = Fixtures.temporaryFolder()

    override class func setUp() {
        try! Vips.start()
        // 1200×900 as stored, turned by orientation 6: 900×1200 upright. Its 1024 px preview is
        // stored unturned and says orientation 6 itself, as some cameras' do (Immich #12720).
        try! DevelopableDNG.write(to: input.appendingPathComponent("sideways.dng"), width: 1200, orientation: 6,
                                  preview: 1024, previewOrientation: 6, gps: true)
        // The same with a 384 px preview.
        try! DevelopableDNG.write(to: input.appendingPathComponent("small-preview.dng"), width: 1200, orientation: 6, preview: 384)
        // A 1024 px preview whose JPEG is cut in half.
        try! DevelopableDNG.write(to: input.appendingPathComponent("broken-preview.dng"), width: 1200, preview: 1024, brokenPreview: true)
        // Its sensor data removed but 16 bytes, with a 384 px preview: exiftool's test images are such.
        try! DevelopableDNG.write(to: input.appendingPathComponent("emptied.dng"), width: 1200, preview: 384, emptySensorData: true)
        // Half its sensor data cut off, with a 384 px preview.
        try! DevelopableDNG.write(to: input.appendingPathComponent("cut.dng"), width: 1200, preview: 384, truncate: 0.5)
    }

    /// `inspect` says what a full develop makes, as stored, and the RAW's own orientation.
    func testInspectReadsTheRawsSizeFromLibRaw() throws {
        let inspection = try Inspection.read(path: Self.input.appendingPathComponent("sideways.dng").path)
        XCTAssertEqual([inspection.width, inspection.height], [1200, 900])
        XCTAssertEqual(inspection.orientation, 6)
        XCTAssertEqual(inspection.make, "Mediabatch")
    }
}
