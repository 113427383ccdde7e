import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

final class ExifDataTests: XCTestCase {
    private func jpegBytes(_ sample: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample(sample))))
    }

    private func exif(in jpeg: [UInt8]) throws -> ExifData {
        let segment = try XCTUnwrap(JPEGSegments.segments(of: jpeg)?.first {
            $0.marker == 0xE1 && jpeg[$0.payload].starts(with: JPEGSegments.exifHeader)
        })
        return try XCTUnwrap(ExifData(Array(jpeg[segment.payload])))
    }

    /// Writes `jpeg` with its EXIF replaced, and returns exiftool's reading of the result.
    private func spliced(_ jpeg: [UInt8], _ edited: ExifData, _ arguments: [String] = []) throws -> [String: Any] {
        let output = Fixtures.temporaryFolder().appendingPathComponent("spliced.jpg")
        try Data(XCTUnwrap(JPEGSegments.replacingExif(in: jpeg, with: edited))).write(to: output)
        return try exiftool(output.path, arguments)
    }

    func testReadsCameraCaptureAndLivePhotoIdentifier() throws {
        let data = try exif(in: jpegBytes("livephoto/train.jpg"))
        XCTAssertEqual(data.string(ExifTag.make, in: .ifd0), "Apple")
        XCTAssertEqual(data.string(ExifTag.model, in: .ifd0), "iPhone 6s")
        XCTAssertEqual(data.string(ExifTag.dateTimeOriginal, in: .exif), "2021:04:10 11:44:00")
        XCTAssertEqual(data.number(ExifTag.fNumber, in: .exif), 2.2)
        XCTAssertEqual(data.appleMakerNote?.contentIdentifier, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(data.string(ExifTag.gpsLatitudeRef, in: .gps), "N")
        XCTAssertEqual(try XCTUnwrap(data.numbers(ExifTag.gpsLatitude, in: .gps).first), 52, accuracy: 0.001)
    }

    func testRemovingGPSKeepsEveryOtherTagAndTheMakerNoteAtItsOffsets() throws {
        let jpeg = try jpegBytes("livephoto/train.jpg")
        var data = try exif(in: jpeg)
        data.remove(ExifTag.gpsPointer, from: .ifd0)
        XCTAssertFalse(data.hasGPS)
        XCTAssertEqual(data.tiff.count, try exif(in: jpeg).tiff.count, "edits never move bytes")

        let before = try exiftool(Fixtures.sample("livephoto/train.jpg"), ["-EXIF:all", "-MakerNotes:all"])
        let after = try spliced(jpeg, data, ["-EXIF:all", "-MakerNotes:all"])
        XCTAssertFalse(before.keys.filter { $0.hasPrefix("GPS:") }.isEmpty)
        XCTAssertEqual(after.keys.filter { $0.hasPrefix("GPS:") }, [])
        for (key, value) in before where !key.hasPrefix("GPS:") && key != "SourceFile" {
            XCTAssertEqual(after[key].map { "\($0)" }, "\(value)", key)
        }
        XCTAssertEqual(after["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
    }

    func testRemovedValuesLeaveNoBytesBehind() throws {
        var data = try exif(in: jpegBytes("jpeg/apple_iphone_4.jpg"))
        let latitude = try XCTUnwrap(data.entry(ExifTag.gpsLatitude, in: .gps))
        let latitudeBytes = Array(data.tiff[latitude.valueOffset..<latitude.valueOffset + latitude.valueLength])
        data.remove(ExifTag.gpsPointer, from: .ifd0)
        XCTAssertEqual(Array(data.tiff[latitude.valueOffset..<latitude.valueOffset + latitude.valueLength]),
                       [UInt8](repeating: 0, count: latitudeBytes.count))
        XCTAssertNotEqual(latitudeBytes, [UInt8](repeating: 0, count: latitudeBytes.count))
    }

    func testSetsOrientationAndDropsTheThumbnail() throws {
        let jpeg = try jpegBytes("livephoto/train.jpg")
        var data = try exif(in: jpeg)
        XCTAssertTrue(data.hasThumbnail)
        data.setInteger(ExifTag.orientation, in: .ifd0, to: 6)
        data.setInteger(ExifTag.pixelXDimension, in: .exif, to: 300)
        data.removeThumbnail()
        let read = try spliced(jpeg, data)
        XCTAssertEqual(read["IFD0:Orientation"] as? String, "Rotate 90 CW")
        XCTAssertEqual(read["ExifIFD:ExifImageWidth"] as? Int, 300)
        XCTAssertNil(read["IFD1:ThumbnailImage"])
        XCTAssertEqual(read["IFD0:Make"] as? String, "Apple")
    }

    func testCompactingKeepsEveryTagItNamesAndDropsTheRest() throws {
        let original = try exif(in: jpegBytes("livephoto/train.jpg"))
        let compact = try XCTUnwrap(original.compacted { $0 != .ifd0 || [ExifTag.make, ExifTag.model].contains($1) })
        XCTAssertEqual(compact.string(ExifTag.make, in: .ifd0), "Apple")
        XCTAssertEqual(compact.string(ExifTag.model, in: .ifd0), "iPhone 6s")
        XCTAssertFalse(compact.contains(ExifTag.orientation, in: .ifd0), "not named, not kept")
        XCTAssertFalse(compact.hasThumbnail)
        XCTAssertLessThan(compact.tiff.count, original.tiff.count)
        for directory in [ExifData.Directory.exif, .gps] {
            XCTAssertEqual(compact.entries(in: directory).map(\.tag), original.entries(in: directory).map(\.tag))
        }
        XCTAssertEqual(compact.numbers(ExifTag.gpsLatitude, in: .gps), original.numbers(ExifTag.gpsLatitude, in: .gps))
        XCTAssertEqual(compact.string(ExifTag.dateTimeOriginal, in: .exif), "2021:04:10 11:44:00")
        XCTAssertEqual(compact.appleMakerNote?.contentIdentifier, "E905E6C6-C747-4805-942F-9904A0281F02")
    }

    func testTrimsPaddingNothingPointsTo() throws {
        let tiff = try exif(in: jpegBytes("livephoto/train.jpg")).tiff
        var padded = try XCTUnwrap(ExifData(tiff + [UInt8](repeating: 0, count: 100_000)))
        padded.trimUnreferencedTail()
        XCTAssertLessThanOrEqual(padded.tiff.count, tiff.count)
        XCTAssertEqual(Array(padded.tiff), Array(tiff.prefix(padded.tiff.count)))
        XCTAssertEqual(padded.appleMakerNote?.contentIdentifier, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(padded.numbers(ExifTag.gpsLatitude, in: .gps).count, 3)
    }

    func testTruncatedAndCorruptedBlocksNeverTrap() throws {
        let whole = try exif(in: jpegBytes("livephoto/train.jpg"))
        let known = Readings(whole)
        XCTAssertEqual(known.model, "iPhone 6s")
        XCTAssertEqual(known.dateTimeOriginal, "2021:04:10 11:44:00")
        XCTAssertEqual(known.contentIdentifier, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(known.latitude.count, 3)
        assertEditsKeepTheirPromises(whole, keeping: known)

        // Cut short, a block reads what the whole one holds or nothing, and its edits spare the rest.
        var cutBlocksRead = 0
        for length in stride(from: 0, to: whole.tiff.count, by: 97) {
            guard let data = ExifData(Array(whole.tiff.prefix(length))) else { continue }
            cutBlocksRead += 1
            let values = Readings(data)
            XCTAssertTrue(values.isPart(of: known), "cut at \(length): \(values)")
            assertEditsKeepTheirPromises(data, keeping: values, "cut at \(length)")
        }
        XCTAssertGreaterThanOrEqual(cutBlocksRead, 100, "126 of the 127 cuts read on Swift 6.3.1")

        // Overwritten, a block reads whatever its bytes now say, the same twice, and its edits
        // still remove what they promise to.
        var generator = SplitMix(seed: 20261123)
        var overwrittenBlocksRead = 0
        for index in 0..<300 {
            var bytes = whole.tiff
            for _ in 0..<8 { bytes[Int.random(in: 0..<min(bytes.count, 2048), using: &generator)] = .random(in: 0...255, using: &generator) }
            guard let data = ExifData(bytes) else { continue }
            overwrittenBlocksRead += 1
            XCTAssertEqual(Readings(data), Readings(try XCTUnwrap(ExifData(bytes))), "copy \(index): read twice")
            assertEditsKeepTheirPromises(data, "copy \(index)")
        }
        XCTAssertGreaterThanOrEqual(overwrittenBlocksRead, 250, "293 of the 300 copies read on Swift 6.3.1")
    }

    /// The values the damage test reads from a block.
    private struct Readings: Equatable {
        let model: String?
        let dateTimeOriginal: String?
        let contentIdentifier: String?
        let latitude: [Double]

        init(_ data: ExifData) {
            model = data.string(ExifTag.model, in: .ifd0)
            dateTimeOriginal = data.string(ExifTag.dateTimeOriginal, in: .exif)
            contentIdentifier = data.appleMakerNote?.contentIdentifier
            latitude = data.numbers(ExifTag.gpsLatitude, in: .gps)
        }

        /// Whether each value is `whole`'s or absent.
        func isPart(of whole: Readings) -> Bool {
            (model == nil || model == whole.model) && (dateTimeOriginal == nil || dateTimeOriginal == whole.dateTimeOriginal)
                && (contentIdentifier == nil || contentIdentifier == whole.contentIdentifier)
                && (latitude.isEmpty || latitude == whole.latitude)
        }
    }

    /// Removing GPS and the thumbnail leaves no GPS pointer, GPS directory or IFD1, moves no
    /// byte, and where the block's directories do not overlap, changes no other value.
    private func assertEditsKeepTheirPromises(_ original: ExifData, keeping values: Readings? = nil, _ context: String = "",
                                              file: StaticString = #filePath, line: UInt = #line) {
        var data = original
        data.remove(ExifTag.gpsPointer, from: .ifd0)
        XCTAssertFalse(data.contains(ExifTag.gpsPointer, in: .ifd0), context, file: file, line: line)
        XCTAssertFalse(data.hasGPS, context, file: file, line: line)
        XCTAssertEqual(data.numbers(ExifTag.gpsLatitude, in: .gps), [], context, file: file, line: line)
        data.removeThumbnail()
        XCTAssertFalse(data.hasThumbnail, context, file: file, line: line)
        XCTAssertFalse(data.hasGPS, context, file: file, line: line)
        XCTAssertEqual(data.tiff.count, original.tiff.count, "\(context): edits never move bytes", file: file, line: line)
        if let values {
            let after = Readings(data)
            XCTAssertEqual([after.model, after.dateTimeOriginal, after.contentIdentifier],
                           [values.model, values.dateTimeOriginal, values.contentIdentifier], context, file: file, line: line)
        }
    }

    func testFindsTheHeaderWithOrWithoutTheExifPrefix() throws {
        let tiff = try exif(in: jpegBytes("livephoto/train.jpg")).tiff
        XCTAssertEqual(ExifData(tiff)?.tiff, tiff)
        XCTAssertEqual(ExifData([0, 0, 0, 6] + Array("Exif\0\0".utf8) + tiff)?.tiff, tiff)
        XCTAssertNil(ExifData(Array("not exif at all".utf8)))
    }
}
