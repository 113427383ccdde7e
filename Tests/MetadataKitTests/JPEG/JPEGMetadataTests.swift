import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// JPEG's places for metadata, read from real files and written into what libvips encoded, then
/// read back by exiftool: every copy read, one written, nothing else touched.
final class JPEGMetadataTests: XCTestCase {
    private func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    /// `sample` re-encoded by libvips at 300 px: libexif's EXIF, libvips' XMP and APP13 in it.
    private func libvipsWritten(_ sample: String) throws -> [UInt8] {
        let output = Fixtures.temporaryFolder().appendingPathComponent("encoded.jpg")
        let made = try runProcess("vips", ["thumbnail", Fixtures.sample(sample), output.path, "300"])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        return try bytes(output.path)
    }

    private func written(_ bytes: [UInt8]) throws -> String {
        let url = Fixtures.temporaryFolder().appendingPathComponent("written.jpg")
        try Data(bytes).write(to: url)
        return url.path
    }

    /// `jpeg` with an APP13 segment per IIM block inserted after SOI, as a second writer adds its own.
    private func withAPP13(_ jpeg: [UInt8], _ iimBlocks: [[UInt8]]) -> [UInt8] {
        let segments = iimBlocks.flatMap { iim -> [UInt8] in
            let payload = JPEGMetadata.photoshopSignature + IPTCBlock.photoshopResources(iim: iim, others: nil)!
            return [0xFF, 0xED, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        return Array(jpeg[..<2]) + segments + jpeg[2...]
    }

    private func dataset(_ record: UInt8, _ number: UInt8, _ text: String) -> [UInt8] {
        let data = Array(text.utf8)
        return [0x1C, record, number, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
    }

    func testReadsEveryBlockAsExiftoolDoes() throws {
        let path = Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg")
        let blocks = try JPEGMetadata.readMetadata(path: path)
        let tags = try exiftool(path)
        XCTAssertEqual(blocks.exif?.string(ExifTag.model, in: .ifd0), tags["IFD0:Model"] as? String)
        XCTAssertEqual(try IPTCBlock.locationValues(in: try XCTUnwrap(blocks.iptc))["IPTC:City"], tags["IPTC:City"] as? String)
        XCTAssertEqual(try XMPPacket.locationValues(in: try XCTUnwrap(blocks.xmp))["photoshop:City"], tags["XMP-photoshop:City"] as? String)
        XCTAssertNotNil(blocks.photoshop, "Lightroom's other image resources")
        XCTAssertEqual(blocks.unreadable, [])
    }

    func testTwoAPP13CopiesAreReadAsOneAndWrittenOnce() throws {
        let version = [0x1C, 2, 0, 0, 2, 0, 4] as [UInt8]
        let first = version + dataset(2, 90, "Mainz") + dataset(2, 116, "(c) Kyra")
        let second = version + dataset(2, 90, "Mainz") + dataset(2, 95, "Rheinland-Pfalz") + dataset(1, 5, "")
        let input = try written(withAPP13(try bytes(Fixtures.sample("jpeg/orientation/Landscape_1.jpg")), [first, second]))
        let blocks = try JPEGMetadata.readMetadata(path: input)
        XCTAssertEqual(blocks.iptc, dataset(1, 5, "") + version + dataset(2, 90, "Mainz") + dataset(2, 116, "(c) Kyra")
                       + dataset(2, 95, "Rheinland-Pfalz"))

        var edited = blocks
        edited.iptc = try IPTCBlock.removingLocation(from: try XCTUnwrap(blocks.iptc))?.bytes
        let output = try JPEGMetadata.writingMetadata(edited, into: try libvipsWritten("jpeg/canon_eos_7d_iptc_city.jpg"))
        let path = try written(output.bytes)
        XCTAssertEqual(try locationTags(path), [], "neither copy's places, the empty Destination included")
        let tags = try exiftool(path, ["-IPTC:all"])
        XCTAssertEqual(tags["IPTC:CopyrightNotice"] as? String, "(c) Kyra")
        let segments = try XCTUnwrap(JPEGSegments.segments(of: output.bytes))
        XCTAssertEqual(segments.filter { $0.marker == 0xED }.count, 1)
        XCTAssertEqual(output.notCarried, [])
    }

    func testReplacesWhatLibvipsWroteAndKeepsTheMakerNoteByteForByte() throws {
        let source = Fixtures.sample("livephoto/train.jpg")
        let blocks = try JPEGMetadata.readMetadata(path: source)
        let encoded = try libvipsWritten("livephoto/train.jpg")
        let output = try JPEGMetadata.writingMetadata(blocks, into: encoded)
        let path = try written(output.bytes)
        let tags = try exiftool(path, ["-Apple:all", "-Model", "-DateTimeOriginal", "-Warning"])
        XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02")
        XCTAssertEqual(tags["IFD0:Model"] as? String, "iPhone 6s")
        XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")")
        let makerNote = { (path: String) in try runProcess("exiftool", ["-b", "-MakerNote", path]).stdout }
        XCTAssertEqual(try makerNote(path), try makerNote(source))
        let segments = try XCTUnwrap(JPEGSegments.segments(of: output.bytes))
        XCTAssertNil(blocks.xmp)
        XCTAssertEqual(segments.filter { $0.marker == 0xE1 }.count, 1, "our EXIF, libvips' gone")
        XCTAssertEqual(segments.filter { $0.marker == 0xE2 }.count, JPEGSegments.segments(of: encoded)?.filter { $0.marker == 0xE2 }.count,
                       "libvips' ICC profile, if any, stays")
        let decoded = try runProcess("vips", ["avg", path])
        XCTAssertEqual(decoded.exitCode, 0, decoded.stderr)
        XCTAssertEqual(decoded.stdout, try runProcess("vips", ["avg", try written(encoded)]).stdout, "same pixels")
    }

    func testAnEmptyModelLeavesNoMetadataSegments() throws {
        let output = try JPEGMetadata.writingMetadata(MetadataBlocks(), into: try libvipsWritten("jpeg/canon_eos_7d_iptc_city.jpg"))
        let markers = try XCTUnwrap(JPEGSegments.segments(of: output.bytes)).map(\.marker)
        XCTAssertFalse(markers.contains(0xE1) || markers.contains(0xED), "\(markers)")
        XCTAssertEqual(try locationTags(try written(output.bytes)), [])
    }

    func testBlocksTooLargeForASegmentAreNamedNotCarried() throws {
        let huge = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">".utf8) + [UInt8](repeating: 0x20, count: 70_000)
            + Array("</x:xmpmeta>".utf8)
        let output = try JPEGMetadata.writingMetadata(MetadataBlocks(xmp: huge), into: try libvipsWritten("jpeg/orientation/Landscape_1.jpg"))
        XCTAssertEqual(output.notCarried, ["XMP (70077 bytes: more than a JPEG segment holds)"])
    }

    func testDamagedBlocksAreNamedAndLeftOut() throws {
        var jpeg = try bytes(Fixtures.sample("jpeg/orientation/Landscape_1.jpg"))
        let lying = JPEGMetadata.photoshopSignature + Array("8BIM".utf8) + [4, 4, 0, 0, 0, 0, 0x10, 0] // 4 KiB claimed, none there
        jpeg.insert(contentsOf: [0xFF, 0xED, 0, UInt8(lying.count + 2)] + lying, at: 2)
        let blocks = try JPEGMetadata.readMetadata(path: try written(jpeg))
        XCTAssertNil(blocks.iptc)
        XCTAssertEqual(blocks.unreadable.count, 1)
        XCTAssertTrue(blocks.unreadable[0].hasPrefix("IPTC in APP13"), blocks.unreadable[0])
        let cut = Array(jpeg[..<(2 + 4 + 10)])
        XCTAssertThrowsError(try JPEGMetadata.readMetadata(path: try written(cut)), "a segment longer than the file")
        XCTAssertThrowsError(try JPEGMetadata.writingMetadata(MetadataBlocks(), into: [0xFF, 0xD8, 0xFF]))
    }
}
