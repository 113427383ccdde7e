import Foundation
@testable import MediaBatchCore
import TestSupport
import XCTest

/// What `inspect` reads of a file, from its headers alone.
final class InspectionTests: XCTestCase {
    /// A camera RAW's size is what a full develop makes, as stored (LibRaw's), with the RAW's own orientation.
    func testARawsSizeIsLibRawsAndItsOrientationItsOwn() throws {
        let dng = Fixtures.temporaryFolder().appendingPathComponent("sideways.dng")
        try DevelopableDNG.write(to: dng, width: 1200, orientation: 6, preview: 1024, previewOrientation: 6)
        let inspection = try Inspection.read(path: dng.path)
        XCTAssertEqual([inspection.width, inspection.height], [1200, 900])
        XCTAssertEqual(inspection.orientation, 6)
        XCTAssertEqual(inspection.make, "Mediabatch")
    }
}
