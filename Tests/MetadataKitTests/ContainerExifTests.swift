import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Our EXIF block spliced into WebP files (`WebPChunks`) as libvips wrote them, read back by
/// exiftool and decoded by libvips' CLI. libvips 8.14 (Debian 12) loses the Apple MakerNote and
/// writes the block with a prefix exiftool warns about; 8.16 (Debian 13) keeps it; the splice
/// gives the same file on both. (PNG: `PNGMetadataTests`.)
final class ContainerExifTests: XCTestCase {
    /// The Live Photo still's own EXIF: Apple MakerNote, Live Photo identifier and all.
    func livePhotoExif() throws -> ExifData {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("livephoto/train.jpg"))))
        let app1 = try XCTUnwrap(JPEGSegments.segments(of: jpeg)?.first { $0.marker == 0xE1 })
        return try XCTUnwrap(ExifData(Array(jpeg[app1.payload])))
    }

    /// The still re-encoded by libvips (`vips thumbnail`).
    func libvipsWritten(_ format: String) throws -> URL {
        let output = Fixtures.temporaryFolder().appendingPathComponent("train.\(format)")
        let made = try runProcess("vips", ["thumbnail", Fixtures.sample("livephoto/train.jpg"), output.path, "300"])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        return output
    }

    func assertReadBack(_ file: URL, bytes: [UInt8], file source: StaticString = #filePath, line: UInt = #line) throws {
        try Data(bytes).write(to: file)
        let tags = try exiftool(file.path, ["-Warning", "-Apple:all", "-Model"])
        XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, "E905E6C6-C747-4805-942F-9904A0281F02", file: source, line: line)
        XCTAssertEqual(tags["IFD0:Model"] as? String, "iPhone 6s", file: source, line: line)
        XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")", file: source, line: line)
        let decoded = try runProcess("vips", ["avg", file.path])
        XCTAssertEqual(decoded.exitCode, 0, "still decodes: \(decoded.stderr)", file: source, line: line)
    }

    func testWebPGetsTheWholeBlockAndItsFlag() throws {
        let webp = try libvipsWritten("webp")
        let before = try [UInt8](Data(contentsOf: webp))
        let spliced = try XCTUnwrap(WebPChunks.replacingExif(in: before, with: livePhotoExif()))
        let chunks = try XCTUnwrap(WebPChunks.chunks(of: spliced))
        XCTAssertEqual(chunks.filter { $0.fourCC == "EXIF" }.count, 1)
        XCTAssertEqual(chunks.first?.fourCC, "VP8X")
        XCTAssertEqual(spliced[20] & 0x08, 0x08, "EXIF flag")
        XCTAssertEqual(spliced.uint32(at: 4, bigEndian: false).map(Int.init), spliced.count - 8, "RIFF size")
        XCTAssertEqual(Array(spliced[chunks.first { $0.fourCC == "EXIF" }!.payload].prefix(2)), Array("MM".utf8), "raw TIFF, no Exif prefix")
        try assertReadBack(webp, bytes: spliced)
    }

    /// A simple WebP (RIFF header and one `VP8 ` chunk, as cwebp writes one without metadata).
    func testASimpleWebPHasNoPlaceForIt() throws {
        let extended = try [UInt8](Data(contentsOf: libvipsWritten("webp")))
        let image = try XCTUnwrap(WebPChunks.chunks(of: extended)?.first { $0.fourCC == "VP8 " })
        var simple = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array(extended[image.range])
        simple.setUInt32(UInt32(simple.count - 8), at: 4, bigEndian: false)
        XCTAssertEqual(WebPChunks.chunks(of: simple)?.map(\.fourCC), ["VP8 "])
        XCTAssertTrue(WebPChunks.replacingExif(in: simple, with: try livePhotoExif()) == nil)
        XCTAssertTrue(WebPChunks.chunks(of: Array(simple.dropLast(3))) == nil, "a chunk longer than the file")
    }
}
