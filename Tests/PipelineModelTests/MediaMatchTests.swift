import Foundation
import MediaFormats
@testable import PipelineModel
import XCTest

final class MediaMatchTests: XCTestCase {
    func facts(_ path: String, _ format: MediaFormat, _ kinds: Set<MediaKind>, location: Bool = false,
               size: (Int, Int)? = nil, captured: String? = nil, make: String? = nil, model: String? = nil) -> MediaFacts {
        MediaFacts(relativePath: path, format: format, kinds: kinds, hasLocation: location, width: size?.0, height: size?.1,
                   capture: captured.flatMap(ISODate.parse).map { .init(date: $0, source: .exif) }, make: make, model: model)
    }

    func decode(_ json: String) throws -> MediaMatch {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        return try MediaMatch.decode(JSONReader(value: value, path: "stages[0].match"))
    }

    func failure(_ json: String) -> String {
        do {
            _ = try decode(json)
            XCTFail("expected an error for \(json)")
            return ""
        } catch {
            return "\(error)"
        }
    }

    lazy var photo = facts("a/IMG_1.HEIC", .heic, [.images, .livePhotos], location: true, size: (4032, 3024),
                           captured: "2024-05-01T10:00:00+02:00", make: "Apple", model: "iPhone 13 Pro")
    lazy var screenshot = facts("a/Screenshot 2024.png", .png, [.images, .screenshots], size: (1170, 2532), captured: "2023-12-31")
    lazy var pano = facts("b/pano.jpg", .jpeg, [.images, .panoramas], size: (12000, 3000), make: "Canon", model: "Canon EOS 7D")
    lazy var movie = facts("a/IMG_1.MOV", .mov, [.videos, .livePhotos], captured: "2024-05-01T08:00:01Z")
    lazy var slowMotion = facts("c/slomo.mov", .mov, [.videos, .sloMoVideos])
    lazy var all = [photo, screenshot, pano, movie, slowMotion]

    func selected(_ json: String) throws -> [String] {
        let match = try decode(json)
        return all.filter(match.matches).map(\.relativePath)
    }

