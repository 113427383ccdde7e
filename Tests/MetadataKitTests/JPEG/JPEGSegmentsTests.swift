import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

final class JPEGSegmentsTests: XCTestCase {
    func testListsSegmentsUpToTheScanAndRefusesLies() throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("livephoto/train.jpg"))))
        let segments = try XCTUnwrap(JPEGSegments.segments(of: jpeg))
        XCTAssertEqual(segments.first?.marker, 0xE1)
        XCTAssertEqual(segments.last?.marker, 0xDA)
        XCTAssertNil(JPEGSegments.segments(of: Array(jpeg.prefix(40))), "a segment longer than the file")
        XCTAssertNil(JPEGSegments.segments(of: Array("GIF89a".utf8)))
    }

    func testReplacesTheExifSegmentOnceAndKeepsTheRest() throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"))))
        let segments = try XCTUnwrap(JPEGSegments.segments(of: jpeg))
        let exifPayload = try XCTUnwrap(segments.first { $0.marker == 0xE1 && jpeg[$0.payload].starts(with: JPEGSegments.exifHeader) })
        var exif = try XCTUnwrap(ExifData(Array(jpeg[exifPayload.payload])))
        exif.setInteger(ExifTag.orientation, in: .ifd0, to: 3)
        let output = try XCTUnwrap(JPEGSegments.replacingExif(in: jpeg, with: exif))
        let rewritten = try XCTUnwrap(JPEGSegments.segments(of: output))
        XCTAssertEqual(rewritten.filter { $0.marker == 0xE1 && output[$0.payload].starts(with: JPEGSegments.exifHeader) }.count, 1)
        XCTAssertEqual(rewritten.map(\.marker), segments.map(\.marker))
        XCTAssertEqual(output.count, jpeg.count, "same-size EXIF, same file size")
        XCTAssertEqual(Array(output[exifPayload.range.upperBound...]), Array(jpeg[exifPayload.range.upperBound...]))
    }

    func testRefusesExifTooLargeForOneSegment() throws {
        let huge = try XCTUnwrap(ExifData([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8] + [UInt8](repeating: 0, count: 70_000)))
        XCTAssertNil(JPEGSegments.replacingExif(in: [0xFF, 0xD8, 0xFF, 0xDA, 0, 2], with: huge))
    }
}
