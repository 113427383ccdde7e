import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// `WebPMetadata` on real files: what it reads is what exiftool reads; what it writes into a
/// libvips-written WebP holds one EXIF chunk (no `Exif` prefix) and one XMP chunk after the image
/// data, flagged in `VP8X`, read back by exiftool without a warning, the pixels untouched; a
/// simple WebP is made extended.
final class WebPMetadataTests: XCTestCase {
    let everywhere = ContainerFixtures.path("webp-location-everywhere.webp")
    let still = Fixtures.sample("livephoto/train.jpg")

    func fourCCs(_ webp: [UInt8]) throws -> [String] {
        try WebPMetadata.chunks(of: webp).map(\.fourCC)
    }

    func testReadsEveryBlockAsExiftoolReadsIt() throws {
        let blocks = try WebPMetadata.readMetadata(path: everywhere)
        XCTAssertEqual(blocks.unreadable, [])
        let exif = try XCTUnwrap(blocks.exif)
        XCTAssertEqual(exif.string(ExifTag.make, in: .ifd0), try ContainerFixtures.exiftoolValues("IFD0:Make", in: everywhere).first)
        XCTAssertEqual(exif.string(0x8298, in: .ifd0), ContainerFixtures.copyright, "Copyright")
        XCTAssertTrue(exif.hasGPS)
        XCTAssertEqual(exif.bytes(ExifTag.makerNote, in: .exif).map { "base64:" + Data($0).base64EncodedString() },
                       try ContainerFixtures.makerNote(in: everywhere))
        XCTAssertEqual(try XMPPacket.locationValues(in: XCTUnwrap(blocks.xmp))["photoshop:City"],
                       try ContainerFixtures.exiftoolValues("XMP-photoshop:City", in: everywhere).first)
        XCTAssertNil(blocks.iptc)
    }

    /// An iPhone X export: EXIF after `Exif\0\0` (exiftool warns, and reads it), XMP in a chunk
    /// called `XMP\0`, which libvips and exiftool 12 skip (exiftool 13 reads it) and we take as a
    /// lesser copy.
    func testReadsAnExportWithThePrefixAndTheMisspelledChunk() throws {
        let path = Fixtures.sample("webp/iphone_x_exif_gps.webp")
        let blocks = try WebPMetadata.readMetadata(path: path)
        XCTAssertEqual(blocks.exif?.string(ExifTag.model, in: .ifd0), try ContainerFixtures.exiftoolValues("IFD0:Model", in: path).first)
        XCTAssertEqual(blocks.exif?.hasGPS, true)
        XCTAssertEqual(try XCTUnwrap(blocks.xmp).prefix(9), ArraySlice("<?xpacket".utf8))
        let exiftoolXMP = try ContainerFixtures.exiftoolValues("XMP-xmp:CreatorTool", in: path)
        XCTAssertEqual(exiftoolXMP, try exiftoolMajorVersion() < 13 ? [] : ["11.4.1"], "exiftool 12 skips XMP\\0")
    }

