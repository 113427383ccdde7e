import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// `JXLMetadata` on files libvips' `jxlsave` wrote: a bare codestream is wrapped in a container
/// holding one `Exif` and one `xml ` box, which exiftool reads and which leaves the pixels as they
/// were; a container written again keeps one of each.
final class JXLMetadataTests: XCTestCase {
    let everywhere = ContainerFixtures.path("webp-location-everywhere.webp")

    func boxTypes(_ jxl: [UInt8]) throws -> [String] {
        try ISOBox.boxes(in: jxl, 0..<jxl.count).map(\.type)
    }

    func testWrapsTheCodestreamWithEachBlockOnce() throws {
        let encoded = try ContainerFixtures.libvipsCopy(of: everywhere, as: "jxl")
        let codestream = try ContainerFixtures.bytes(encoded)
        // libvips 8.14 writes a bare codestream, 8.16 a container with the codestream in `jxlp` parts.
        let parts = codestream.starts(with: [0xFF, 0x0A]) ? ["jxlc"] : try boxTypes(codestream).filter { $0.hasPrefix("jxl") }
        XCTAssertFalse(parts.isEmpty)
        var blocks = try WebPMetadata.readMetadata(path: everywhere)
        blocks.iptc = [0x1C, 2, 90, 0, 3] + Array("Ely".utf8)
        let written = try JXLMetadata.writingMetadata(blocks, into: codestream)
        XCTAssertEqual(written.notCarried, ["IPTC"])
        XCTAssertEqual(try boxTypes(written.bytes), ["JXL ", "ftyp", "Exif", "xml "] + parts)
        let path = try ContainerFixtures.write(written.bytes, as: "written.jxl")
        try ContainerFixtures.assertKept(in: path, makerNoteOf: everywhere, profile: nil)
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("XMP-photoshop:City", in: path),
                       try ContainerFixtures.exiftoolValues("XMP-photoshop:City", in: everywhere), "XMP as it was given")
        try ContainerFixtures.assertSamePixels(encoded, path)

        let again = try JXLMetadata.writingMetadata(MetadataBlocks(exif: blocks.exif), into: written.bytes)
        XCTAssertEqual(try boxTypes(again.bytes), ["JXL ", "ftyp", "Exif"] + parts, "the old blocks go, the codestream stays")
        let reread = try JXLMetadata.readMetadata(path: try ContainerFixtures.write(again.bytes, as: "again.jxl"))
        XCTAssertEqual(reread.exif, blocks.exif)
        XCTAssertNil(reread.xmp)
    }

    func testABareCodestreamHoldsNothingAndOtherFilesAreRefused() throws {
        let encoded = try ContainerFixtures.libvipsCopy(of: everywhere, as: "jxl")
        XCTAssertTrue(try JXLMetadata.readMetadata(path: encoded).isEmpty)
        XCTAssertThrowsError(try JXLMetadata.writingMetadata(MetadataBlocks(), into: Array("not a JPEG XL file".utf8)))
    }
}
