@testable import MetadataKit
import XCTest

final class TakeoutJSONTests: XCTestCase {
    /// A Takeout sidecar as Google writes it, geoData's location edited in Google Photos.
    private let sidecar = """
    {
      "title": "IMG_1234.jpg",
      "description": "Caf\\u00e9 \\"Le Jules Verne\\"",
      "imageViews": "3",
      "creationTime": {
        "timestamp": "1703439000",
        "formatted": "24 Dec 2023, 17:30:00 UTC"
      },
      "photoTakenTime": {
        "timestamp": "1703439000",
        "formatted": "24 Dec 2023, 17:30:00 UTC"
      },
      "geoData": {
        "latitude": 48.8584,
        "longitude": 2.2945,
        "altitude": 35.0,
        "latitudeSpan": 0.0,
        "longitudeSpan": 0.0
      },
      "geoDataExif": {"latitude": -33.8568, "longitude": 1.512E+2, "altitude": -1e-3, "latitudeSpan": 0, "longitudeSpan": 0.0},
      "people": [{"name": "A"}],
      "url": "https://photos.google.com/photo/AF1Qip",
      "googlePhotosOrigin": {"mobileUpload": {"deviceFolder": {"localFolderName": ""}, "deviceType": "ANDROID_PHONE"}}
    }

    """

    /// `sidecar` with its non-zero geo numbers written as Takeout writes "no location".
    private var sidecarWithoutLocation: String {
        ["48.8584", "2.2945", "35.0", "-33.8568", "1.512E+2", "-1e-3"]
            .reduce(sidecar) { $0.replacingOccurrences(of: ": \($1)", with: ": 0.0") }
    }

    private func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// A JSON value written with sorted keys: two readings of one value compare equal.
    private func canonical(_ value: Any?) throws -> String {
        let value = try XCTUnwrap(value)
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    func testFactsReadTheTimeTakenAndLocation() throws {
        let facts = try TakeoutJSON.facts(in: Array(sidecar.utf8))
        XCTAssertEqual(facts, TakeoutJSON.Facts(takenAt: Date(timeIntervalSince1970: 1_703_439_000), hasLocation: true))
        XCTAssertEqual(facts.takenAt.map { ISO8601DateFormatter().string(from: $0) }, "2023-12-24T17:30:00Z")
    }

    func testZeroesAndAbsenceAreNoLocation() throws {
        XCTAssertFalse(try TakeoutJSON.facts(in: Array(sidecarWithoutLocation.utf8)).hasLocation)
        let bare = try TakeoutJSON.facts(in: Array(#"{"title": "IMG_1.jpg"}"#.utf8))
        XCTAssertEqual(bare, TakeoutJSON.Facts(takenAt: nil, hasLocation: false))
        let exifOnly = #"{"geoData": {"latitude": 0.0, "longitude": 0.0}, "geoDataExif": {"latitude": 0.0, "longitude": -0.1}}"#
        XCTAssertTrue(try TakeoutJSON.facts(in: Array(exifOnly.utf8)).hasLocation)
    }

    func testRemovalRewritesOnlyTheGeoNumbers() throws {
        let removed = try XCTUnwrap(TakeoutJSON.removingLocation(from: Array(sidecar.utf8)))
        XCTAssertEqual(String(decoding: removed, as: UTF8.self), sidecarWithoutLocation)
        XCTAssertFalse(try TakeoutJSON.facts(in: removed).hasLocation)
    }

    /// Read back as any JSON reader reads it: geo numbers all 0, every other value as it was.
    func testRemovalReadsBackWithZeroedGeoAndOtherValuesEqual() throws {
        let before = try json(Array(sidecar.utf8))
        let after = try json(XCTUnwrap(TakeoutJSON.removingLocation(from: Array(sidecar.utf8))))
        XCTAssertEqual(Set(after.keys), Set(before.keys))
        for member in TakeoutJSON.locationMembers {
            let geo = try XCTUnwrap(after[member] as? [String: Any])
            XCTAssertEqual(Set(geo.keys), Set(try XCTUnwrap(before[member] as? [String: Any]).keys))
            for (field, value) in geo { XCTAssertEqual((value as? NSNumber)?.doubleValue, 0, "\(member).\(field)") }
        }
        for (key, value) in before where !TakeoutJSON.locationMembers.contains(key) {
            XCTAssertEqual(try canonical(after[key]), try canonical(value), key)
        }
    }

    func testMembersInAnyOrderAndOnlyTopLevelOnesAreEdited() throws {
        let input = "\u{FEFF}{\"people\":[{\"name\":\"A\",\"geoData\":{\"latitude\":1.5}}],\"geoDataExif\":{\"longitude\":-7,"
            + "\"latitude\":3},\r\n\"extra\":{\"geoData\":{\"latitude\":9.25}},\"geo\\u0044ata\":{\"latitude\":4.5},\"n\":12}"
        let removed = try XCTUnwrap(TakeoutJSON.removingLocation(from: Array(input.utf8)))
        let expected = "\u{FEFF}{\"people\":[{\"name\":\"A\",\"geoData\":{\"latitude\":1.5}}],\"geoDataExif\":{\"longitude\":0.0,"
            + "\"latitude\":0.0},\r\n\"extra\":{\"geoData\":{\"latitude\":9.25}},\"geo\\u0044ata\":{\"latitude\":0.0},\"n\":12}"
        XCTAssertEqual(String(decoding: removed, as: UTF8.self), expected)
    }

    func testRemovingTwiceChangesNothingTheSecondTime() throws {
        let once = try XCTUnwrap(TakeoutJSON.removingLocation(from: Array(sidecar.utf8)))
        XCTAssertNil(try TakeoutJSON.removingLocation(from: once))
        XCTAssertNil(try TakeoutJSON.removingLocation(from: Array(#"{"geoData": {"latitude": 0, "longitude": -0.0}}"#.utf8)))
    }

    func testMalformedJSONThrowsSayingWhatIsWrong() {
        for (input, message) in [
            (#"{"geoData": {"latitude": 48.8584 "longitude": 2.2}}"#, "Takeout JSON is not valid JSON: Invalid value around character"),
            (#"{"title": "IMG_1234.jpg", "geoData": {"latitude": 4"#, "Takeout JSON is not valid JSON: Unexpected end of file"),
            ("", "Takeout JSON is not valid JSON"),
            (#"[{"geoData": {"latitude": 1}}]"#, "Takeout JSON is an array at its top level, not an object"),
        ] {
            let calls: [() throws -> Void] = [
                { _ = try TakeoutJSON.facts(in: Array(input.utf8)) }, { _ = try TakeoutJSON.removingLocation(from: Array(input.utf8)) },
            ]
            for call in calls {
                XCTAssertThrowsError(try call(), input) { error in
                    XCTAssertTrue((error as? MetadataFormatError)?.message.hasPrefix(message) ?? false, "\(error)")
                }
            }
        }
    }
}