    func testWritesEachBlockOnceAfterTheImageData() throws {
        let libvips = try ContainerFixtures.libvipsCopy(of: everywhere, as: "webp")
        let encoded = try ContainerFixtures.bytes(libvips)
        let exifChunk = try XCTUnwrap(WebPMetadata.chunks(of: encoded).first { $0.fourCC == "EXIF" })
        XCTAssertEqual(Array(encoded[exifChunk.payload].prefix(6)), Array("Exif\0\0".utf8), "libvips' prefix")

        var blocks = try WebPMetadata.readMetadata(path: everywhere)
        blocks.iptc = [0x1C, 2, 90, 0, 3] + Array("Ely".utf8)
        blocks.photoshop = Array("8BIM".utf8) + [0x04, 0x0C, 0, 0, 0, 0, 0, 0]
        let written = try WebPMetadata.writingMetadata(blocks, into: encoded)
        XCTAssertEqual(written.notCarried, ["IPTC", "Photoshop resources"])
        let chunks = try WebPMetadata.chunks(of: written.bytes)
        XCTAssertEqual(chunks.map(\.fourCC), ["VP8X", "ICCP", "VP8 ", "EXIF", "XMP "])
        XCTAssertEqual(written.bytes[20], 0x20 | 0x08 | 0x04, "VP8X flags: ICC, EXIF, XMP")
        XCTAssertEqual(written.bytes.uint32(at: 4, bigEndian: false).map(Int.init), written.bytes.count - 8, "RIFF size")
        XCTAssertEqual(Array(written.bytes[chunks[3].payload].prefix(4)), [0x4D, 0x4D, 0, 0x2A], "a bare TIFF structure")
        for fourCC in ["ICCP", "VP8 "] {
            let before = try XCTUnwrap(WebPMetadata.chunks(of: encoded).first { $0.fourCC == fourCC })
            XCTAssertEqual(written.bytes[chunks.first { $0.fourCC == fourCC }!.payload], encoded[before.payload], fourCC)
        }

        let path = try ContainerFixtures.write(written.bytes, as: "written.webp")
        try ContainerFixtures.assertKept(in: path, makerNoteOf: still)
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("XMP-photoshop:City", in: path), ["Cambridge"])
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("IPTC:all", in: path), [])
        try ContainerFixtures.assertSamePixels(libvips, path)
        XCTAssertEqual(try WebPMetadata.readMetadata(path: path), try WebPMetadata.readMetadata(path: everywhere), "reads back as written")
    }

    func testRoundTripWithoutLocationLeavesExiftoolNothing() throws {
        var blocks = try WebPMetadata.readMetadata(path: everywhere)
        XCTAssertFalse(try locationTags(everywhere).isEmpty)
        blocks.exif?.remove(0x8825, from: .ifd0)
        blocks.xmp = try blocks.xmp.map { try XMPPacket.removingLocation(from: $0)?.bytes ?? $0 }
        let libvips = try ContainerFixtures.libvipsCopy(of: everywhere, as: "webp")
        let path = try ContainerFixtures.write(WebPMetadata.writingMetadata(blocks, into: ContainerFixtures.bytes(libvips)).bytes,
                                               as: "without-location.webp")
        XCTAssertEqual(try locationTags(path), [])
        try ContainerFixtures.assertKept(in: path, makerNoteOf: still)
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("XMP-dc:Rights", in: path), [ContainerFixtures.copyright])
    }

    /// A file of the RIFF header and `chunk` alone, as encoders write one without metadata,
    /// ICC profile or alpha in lossy mode.
    func simpleWebP(from webp: [UInt8], keeping fourCC: String) throws -> [UInt8] {
        let image = try XCTUnwrap(WebPMetadata.chunks(of: webp).first { $0.fourCC == fourCC })
        var simple = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array(webp[image.offset..<image.end])
        simple.setUInt32(UInt32(simple.count - 8), at: 4, bigEndian: false)
        return simple
    }

    /// Given EXIF and XMP, a simple file (lossy, or lossless with alpha) gets a `VP8X` header
    /// whose canvas and alpha flag come from its bitstream; given nothing, it stays as it was.
    func testASimpleWebPBecomesExtended() throws {
        let blocks = try WebPMetadata.readMetadata(path: everywhere)
        let folder = Fixtures.temporaryFolder()
        let withAlpha = folder.appendingPathComponent("alpha.v").path
        XCTAssertEqual(try runProcess("vips", ["bandjoin_const", everywhere, withAlpha, "128"]).exitCode, 0)
        let lossless = try ContainerFixtures.libvipsCopy(of: withAlpha, as: "webp", options: "[lossless]")
        let lossy = try ContainerFixtures.libvipsCopy(of: everywhere, as: "webp")
        for (source, fourCC, flags) in [(lossy, "VP8 ", UInt8(0x08 | 0x04)), (lossless, "VP8L", UInt8(0x10 | 0x08 | 0x04))] {
            let simple = try simpleWebP(from: ContainerFixtures.bytes(source), keeping: fourCC)
            let simplePath = try ContainerFixtures.write(simple, as: "simple.webp")
            XCTAssertEqual(try WebPMetadata.writingMetadata(MetadataBlocks(), into: simple).bytes, simple, "nothing to add")
            let written = try WebPMetadata.writingMetadata(blocks, into: simple).bytes
            XCTAssertEqual(try fourCCs(written), ["VP8X", fourCC, "EXIF", "XMP "])
            XCTAssertEqual(written[20], flags, fourCC)
            XCTAssertEqual(Array(written[24..<30]), [47, 0, 0, 35, 0, 0], "canvas 48 × 36, each less one")
            let path = try ContainerFixtures.write(written, as: "extended.webp")
            let tags = try exiftool(path, ["-Warning", "-ImageWidth", "-ImageHeight", "-Apple:MediaGroupUUID"])
            XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")")
            XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, ContainerFixtures.livePhotoIdentifier)
            XCTAssertEqual(try runProcess("vipsheader", ["-f", "bands", path]).stdout, fourCC == "VP8L" ? "4\n" : "3\n")
            try ContainerFixtures.assertSamePixels(simplePath, path)
        }
    }

    /// A block that does not parse is named and left out; writing drops it with the rest.
    func testUnreadableBlocksAreNamedAndLeftOut() throws {
        let encoded = try ContainerFixtures.bytes(ContainerFixtures.libvipsCopy(of: everywhere, as: "webp"))
        let good = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        var webp = try WebPMetadata.replacingChunks(in: encoded, removing: ["EXIF", "XMP "], adding: [])
        webp += WebPMetadata.chunk("EXIF", Array("no TIFF here".utf8)) + WebPMetadata.chunk("XMP ", Array("<x:xmpmeta><photoshop:City>".utf8))
            + WebPMetadata.chunk("XMP ", good)
        webp.setUInt32(UInt32(webp.count - 8), at: 4, bigEndian: false)
        let blocks = try WebPMetadata.readMetadata(path: ContainerFixtures.write(webp, as: "unreadable.webp"))
        XCTAssertEqual(blocks.unreadable.count, 2)
        XCTAssertEqual(blocks.unreadable.first, "EXIF in WebP EXIF chunk (no TIFF header)")
        XCTAssertTrue(blocks.unreadable.last?.hasPrefix("XMP in WebP XMP chunk (XMP packet is not well-formed XML") == true)
        XCTAssertEqual(blocks.xmp, good)
        XCTAssertNil(blocks.exif)
        XCTAssertEqual(try fourCCs(WebPMetadata.writingMetadata(blocks, into: webp).bytes), ["VP8X", "ICCP", "VP8 ", "XMP "])
    }

    /// Cut, damaged and lying files throw `MetadataFormatError` or read what they can; none traps.
    func testHostileFilesNeverTrap() throws {
        let original = try ContainerFixtures.bytes(everywhere)
        let blocks = try WebPMetadata.readMetadata(path: everywhere)
        var random = SplitMix(seed: 6839)
        let folder = Fixtures.temporaryFolder()
        for round in 0..<300 {
            var bytes = original
            switch round % 3 {
            case 0: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 1: for _ in 0..<8 { bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next()) }
            default:
                let sizeFields = try WebPMetadata.chunks(of: original).map { $0.offset + 4 } + [4]
                bytes.setUInt32(UInt32(truncatingIfNeeded: random.next() >> (random.next() % 32)),
                                at: sizeFields[Int(random.next() % UInt64(sizeFields.count))], bigEndian: false)
            }
            let path = folder.appendingPathComponent("\(round).webp").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do { _ = try WebPMetadata.readMetadata(path: path) } catch is MetadataFormatError {}
            do { _ = try WebPMetadata.writingMetadata(blocks, into: bytes) } catch is MetadataFormatError {}
        }
        XCTAssertThrowsError(try WebPMetadata.writingMetadata(blocks, into: Array(original.prefix(11))))
        XCTAssertEqual(original.count % 2, 0)
        XCTAssertEqual(try WebPMetadata.chunks(of: original).last.map { $0.size % 2 }, 1, "the last chunk is padded")
        let unpadded = try WebPMetadata.writingMetadata(blocks, into: Array(original.dropLast()))
        XCTAssertEqual(unpadded.bytes, try WebPMetadata.writingMetadata(blocks, into: original).bytes, "the padding byte put back")
    }
}
