@testable import mediabatch
import MediaBatchCore
import XCTest

final class InspectionTextTests: XCTestCase {
    func testApertureAndFocalLength() {
        XCTAssertEqual(InspectionText.aperture(2.2), "f/2.2")
        XCTAssertEqual(InspectionText.aperture(11), "f/11")
        XCTAssertEqual(InspectionText.focalLength(4.15, in35mm: 29), "4.2 mm (29 mm in 35 mm)")
        XCTAssertEqual(InspectionText.focalLength(57, in35mm: nil), "57 mm")
    }

    func testShutterInPhotographersNotation() {
        XCTAssertEqual(InspectionText.shutter(1.0 / 120), "1/120 s")
        XCTAssertEqual(InspectionText.shutter(0.0743), "1/13 s")
        XCTAssertEqual(InspectionText.shutter(0.5), "1/2 s")
        XCTAssertEqual(InspectionText.shutter(2), "2 s")
        XCTAssertEqual(InspectionText.shutter(1.5), "1.5 s")
        XCTAssertNil(InspectionText.shutter(0))
        XCTAssertNil(InspectionText.shutter(.infinity))
    }

    func testCameraDoesNotRepeatTheMake() {
        XCTAssertEqual(InspectionText.camera(make: "Apple", model: "iPhone 6s"), "Apple iPhone 6s")
        XCTAssertEqual(InspectionText.camera(make: "Canon", model: "Canon EOS 7D"), "Canon EOS 7D")
        XCTAssertEqual(InspectionText.camera(make: "NIKON CORPORATION", model: "NIKON D5000"), "NIKON CORPORATION NIKON D5000")
        XCTAssertEqual(InspectionText.camera(make: "Apple", model: nil), "Apple")
        XCTAssertNil(InspectionText.camera(make: nil, model: nil))
    }

    func testOrientationCoordinatesAndStreams() {
        XCTAssertEqual(InspectionText.orientation(6), "6 (rotate 90° CW)")
        XCTAssertEqual(InspectionText.orientation(1), "1 (normal)")
        XCTAssertEqual(InspectionText.coordinates(latitude: 52.2096777, longitude: -0.8955305, altitude: -3.04),
                       "52.209678, -0.895531, altitude -3 m")
        XCTAssertEqual(InspectionText.coordinates(latitude: 51.4169, longitude: -0.0806, altitude: nil), "51.416900, -0.080600")
        XCTAssertEqual(InspectionText.streams([.init(kind: "video", codec: "h264"), .init(kind: "data", codec: "none")]), "video h264, data")
    }
}
