@testable import MediaBatchCore
import XCTest

final class GeoPositionTests: XCTestCase {
    func testDegreesMinutesSecondsTakeTheSignOfTheirReference() {
        XCTAssertEqual(GeoPosition.decimalDegrees([52, 12, 34.84], reference: "N")!, 52.209678, accuracy: 1e-6)
        XCTAssertEqual(GeoPosition.decimalDegrees([0, 53, 43.91], reference: "W")!, -0.895531, accuracy: 1e-6)
        XCTAssertEqual(GeoPosition.decimalDegrees([33, 51.5], reference: "S")!, -33.858333, accuracy: 1e-6)
        XCTAssertEqual(GeoPosition.decimalDegrees([151.2], reference: "E"), 151.2)
        XCTAssertNil(GeoPosition.decimalDegrees([], reference: "N"))
        XCTAssertNil(GeoPosition.decimalDegrees([1, 2, 3, 4], reference: "N"))
        XCTAssertNil(GeoPosition.decimalDegrees([-1, 0, 0], reference: "N"))
        XCTAssertNil(GeoPosition.decimalDegrees([.nan], reference: "N"))
    }

    func testISO6709InDecimalDegreesWithAndWithoutAltitude() {
        XCTAssertEqual(GeoPosition(iso6709: "+52.2097-000.8955+103.640/"), GeoPosition(latitude: 52.2097, longitude: -0.8955, altitude: 103.64))
        XCTAssertEqual(GeoPosition(iso6709: "+51.4169-000.0806/"), GeoPosition(latitude: 51.4169, longitude: -0.0806))
        XCTAssertEqual(GeoPosition(iso6709: "-33.8568+151.2153-012.5CRSWGS_84/"),
                       GeoPosition(latitude: -33.8568, longitude: 151.2153, altitude: -12.5))
    }

    func testISO6709InDegreesAndMinutesOrSeconds() throws {
        let minutes = try XCTUnwrap(GeoPosition(iso6709: "+4012.5-07530.0/"))
        XCTAssertEqual(minutes.latitude, 40.208333, accuracy: 1e-6)
        XCTAssertEqual(minutes.longitude, -75.5, accuracy: 1e-6)
        let seconds = try XCTUnwrap(GeoPosition(iso6709: "+401230-0753015/"))
        XCTAssertEqual(seconds.latitude, 40.208333, accuracy: 1e-6)
        XCTAssertEqual(seconds.longitude, -75.504167, accuracy: 1e-6)
    }

    func testMalformedISO6709IsRejected() {
        for text in ["", "/", "+52.2097/", "52.2097-000.8955/", "+52.2097-000.8955+1+2/", "+95.0-000.0/", "+52.2097-0000.8955/",
                     "+5261.0-00000.0/", "+52.2.1-000.8955/", "+-52-000/", "+52.2097-abc/", "+٥٢.1-000.1/"] {
            XCTAssertNil(GeoPosition(iso6709: text), text)
        }
    }
}
