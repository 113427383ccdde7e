@testable import MediaBatchCore
import XCTest

/// The listing's end is known when its last item is handed out, not only when asked for one more.
final class ListingEndTests: XCTestCase {
    func testTheEndIsKnownWithTheLastItem() {
        let listing = ListingEnd(["a", "b", "c"])
        let iterator = listing.makeIterator()
        XCTAssertFalse(listing.ended, "nothing listed yet")
        XCTAssertEqual(iterator.next(), "a")
        XCTAssertEqual(iterator.next(), "b")
        XCTAssertFalse(listing.ended, "c is still to come")
        XCTAssertEqual(iterator.next(), "c")
        XCTAssertTrue(listing.ended, "c was the last")
        XCTAssertNil(iterator.next())
        XCTAssertTrue(listing.ended)
    }

    func testAnEmptyListingHasEndedOnceAskedForItsFirst() {
        let listing = ListingEnd([String]())
        let iterator = listing.makeIterator()
        XCTAssertFalse(listing.ended)
        XCTAssertNil(iterator.next())
        XCTAssertTrue(listing.ended)
    }
}
