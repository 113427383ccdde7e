import Foundation
import MediaFormats
@testable import MetadataKit
import TestSupport
import XCTest

/// A TIFF's directories tell a camera's RAW from an image: sensor data in IFD0, a directory after
/// it or a SubIFD, DNGVersion, the maker.
final class TIFFFactsReadingTests: XCTestCase {
    static let committedDNG = Fixtures.fixtures.appendingPathComponent("kinds/images/raw_synthetic.dng")

    func testRawFilesShowTheirSensorDataWhereverTheirCameraPutIt() {
        XCTAssertEqual(TIFFFacts.read(CameraRawFile.dng.bytes), TIFFFacts(isDNG: true, make: "Canon", holdsRawData: true), "in a SubIFD")
        XCTAssertEqual(TIFFFacts.read(CameraRawFile.nef.bytes), TIFFFacts(isDNG: false, make: "NIKON CORPORATION", holdsRawData: true))
        XCTAssertEqual(TIFFFacts.read(CameraRawFile.cr2.bytes), TIFFFacts(isDNG: false, make: "Canon", holdsRawData: true),
                       "in the directory after IFD0")
    }

    func testATIFFImageHoldsNoSensorData() throws {
        let facts = try XCTUnwrap(TIFFFacts.read(path: Fixtures.fixtures.appendingPathComponent("metadata/tiff-location-everywhere.tif").path))
        XCTAssertFalse(facts.holdsRawData)
        XCTAssertFalse(facts.isDNG)
        XCTAssertNil(TIFFFacts.read(Array("not a TIFF".utf8)))
    }

    /// Directories that point at each other, or past the end, end the walk; nothing hangs or traps.
    func testLoopsAndDanglingPointersEndTheWalk() {
        var looped = CameraRawFile.nef.bytes
        // IFD0's next-directory pointer (after its entries) pointed back at IFD0.
        let count = Int(looped[8]) | Int(looped[9]) << 8
        looped.replaceSubrange(10 + count * 12..<14 + count * 12, with: [8, 0, 0, 0])
        XCTAssertEqual(TIFFFacts.read(looped)?.holdsRawData, true)
        let cut = Array(CameraRawFile.nef.bytes.prefix(40))
        XCTAssertEqual(TIFFFacts.read(cut)?.holdsRawData, false)
    }

    /// The DNG among the kind fixtures is what `CameraRawFile` makes (`MEDIABATCH_RECORD_GOLDENS=1` writes it again).
    func testTheCommittedDNGIsTheOneMadeHere() throws {
        if ProcessInfo.processInfo.environment["MEDIABATCH_RECORD_GOLDENS"] == "1" { try CameraRawFile.dng.write(to: Self.committedDNG.path) }
        XCTAssertEqual(try [UInt8](Data(contentsOf: Self.committedDNG)), CameraRawFile.dng.bytes)
    }
}
