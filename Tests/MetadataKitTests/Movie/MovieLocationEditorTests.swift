import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Real camera files through the editor, judged by exiftool, ffprobe and ffmpeg.
final class MovieLocationEditorTests: XCTestCase {
    func testIPhoneMovieLosesISO6709AndKeepsCameraTags() throws {
        let edited = try assertLocationRemoved(
            "video/iphone6_with-gps.mov",
            removed: ["moov/meta/keys:com.apple.quicktime.location.ISO6709"],
            locationText: "+32.0929+034.8620+028.516/",
            keptTags: ["Keys:Make", "Keys:Model", "Keys:Software", "Keys:CreationDate"])
        XCTAssertEqual(edited.make, "Apple")
        XCTAssertEqual(edited.model, "iPhone 6")
        XCTAssertEqual(edited.creationDate, "2019-07-24T11:25:40+0300")
    }

    func testLivePhotoMovieKeepsItsContentIdentifierAndTimedMetadataTracks() throws {
        let edited = try assertLocationRemoved(
            "livephoto/train.mov",
            removed: ["moov/meta/keys:com.apple.quicktime.location.accuracy.horizontal",
                      "moov/meta/keys:com.apple.quicktime.location.ISO6709"],
            locationText: "+52.2097-000.8955+103.640/",
            keptTags: ["Keys:ContentIdentifier", "Keys:Make", "Keys:Model", "Keys:Software", "Keys:CreationDate"])
        XCTAssertEqual(edited.contentIdentifier, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(edited.keyedValues.map(\.key), [
            "com.apple.quicktime.content.identifier", "com.apple.quicktime.make", "com.apple.quicktime.model",
            "com.apple.quicktime.software", "com.apple.quicktime.creationdate",
        ])
    }

    func testAndroidMovieLosesUserDataXYZ() throws {
        let edited = try assertLocationRemoved(
            "video/with-gps_xyz.mp4",
            removed: ["moov/udta/©xyz"],
            locationText: "+51.4169-000.0806/",
            keptTags: ["UserData:PlayMode", "Keys:AndroidVersion"])
        XCTAssertNil(edited.userDataLocation)
        XCTAssertEqual(edited.value(for: "com.android.version"), "6.0.1")
    }

    func test3GPPLocationBoxIsRemoved() throws {
        let edited = try assertLocationRemoved(
            "video/loci_gps_issue515.mp4",
            removed: ["moov/udta/loci"],
            locationText: "earth",
            keptTags: ["UserData:DateTimeOriginal"])
        XCTAssertFalse(edited.hasLoci)
    }

    func testFilesWithoutLocationAreCopiedByteForByte() throws {
        for sample in ["video/sample.3gp", "video/xmp480qt.mov"] {
            let input = Fixtures.sample(sample)
            XCTAssertNil(try MovieLocationEditor.removingLocation(fromFileAt: input), sample)
            let output = Fixtures.temporaryFolder().appendingPathComponent("out").path
            XCTAssertEqual(try MovieLocationEditor.writeWithoutLocation(from: input, to: output).removed, [], sample)
            XCTAssertEqual(FileManager.default.contents(atPath: output), FileManager.default.contents(atPath: input), sample)
        }
    }

    func testReadsTheTagsAnInspectCommandShows() throws {
        let livePhoto = try MovieMetadata(contentsOfFile: Fixtures.sample("livephoto/train.mov"))
        XCTAssertEqual(livePhoto.value(for: "com.apple.quicktime.location.ISO6709"), "+52.2097-000.8955+103.640/")
        XCTAssertEqual(livePhoto.value(for: "com.apple.quicktime.location.accuracy.horizontal"), "65.000000")
        XCTAssertEqual(livePhoto.contentIdentifier, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(livePhoto.model, "iPhone 6s")
        XCTAssertEqual(livePhoto.iso6709, "+52.2097-000.8955+103.640/")
        XCTAssertTrue(livePhoto.carriesLocation)
        XCTAssertFalse(try MovieMetadata(contentsOfFile: Fixtures.sample("video/sample.3gp")).carriesLocation)

        let android = try MovieMetadata(contentsOfFile: Fixtures.sample("video/with-gps_xyz.mp4"))
        XCTAssertEqual(android.userDataLocation, "+51.4169-000.0806/")
        XCTAssertEqual(android.iso6709, "+51.4169-000.0806/")
        XCTAssertFalse(android.hasLoci)
        XCTAssertTrue(try MovieMetadata(contentsOfFile: Fixtures.sample("video/loci_gps_issue515.mp4")).hasLoci)
    }

    /// Edits `sample` and checks the promise: no location left (not even its bytes), the named
    /// tags unchanged, the same streams decoding cleanly, and nothing outside `moov` touched.
    /// Returns the edited file's metadata for sample-specific checks.
    private func assertLocationRemoved(_ sample: String, removed: [String], locationText: String, keptTags: [String],
                                       file: StaticString = #filePath, line: UInt = #line) throws -> MovieMetadata {
        let input = Fixtures.sample(sample)
        let output = Fixtures.temporaryFolder().appendingPathComponent((sample as NSString).lastPathComponent).path
        XCTAssertFalse(try locationTags(input).isEmpty, "fixture should carry location", file: file, line: line)
        let edit = try XCTUnwrap(MovieLocationEditor.removingLocation(fromFileAt: input), file: file, line: line)

        let report = try MovieLocationEditor.writeWithoutLocation(from: input, to: output)
        XCTAssertEqual(report.removed, removed, file: file, line: line)
        XCTAssertEqual(try locationTags(output), [], file: file, line: line)
        XCTAssertNil(try MovieLocationEditor.removingLocation(fromFileAt: output), "nothing left to remove", file: file, line: line)

        let before = try exiftool(input), after = try exiftool(output)
        for tag in keptTags {
            XCTAssertNotNil(before[tag], "fixture should have \(tag)", file: file, line: line)
            XCTAssertEqual(after[tag].map { "\($0)" }, before[tag].map { "\($0)" }, tag, file: file, line: line)
        }

        let streams = ["-v", "error", "-show_entries", "stream=index,codec_tag_string,duration", "-of", "json"]
        XCTAssertEqual(try runProcess("ffprobe", streams + [output]).stdout, try runProcess("ffprobe", streams + [input]).stdout,
                       file: file, line: line)
        // mebx timed-metadata streams have no decoder; audio and video must decode without a word.
        let decode = try runProcess("ffmpeg", ["-v", "error", "-i", output, "-map", "0:v", "-map", "0:a?", "-f", "null", "-"])
        XCTAssertEqual(decode.exitCode, 0, file: file, line: line)
        XCTAssertEqual(decode.stderr, "", file: file, line: line)

        let original = try XCTUnwrap(FileManager.default.contents(atPath: input))
        let written = try XCTUnwrap(FileManager.default.contents(atPath: output))
        XCTAssertEqual(written.count, original.count, file: file, line: line)
        let moov = edit.moovOffset..<edit.moovOffset + edit.moov.count
        XCTAssertEqual(written[..<moov.lowerBound], original[..<moov.lowerBound], "bytes before moov", file: file, line: line)
        XCTAssertEqual(written[moov.upperBound...], original[moov.upperBound...], "bytes after moov", file: file, line: line)
        XCTAssertEqual(Array(written[moov]), edit.moov, file: file, line: line)
        XCTAssertNotNil(original.range(of: Data(locationText.utf8)), file: file, line: line)
        XCTAssertNil(written.range(of: Data(locationText.utf8)), "location bytes survived", file: file, line: line)
        let edited = try MovieMetadata(contentsOfFile: output)
        XCTAssertFalse(edited.carriesLocation, file: file, line: line)
        return edited
    }
}