    func testTheIssuesCompositionsSelectExactlyTheirItems() throws {
        XCTAssertEqual(try selected(#"{"all": ["images", {"not": "screenshots"}]}"#), ["a/IMG_1.HEIC", "b/pano.jpg"])
        XCTAssertEqual(try selected(#"{"any": ["videos", "livePhotos"]}"#), ["a/IMG_1.HEIC", "a/IMG_1.MOV", "c/slomo.mov"])
        XCTAssertEqual(try selected(#"{"all": ["images", {"not": {"any": ["screenshots", "panoramas"]}}]}"#), ["a/IMG_1.HEIC"])
    }

    func testPredicates() throws {
        XCTAssertEqual(try selected(#"{"format": ["png", "mov"]}"#), ["a/Screenshot 2024.png", "a/IMG_1.MOV", "c/slomo.mov"])
        XCTAssertEqual(try selected(#"{"hasLocation": true}"#), ["a/IMG_1.HEIC"])
        XCTAssertEqual(try selected(#"{"hasLocation": false}"#).count, 4)
        XCTAssertEqual(try selected(#"{"minPixels": 12000000}"#), ["a/IMG_1.HEIC", "b/pano.jpg"])
        // Items without known dimensions match neither bound.
        XCTAssertEqual(try selected(#"{"maxPixels": 12000000}"#), ["a/Screenshot 2024.png"])
        XCTAssertEqual(try selected(#"{"camera": "iPhone*"}"#), ["a/IMG_1.HEIC"])
        XCTAssertEqual(try selected(#"{"camera": "apple iphone 13*"}"#), ["a/IMG_1.HEIC"])
        XCTAssertEqual(try selected(#"{"camera": "Canon EOS ?D"}"#), ["b/pano.jpg"])
        XCTAssertEqual(try selected(#"{"name": "Screenshot*"}"#), ["a/Screenshot 2024.png"])
        XCTAssertEqual(try selected(#"{"name": "a/*.MOV"}"#), ["a/IMG_1.MOV"])
    }

    func testCaptureDatesCompareAsInstantsAndTile() throws {
        // 10:00+02:00 is 08:00Z: one second before the movie.
        XCTAssertEqual(try selected(#"{"capturedAfter": "2024-05-01T08:00:00Z"}"#), ["a/IMG_1.HEIC", "a/IMG_1.MOV"])
        XCTAssertEqual(try selected(#"{"capturedAfter": "2024-05-01T08:00:01Z"}"#), ["a/IMG_1.MOV"])
        XCTAssertEqual(try selected(#"{"capturedBefore": "2024-05-01T08:00:01Z"}"#), ["a/IMG_1.HEIC", "a/Screenshot 2024.png"])
        XCTAssertEqual(try selected(#"{"capturedBefore": "2024-01-01"}"#), ["a/Screenshot 2024.png"])
    }

    func testMistakesNameTheExactJSONPath() {
        XCTAssertEqual(failure(#"{"all": ["images", {"not": {"any": ["screenshot"]}}]}"#),
                       "stages[0].match.all[1].not.any[0]: expected a media kind (one of \(MediaKind.allCases.map(\.rawValue).joined(separator: ", "))), found \"screenshot\"")
        XCTAssertEqual(failure(#"{"any": ["videos", "heic"]}"#),
                       #"stages[0].match.any[1]: "heic" is a format, not a media kind; write {"format": "heic"}"#)
        XCTAssertEqual(failure(#"{"all": [{"capturedAfter": "yesterday"}]}"#),
                       #"stages[0].match.all[0].capturedAfter: expected a date such as "2024-05-01" or "2024-05-01T13:45:00+02:00", found "yesterday""#)
        XCTAssertEqual(failure(#"{"not": {"hasLocation": "yes"}}"#), #"stages[0].match.not.hasLocation: expected true or false, found "yes""#)
        XCTAssertEqual(failure(#"{"any": []}"#), "stages[0].match.any: expected at least one condition")
        XCTAssertEqual(failure(#"{"format": ["heic", "svg"]}"#),
                       "stages[0].match.format[1]: expected a format (one of \(MediaFormat.inputs.map(\.rawValue).joined(separator: ", "))), found \"svg\"")
        XCTAssertTrue(failure(#"{"images": true}"#).hasPrefix("stages[0].match.images: unknown condition; expected one of \"any\", \"all\", \"not\", \"format\""))
        XCTAssertTrue(failure(#"{"not": "images", "any": ["videos"]}"#).hasPrefix("stages[0].match: expected a media kind or an object with one key"))
    }

    func testISODates() {
        let utc = { (text: String) in ISODate.parse(text)?.timeIntervalSince1970 }
        XCTAssertEqual(utc("1970-01-02"), 86400)
        XCTAssertEqual(utc("1970-01-01T01:00:00"), 3600)
        XCTAssertEqual(utc("1970-01-01T01:00:00+01:00"), 0)
        XCTAssertEqual(utc("1970-01-01T01:00:00.250-0030"), 5400)
        XCTAssertEqual(utc("1970-01-01 00:01"), 60)
        for bad in ["2024-02-30", "2024-13-01", "24-01-01", "2024-01-01T25:00", "2024-01-01Tnoon", "2024-01-01 "] {
            XCTAssertNil(ISODate.parse(bad), bad)
        }
        XCTAssertEqual(ISODate.text(exifDateTime: "2021:04:10 11:44:00", offset: "+01:00"), "2021-04-10T11:44:00+01:00")
        XCTAssertEqual(ISODate.text(exifDateTime: "2021:04:10 11:44:00", offset: "   :  "), "2021-04-10T11:44:00")
        XCTAssertEqual(ISODate.text(exifDateTime: "    :  :     :  :  ", offset: "+01:00"), "    :  :     :  :  ")
    }
}
