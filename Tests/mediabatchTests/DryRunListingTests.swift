@testable import mediabatch
@testable import MediaBatchCore
import XCTest

/// The first word of each `--dry-run` line says what would happen and why.
final class DryRunListingTests: XCTestCase {
    func result(_ status: ItemResult.Status, _ change: ItemChange?, output: String? = nil, reason: String? = nil) -> ItemResult {
        ItemResult(.init(input: "a/IMG_1.heic", format: "heic", kinds: [.images], livePhoto: nil, status: status, change: change,
                   output: output, reason: reason, removedMetadata: nil, error: nil, bytesIn: 0, bytesOut: 0,
                   milliseconds: 0, estimatedBytes: nil))
    }

    func testEachDecisionHasItsWord() {
        XCTAssertEqual(DryRunListing.line(for: result(.planned, .new, output: "a/IMG_1.jpg")), "new a/IMG_1.heic -> a/IMG_1.jpg [images]")
        XCTAssertEqual(DryRunListing.line(for: result(.planned, .pipelineChanged, output: "a/IMG_1.jpg")),
                       "changed (pipelineChanged) a/IMG_1.heic -> a/IMG_1.jpg [images]")
        XCTAssertEqual(DryRunListing.line(for: result(.planned, .failedBefore, output: "a/IMG_1.jpg")),
                       "failed-before a/IMG_1.heic -> a/IMG_1.jpg [images]")
        XCTAssertEqual(DryRunListing.line(for: result(.unchanged, .unchanged, output: "a/IMG_1.jpg")), "unchanged a/IMG_1.heic -> a/IMG_1.jpg")
        XCTAssertEqual(DryRunListing.line(for: result(.skipped, .unchanged, reason: "filtered out (heic: images)")),
                       "filtered a/IMG_1.heic: filtered out (heic: images)")
        XCTAssertEqual(DryRunListing.line(for: result(.skipped, .new, reason: "not a media file")), "skip a/IMG_1.heic: not a media file")
        XCTAssertNil(DryRunListing.line(for: result(.failed, .new)), "failures go to stderr")
    }
}
