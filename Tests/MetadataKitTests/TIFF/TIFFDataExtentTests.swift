import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// How far a RAW's image data reach and whether its sensor data can be whole, on DNGs made whole,
/// cut off, and emptied as exiftool's test images are (`DevelopableDNG`).
final class TIFFDataExtentTests: XCTestCase {
    private let folder = Fixtures.temporaryFolder()

    func testAWholeDNGReachesItsEndAndHoldsItsSensorData() throws {
        let url = folder.appendingPathComponent("whole.dng")
        try DevelopableDNG.write(to: url, width: 600, preview: 300)
        let extent = try XCTUnwrap(TIFFDataExtent.read(path: url.path))
        XCTAssertEqual(extent.claimed, extent.size, "the sensor data come last and end the file")
        XCTAssertEqual(extent.sensorData?.bytes, 600 * 450 * 2, "16 bits a sample, uncompressed")
        XCTAssertEqual(extent.sensorData?.fewest, 600 * 450 / 8)
        XCTAssertNil(extent.damage)
    }

    func testACutOffDNGIsSaidToBe() throws {
        let url = folder.appendingPathComponent("cut.dng")
        try DevelopableDNG.write(to: url, width: 600, truncate: 0.5)
        let extent = try XCTUnwrap(TIFFDataExtent.read(path: url.path))
        XCTAssertEqual(extent.claimed - extent.size, 600 * 450, "half of 2 bytes a pixel missing")
        XCTAssertEqual(extent.damage, "the file is cut off (its image data reach byte \(extent.claimed), it has \(extent.size) bytes)")
    }

    func testSensorDataInFewerBytesThanABitASampleWereRemoved() throws {
        let url = folder.appendingPathComponent("emptied.dng")
        try DevelopableDNG.write(to: url, width: 600, emptySensorData: true)
        let extent = try XCTUnwrap(TIFFDataExtent.read(path: url.path))
        XCTAssertEqual(extent.claimed, extent.size)
        XCTAssertEqual(extent.damage, "its sensor data are 16 bytes, fewer than a bit a sample (33750 bytes): they were removed")
        XCTAssertNil(TIFFDataExtent.read(path: Fixtures.sample("jpeg/apple_iphone_4.jpg")), "no TIFF")
    }
}
