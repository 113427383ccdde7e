import Foundation
import TestSupport
import XCTest

/// `mediabatch inspect` against exiftool's reading of the same samples.
final class InspectCommandTests: XCTestCase {
    func mediabatch(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(Fixtures.executable.path, arguments, in: Fixtures.repositoryRoot)
    }

    static let images = ["samples/livephoto/train.jpg", "samples/heic/iphone_xr_issue263.heic",
                         "samples/jpeg/samsung_gt-i9000_gps00_rot90.jpg", "samples/jpeg/canon_eos_7d_iptc_city.jpg",
                         // Its EXIF GPS seconds are 0/0: no EXIF position (exiftool agrees), though EXIF holds location.
                         "samples/jpeg/nikon_d5000_xmp_gps_only.jpg"]
    static let videos = ["samples/livephoto/train.mov", "samples/video/iphone6_with-gps.mov", "samples/video/with-gps_xyz.mp4"]

    func testJSONAgreesWithExiftool() throws {
        let run = try mediabatch(["inspect", "--json"] + Self.images + Self.videos)
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let inspections = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(inspections.map { $0["path"] as? String }, Self.images + Self.videos)
        for var inspection in inspections {
            let path = inspection["path"] as! String
            let tags = try exiftool(Fixtures.sample(String(path.dropFirst("samples/".count))), ["-n", "-ee0"])
            func tag(_ names: String...) -> Any? { names.lazy.compactMap { tags[$0] }.first }
            func assertNumber(_ key: String, _ expected: Any?, accuracy: Double, line: UInt = #line) {
                guard let expected = expected as? Double else {
                    return XCTAssertNil(inspection[key], "\(path) \(key)", line: line)
                }
                XCTAssertEqual(inspection[key] as? Double ?? .nan, expected, accuracy: accuracy, "\(path) \(key)", line: line)
            }
            func assertText(_ key: String, _ expected: Any?, line: UInt = #line) {
                XCTAssertEqual(inspection[key] as? String, expected.map { "\($0)" }, "\(path) \(key)", line: line)
            }

            assertText("make", tag("IFD0:Make", "Keys:Make"))
            assertText("model", tag("IFD0:Model", "Keys:Model"))
            assertNumber("latitude", tag("Composite:GPSLatitude"), accuracy: 1e-5)
            assertNumber("longitude", tag("Composite:GPSLongitude"), accuracy: 1e-5)
            // Composite:GPSAltitude is signed by its reference under -n; inspect gives an
            // altitude only with a position.
            if tag("Composite:GPSLatitude") is Double {
                assertNumber("altitude", tag("Composite:GPSAltitude"), accuracy: 1e-3)
            }
            assertText("contentIdentifier", tag("Apple:MediaGroupUUID", "Keys:ContentIdentifier"))
            // Without a capture date in the metadata, inspect shows another source's (a name's, the file's time) and says which.
            if !["exif", "quicktime"].contains(inspection["captureDateSource"] as? String) { inspection["captureDate"] = nil }
            if inspection["kind"] as? String == "image" {
                assertNumber("fNumber", tag("ExifIFD:FNumber"), accuracy: 1e-6)
                assertNumber("exposureSeconds", tag("ExifIFD:ExposureTime"), accuracy: 1e-6)
                assertNumber("iso", tag("ExifIFD:ISO"), accuracy: 0)
                assertNumber("focalLengthMillimetres", tag("ExifIFD:FocalLength"), accuracy: 1e-6)
                let subSeconds = (tag("ExifIFD:SubSecTimeOriginal") as? Int).flatMap { $0 == 0 ? nil : String(format: ".%03.0f", Double("0.\($0)")! * 1000) }
                let date = (tag("ExifIFD:DateTimeOriginal") as? String).map {
                    $0 + (subSeconds ?? "") + ((tag("ExifIFD:OffsetTimeOriginal") as? String).map { $0 == "+00:00" ? "Z" : $0 } ?? "")
                }
                XCTAssertEqual(digits(inspection["captureDate"]), digits(date), path)
            } else {
                assertNumber("durationSeconds", tag("QuickTime:Duration"), accuracy: 0.05)
                assertNumber("rotation", tag("Composite:Rotation"), accuracy: 0)
                // Apple's key, else mvhd's creation time (exiftool writes an unset one as zeros).
                let created = digits(tag("Keys:CreationDate", "QuickTime:CreateDate")).flatMap { $0.allSatisfy { $0 == "0" } ? nil : $0 }
                XCTAssertEqual(digits(inspection["captureDate"]), created, path)
            }
        }
        let byPath = Dictionary(uniqueKeysWithValues: inspections.map { ($0["path"] as! String, $0) })
        XCTAssertEqual(byPath["samples/livephoto/train.jpg"]?["contentIdentifier"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(byPath["samples/livephoto/train.mov"]?["contentIdentifier"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(byPath["samples/jpeg/samsung_gt-i9000_gps00_rot90.jpg"]?["orientation"] as? Int, 6)
        // FFmpeg's display matrix says -90 (counterclockwise); a player turns it 90° clockwise.
        XCTAssertEqual(byPath["samples/video/iphone6_with-gps.mov"]?["rotation"] as? Int, 90)
        XCTAssertEqual(byPath["samples/jpeg/canon_eos_7d_iptc_city.jpg"]?["locationFoundIn"] as? [String], ["XMP", "IPTC"])
        XCTAssertNil(byPath["samples/jpeg/canon_eos_7d_iptc_city.jpg"]?["latitude"])
        XCTAssertEqual(byPath["samples/livephoto/train.jpg"]?["locationFoundIn"] as? [String], ["EXIF"])
        XCTAssertEqual(byPath["samples/jpeg/nikon_d5000_xmp_gps_only.jpg"]?["locationFoundIn"] as? [String], ["EXIF", "XMP"])
        XCTAssertEqual(byPath["samples/video/with-gps_xyz.mp4"]?["locationFoundIn"] as? [String], ["QuickTime"])
    }

    /// Dates compared by their digits: exiftool writes `2021:04:10 11:43:59+01:00`, QuickTime `2021-04-10T11:43:59+0100`.
    private func digits(_ value: Any?) -> String? {
        (value as? String).map { $0.filter(\.isNumber) }
    }

    func testHumanReadableOutputMatchesTheGolden() throws {
        let run = try mediabatch(["inspect", "samples/livephoto/train.jpg", "samples/video/iphone6_with-gps.mov"])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        assertMatchesGolden(run.stdout, Fixtures.fixtures.appendingPathComponent("inspect/train-and-iphone6.txt"))
    }

    func testAnUnreadableFileExitsOneAndTheOthersAreStillShown() throws {
        for format in [[], ["--json"]] {
            let run = try mediabatch(["inspect"] + format + ["Tests/Fixtures/broken/empty.heic", "samples/livephoto/train.jpg"])
            XCTAssertEqual(run.exitCode, 1, format.description)
            XCTAssertEqual(run.stderr, "error: Tests/Fixtures/broken/empty.heic: the file is empty\n")
            XCTAssertTrue(run.stdout.contains("E905E6C6-C747-4805-942F-9904A0281F02"), run.stdout)
        }
        let corrupted = try mediabatch(["inspect", "Tests/Fixtures/broken/corrupted.heic", "Tests/Fixtures/broken/iphone6_with-gps_truncated_50pct.mov"])
        XCTAssertEqual(corrupted.exitCode, 1)
        XCTAssertTrue(corrupted.stderr.contains("error: Tests/Fixtures/broken/corrupted.heic: cannot read the heic header:"), corrupted.stderr)
        XCTAssertTrue(corrupted.stderr.contains("error: Tests/Fixtures/broken/iphone6_with-gps_truncated_50pct.mov: not a readable mov video:"), corrupted.stderr)
    }

    func testUsageErrorsExitTwo() throws {
        XCTAssertEqual(try mediabatch(["inspect"]).exitCode, 2)
        XCTAssertEqual(try mediabatch(["inspect", "--no-such-flag", "samples/livephoto/train.jpg"]).exitCode, 2)
    }
}
