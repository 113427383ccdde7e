import Foundation
@testable import MediaBatchCore
import MediaTestSupport
import PipelineModel
import TestSupport
import VipsKit
import XCTest

/// Each source of a capture time, made with exiftool and ffmpeg at test time, read by a run whose
/// outputs are dated (`{date:yyyy}/{date:MM}/{date:dd}`): the report's `captured` and the folder.
final class CaptureTimeTests: XCTestCase, RunsPipelines {
    static let datedStages = #"{"stage": "write", "path": "{date:yyyy}/{date:MM}/{date:dd}/{stem}.{ext}"}"#

    override func setUpWithError() throws {
        try Vips.start()
    }

    /// A small JPEG without any metadata, named `name` in `folder`, then tagged by exiftool with `tags`.
    static func photo(_ name: String, in folder: URL, tags: [String] = []) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try VImage.thumbnail(of: Fixtures.sample("jpeg/apple_iphone_4.jpg"), maxSize: 96).withoutMetadataBlocks(keepingICC: false)
            .write(to: path, as: .jpeg)
        // Not today: a file's time is the last source, and must not be mistaken for another's.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_500_000_000)], ofItemAtPath: path)
        guard !tags.isEmpty else { return path }
        let tagged = try runProcess("exiftool", ["-q", "-overwrite_original", "-P"] + tags + [path])
        XCTAssertEqual(tagged.exitCode, 0, tagged.stderr)
        return path
    }

    /// The run's `captured` reading (time, zone, source) and output path of `name`.
    func captured(_ folder: URL, _ name: String, input: String = "{}", file: StaticString = #filePath, line: UInt = #line) throws
        -> (time: String, zone: String?, source: String, output: String) {
        let report = try Self.run(try pipeline(Self.datedStages, input: input), input: folder, output: Fixtures.temporaryFolder())
        let item = try XCTUnwrap(result(report, name, file: file, line: line), file: file, line: line)
        XCTAssertEqual(item.status, .ok, "\(item)", file: file, line: line)
        guard case .object(let reading)? = item.readings["captured"], case .string(let time)? = reading["time"],
              case .string(let source)? = reading["source"] else { throw XCTSkip("no captured reading: \(item.readings)") }
        let zone: String? = if case .string(let zone)? = reading["zone"] { zone } else { nil }
        return (time, zone, source, try XCTUnwrap(item.output))
    }

    func testEXIFWithItsOffsetAndSubSeconds() throws {
        let folder = Fixtures.temporaryFolder()
        _ = try Self.photo("a.jpg", in: folder, tags: ["-DateTimeOriginal=2023:12:24 18:30:00", "-OffsetTimeOriginal=+01:00",
                                                        "-SubSecTimeOriginal=123", "-XMP-photoshop:DateCreated=2001-01-01T00:00:00"])
        let found = try captured(folder, "a.jpg")
        XCTAssertEqual(found.time, "2023-12-24T18:30:00.123+01:00")
        XCTAssertEqual(found.zone, "+01:00")
        XCTAssertEqual(found.source, "exif")
        XCTAssertEqual(found.output, "2023/12/24/a.jpg")
    }

    func testAZonelessCameraTimeTakesTheLibrarysZoneAndStaysInItsFolder() throws {
        let folder = Fixtures.temporaryFolder()
        _ = try Self.photo("a.jpg", in: folder, tags: ["-DateTimeOriginal=2023:12:31 23:30:00"])
        let zoneless = try captured(folder, "a.jpg")
        XCTAssertEqual(zoneless.time, "2023-12-31T23:30:00")
        XCTAssertNil(zoneless.zone)
        let placed = try captured(folder, "a.jpg", input: #"{"timeZone": "America/New_York"}"#)
        XCTAssertEqual(placed.time, "2023-12-31T23:30:00-05:00")
        XCTAssertEqual(placed.output, "2023/12/31/a.jpg")
        XCTAssertEqual(zoneless.output, placed.output)
        let summer = Fixtures.temporaryFolder()
        _ = try Self.photo("b.jpg", in: summer, tags: ["-DateTimeOriginal=2023:07:01 12:00:00"])
        XCTAssertEqual(try captured(summer, "b.jpg", input: #"{"timeZone": "America/New_York"}"#).time, "2023-07-01T12:00:00-04:00",
                       "the offset in force on that day")
    }

    func testXMPInThePhoto() throws {
        let folder = Fixtures.temporaryFolder()
        _ = try Self.photo("a.jpg", in: folder, tags: ["-XMP-photoshop:DateCreated=2022-03-15T10:00:00+09:00"])
        let found = try captured(folder, "a.jpg")
        XCTAssertEqual(found.time, "2022-03-15T10:00:00+09:00")
        XCTAssertEqual(found.source, "xmp")
        XCTAssertEqual(found.output, "2022/03/15/a.jpg")
    }

    /// Apple's key keeps the zone; an `mvhd` time is UTC, and near midnight the folder follows the zone.
    func testQuickTimeCreationDateAndMvhd() throws {
        let apple = try captured(try Self.folder(of: ["video/iphone6_with-gps.mov"]), "iphone6_with-gps.mov")
        XCTAssertEqual(apple.source, "quicktime")
        XCTAssertNotNil(apple.zone, apple.time)
        let folder = Fixtures.temporaryFolder()
        let made = try runProcess("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=10:duration=0.5", "-c:v", "mpeg4",
                                             "-metadata", "creation_time=2023-12-31T23:30:00Z", folder.appendingPathComponent("clip.mp4").path])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        let utc = try captured(folder, "clip.mp4")
        XCTAssertEqual(utc.time, "2023-12-31T23:30:00Z")
        XCTAssertEqual(utc.output, "2023/12/31/clip.mp4")
        let paris = try captured(folder, "clip.mp4", input: #"{"timeZone": "Europe/Paris"}"#)
        XCTAssertEqual(paris.time, "2024-01-01T00:30:00+01:00")
        XCTAssertEqual(paris.source, "quicktime")
        XCTAssertEqual(paris.output, "2024/01/01/clip.mp4", "the next day's folder in Paris")
    }

    func testAnXMPSidecarDatesAPhotoWithoutDates() throws {
        let folder = Fixtures.temporaryFolder()
        let photo = try Self.photo("IMG_1234.jpg", in: folder)
        let sidecar = try runProcess("exiftool", ["-q", "-o", photo + ".xmp", "-XMP-photoshop:DateCreated=2021-06-05T07:08:09+02:00", photo])
        XCTAssertEqual(sidecar.exitCode, 0, sidecar.stderr)
        let found = try captured(folder, "IMG_1234.jpg")
        XCTAssertEqual(found.time, "2021-06-05T07:08:09+02:00")
        XCTAssertEqual(found.source, "sidecar")
    }

    func testTakeoutsPhotoTakenTimeIsUTC() throws {
        let folder = Fixtures.temporaryFolder()
        _ = try Self.photo("IMG_1234.jpg", in: folder)
        try Data(#"{"title": "IMG_1234.jpg", "photoTakenTime": {"timestamp": "1704065400", "formatted": "31 Dec 2023, 23:30:00 UTC"}}"#.utf8)
            .write(to: folder.appendingPathComponent("IMG_1234.jpg.json"))
        let found = try captured(folder, "IMG_1234.jpg")
        XCTAssertEqual(found.time, "2023-12-31T23:30:00Z")
        XCTAssertEqual(found.source, "takeout")
        XCTAssertEqual(try captured(folder, "IMG_1234.jpg", input: #"{"timeZone": "Asia/Tokyo"}"#).output, "2024/01/01/IMG_1234.jpg")
    }

    func testFileNames() throws {
        let folder = Fixtures.temporaryFolder()
        for name in ["IMG_20231224_183000.jpg", "PXL_20230102_030405123.jpg", "IMG-20220315-WA0007.jpg", "IMG_20231324_183000.jpg"] {
            _ = try Self.photo(name, in: folder)
        }
        let report = try Self.run(try pipeline(Self.datedStages), input: folder, output: Fixtures.temporaryFolder())
        func reading(_ name: String) -> (String?, String?) {
            guard case .object(let reading)? = result(report, name)?.readings["captured"],
                  case .string(let time)? = reading["time"], case .string(let source)? = reading["source"] else { return (nil, nil) }
            return (time, source)
        }
        XCTAssertEqual(reading("IMG_20231224_183000.jpg").0, "2023-12-24T18:30:00")
        XCTAssertEqual(reading("IMG_20231224_183000.jpg").1, "filename")
        XCTAssertEqual(reading("PXL_20230102_030405123.jpg").0, "2023-01-02T03:04:05.123Z", "a Pixel names its photos in UTC")
        XCTAssertEqual(reading("IMG-20220315-WA0007.jpg").0, "2022-03-15T00:00:00")
        XCTAssertEqual(reading("IMG_20231324_183000.jpg").1, "mtime", "month 13 is not a date")
        XCTAssertEqual(result(report, "IMG_20231224_183000.jpg")?.output, "2023/12/24/IMG_20231224_183000.jpg")
    }

    func testTheFilesTimeLastAndTheFilterOnAnySource() throws {
        let folder = Fixtures.temporaryFolder()
        _ = try Self.photo("plain.jpg", in: folder)
        _ = try Self.photo("IMG_20231224_183000.jpg", in: folder)
        let found = try captured(folder, "plain.jpg", input: #"{"timeZone": "UTC"}"#)
        XCTAssertEqual(found.time, "2017-07-14T02:40:00Z")
        XCTAssertEqual(found.source, "mtime")
        let filter = #"{"stage": "filter", "match": {"capturedAfter": "2020-01-01"}}, "# + Self.datedStages
        let report = try Self.run(try pipeline(filter), input: folder, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(report, "IMG_20231224_183000.jpg")?.status, .ok)
        XCTAssertEqual(result(report, "plain.jpg")?.status, .skipped)
    }

    /// A Live Photo's movie is dated by its still, as it is named after it: across midnight they share a folder.
    func testALivePhotosMovieGoesWhereItsStillGoes() throws {
        let folder = try Self.folder(of: ["livephoto/train.jpg", "livephoto/train.mov"])
        let tagged = try runProcess("exiftool", ["-q", "-overwrite_original", "-P", "-DateTimeOriginal=2023:12:31 23:59:59", "-OffsetTimeOriginal=+01:00",
                                                 folder.appendingPathComponent("train.jpg").path])
        XCTAssertEqual(tagged.exitCode, 0, tagged.stderr)
        let movie = try runProcess("exiftool", ["-q", "-overwrite_original", "-P", "-Keys:CreationDate=2024:01:01 00:00:02+01:00",
                                                folder.appendingPathComponent("train.mov").path])
        XCTAssertEqual(movie.exitCode, 0, movie.stderr)
        let report = try Self.run(try pipeline(Self.datedStages), input: folder, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(report, "train.jpg")?.output, "2023/12/31/train.jpg")
        XCTAssertEqual(result(report, "train.mov")?.output, "2023/12/31/train.mov", "\(String(describing: result(report, "train.mov")))")
    }

    func testABadTimeZoneNamesItsPath() throws {
        XCTAssertThrowsError(try pipeline(Self.datedStages, input: #"{"timeZone": "Mars/Olympus"}"#)) { error in
            XCTAssertTrue("\(error)".contains("input.timeZone"), "\(error)")
            XCTAssertTrue("\(error)".contains("IANA"), "\(error)")
        }
    }
}
