import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Directories lifted out of an EXIF block and written back: in the other byte order, at another
/// place, and read through a file handle as from memory.
final class TIFFDirectoryTests: XCTestCase {
    func livePhotoExif() throws -> ExifData {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("livephoto/train.jpg"))))
        let app1 = try XCTUnwrap(JPEGSegments.segments(of: jpeg)?.first { $0.marker == 0xE1 })
        return try XCTUnwrap(ExifData(Array(jpeg[app1.payload])))
    }

    /// Big-endian to little-endian and back gives the same values; every number reads alike in
    /// both orders, the MakerNote stays as it was (Apple's has its own byte order inside).
    func testTheOtherByteOrderReadsAlike() throws {
        let exif = try livePhotoExif()
        XCTAssertTrue(exif.bigEndian)
        var reader = TIFFDirectoryReader(source: exif.tiff, bigEndian: true)
        let ifd0 = try reader.directory(.ifd0, at: XCTUnwrap(exif.offset(of: .ifd0)))
        XCTAssertEqual(reader.problems, [])
        let little = try ifd0.converted(toBigEndian: false).exifBlock()
        XCTAssertFalse(little.bigEndian)
        for (tag, directory) in [(ExifTag.exposureTime, ExifData.Directory.exif), (ExifTag.isoSpeed, .exif),
                                 (ExifTag.gpsLatitude, .gps), (ExifTag.gpsAltitude, .gps), (ExifTag.xResolution, .ifd0)] {
            XCTAssertEqual(little.numbers(tag, in: directory), exif.numbers(tag, in: directory), "tag \(tag)")
            XCTAssertFalse(little.numbers(tag, in: directory).isEmpty, "tag \(tag)")
        }
        XCTAssertEqual(little.bytes(ExifTag.makerNote, in: .exif), exif.bytes(ExifTag.makerNote, in: .exif))
        XCTAssertEqual(little.appleMakerNote?.contentIdentifier, "E905E6C6-C747-4805-942F-9904A0281F02")
        var back = TIFFDirectoryReader(source: little.tiff, bigEndian: false)
        let again = try back.directory(.ifd0, at: XCTUnwrap(little.offset(of: .ifd0))).converted(toBigEndian: true)
        XCTAssertEqual(try again.exifBlock().tiff, try ifd0.exifBlock().tiff)
    }

    /// Entries ascend, values start on even offsets, and a file reads as its bytes do.
    func testWrittenDirectoriesAreOrderedAlignedAndReadFromFiles() throws {
        let exif = try livePhotoExif()
        var reader = TIFFDirectoryReader(source: exif.tiff, bigEndian: true)
        var ifd0 = try reader.directory(.ifd0, at: XCTUnwrap(exif.offset(of: .ifd0)))
        ifd0.set(.init(tag: 0x0100, type: 1, count: 3, value: [1, 2, 3], sourceOffset: 0)) // odd, inline
        ifd0.set(.init(tag: 0x9C9B, type: 1, count: 5, value: [1, 2, 3, 4, 5], sourceOffset: 0)) // odd, out of line
        let block = try ifd0.exifBlock()
        for directory in [ExifData.Directory.ifd0, .exif, .gps] {
            let entries = block.entries(in: directory)
            XCTAssertEqual(entries.map(\.tag), entries.map(\.tag).sorted(), "\(directory)")
            XCTAssertTrue(entries.allSatisfy { $0.isInline || $0.valueOffset % 2 == 0 }, "\(directory)")
        }
        let url = Fixtures.temporaryFolder().appendingPathComponent("block.tif")
        try Data(block.tiff).write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var fromFile = TIFFDirectoryReader(source: TIFFFileSource(handle: handle, size: block.tiff.count), bigEndian: true)
        var fromMemory = TIFFDirectoryReader(source: block.tiff, bigEndian: true)
        let offset = try XCTUnwrap(block.offset(of: .ifd0))
        XCTAssertEqual(try fromFile.directory(.ifd0, at: offset), try fromMemory.directory(.ifd0, at: offset))
    }

    /// A value past the end, a directory past the end, a value larger than the budget: left out
    /// and named.
    func testWhatCannotBeReadIsNamed() throws {
        var tiff = Array("MM\0*".utf8) + [0, 0, 0, 8, 0, 3]
        tiff += [0x01, 0x0F, 0, 2, 0, 0, 0, 20, 0, 0, 0x10, 0] // Make: 20 bytes at 4096, past the end
        tiff += [0x01, 0x10, 0, 2, 0, 0, 0, 8, 0, 0, 0, 50] // Model: 8 bytes at 50
        tiff += [0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0x20, 0] // GPS directory at 8192, past the end
        tiff += [0, 0, 0, 0] + Array("iPhone\0\0".utf8)
        var reader = TIFFDirectoryReader(source: tiff, bigEndian: true, budget: 4)
        let ifd0 = try reader.directory(.ifd0, at: 8)
        XCTAssertEqual(ifd0.entries.map(\.tag), [])
        XCTAssertTrue(ifd0.children.isEmpty)
        XCTAssertEqual(reader.problems.count, 3, "\(reader.problems)")
        var roomy = TIFFDirectoryReader(source: tiff, bigEndian: true)
        XCTAssertEqual(try roomy.directory(.ifd0, at: 8).entries.map(\.tag), [ExifTag.model])
        XCTAssertThrowsError(try roomy.directory(.ifd0, at: 9000))
        XCTAssertNil(TIFFHeader(Array("II*".utf8)))
    }
}
