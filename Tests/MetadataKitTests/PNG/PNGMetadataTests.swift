import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// `PNGMetadata` on real files: what it reads is what exiftool reads, block by block; what it
/// writes into a libvips-written PNG holds each block once, before the image data, read back by
/// exiftool without a warning, the pixels untouched.
final class PNGMetadataTests: XCTestCase {
    let everywhere = ContainerFixtures.path("png-location-everywhere.png")
    let magick = ContainerFixtures.path("png-imagemagick-profiles.png")
    let still = Fixtures.sample("livephoto/train.jpg")

    /// Each chunk as its type, and a text chunk's keyword after it: `zTXt XML:com.adobe.xmp`.
    func layout(_ png: [UInt8]) throws -> [String] {
        try PNGMetadata.chunks(of: png).map { chunk in
            guard PNGText.types.contains(chunk.type), let keyword = PNGText.keyword(of: png[chunk.data]) else { return chunk.type }
            return "\(chunk.type) \(keyword)"
        }
    }

    func testReadsEveryBlockAsExiftoolReadsIt() throws {
        let blocks = try PNGMetadata.readMetadata(path: everywhere)
        XCTAssertEqual(blocks.unreadable, [])
        let exif = try XCTUnwrap(blocks.exif)
        XCTAssertEqual(exif.string(ExifTag.make, in: .ifd0), try ContainerFixtures.exiftoolValues("IFD0:Make", in: everywhere).first)
        XCTAssertEqual(exif.string(0x8298, in: .ifd0), ContainerFixtures.copyright, "Copyright")
        XCTAssertEqual(exif.string(ExifTag.dateTimeOriginal, in: .exif), "2021:04:10 11:44:00")
        XCTAssertTrue(exif.hasGPS)
        // Of the two EXIF copies the eXIf chunk's wins: the raw profile's (libexif's) has no MakerNote.
        XCTAssertEqual(exif.bytes(ExifTag.makerNote, in: .exif).map { Data($0).base64EncodedString() },
                       try ContainerFixtures.makerNote(in: still).map { String($0.dropFirst("base64:".count)) })
        // Of the two XMP packets the iTXt one wins (Cambridge); exiftool reads both.
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("XMP-photoshop:City", in: everywhere), ["Cambridge", "Ely"])
        XCTAssertEqual(try XMPPacket.locationValues(in: XCTUnwrap(blocks.xmp))["photoshop:City"], "Cambridge")
        let iptc = try IPTCBlock.locationValues(in: XCTUnwrap(blocks.iptc))
        XCTAssertEqual(iptc["IPTC:City"], try ContainerFixtures.exiftoolValues("IPTC:City", in: everywhere).joined(separator: "; "))
        XCTAssertEqual(iptc["IPTC:Country-PrimaryLocationName"], "United Kingdom")
        XCTAssertNil(blocks.photoshop, "exiftool's IPTC profile holds the IIM resource alone")
    }

    /// ImageMagick keeps XMP and IPTC (twice: bare, and in Photoshop resources) as raw profiles
    /// and EXIF after the image data; libvips copies raw profiles it finds before the image data
    /// as PNG comments keyed `Raw`. Both are read, the two IIM copies merged into one.
    func testReadsImageMagicksRawProfilesAndTheirLibvipsCopies() throws {
        let viaLibvips = try ContainerFixtures.libvipsCopy(of: magick, as: "png")
        XCTAssertEqual(try layout(ContainerFixtures.bytes(viaLibvips)).filter { $0.hasSuffix(" Raw") }.count, 3, "libvips' truncated keys")
        let magickBlocks = try PNGMetadata.readMetadata(path: magick)
        XCTAssertEqual(magickBlocks.exif?.string(0x8298, in: .ifd0), ContainerFixtures.copyright)
        XCTAssertEqual(magickBlocks.exif?.hasGPS, true)
        // libvips reads no eXIf after the image data: 8.14 writes none, 8.16 one of its own (no copyright).
        let libvipsExif = try PNGMetadata.readMetadata(path: viaLibvips).exif
        XCTAssertEqual(libvipsExif != nil, libvipsIsNewer(than: 8, 14))
        XCTAssertNil(libvipsExif?.string(0x8298, in: .ifd0))
        for path in [magick, viaLibvips] {
            let blocks = try PNGMetadata.readMetadata(path: path)
            XCTAssertEqual(blocks.unreadable, [], path)
            XCTAssertEqual(try XMPPacket.locationValues(in: XCTUnwrap(blocks.xmp))["photoshop:City"], "Cambridge", path)
            let iim = try XCTUnwrap(blocks.iptc)
            XCTAssertEqual(try IPTCBlock.datasets(in: iim[...]).datasets.filter { $0.number == 90 }.count, 1, "one City of two copies")
            XCTAssertEqual(try IPTCBlock.locationValues(in: iim), ["IPTC:City": "Cambridge"], path)
        }
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("IPTC:City", in: magick), ["Cambridge", "Cambridge"])
    }

    /// macOS writes a screenshot's metadata as exiftool does: eXIf, iTXt XMP, an IPTC raw profile.
    func testReadsAMacOSScreenshot() throws {
        let path = Fixtures.sample("png/macos_screenshot_exif.png")
        let blocks = try PNGMetadata.readMetadata(path: path)
        XCTAssertEqual(blocks.unreadable, [])
        XCTAssertEqual(blocks.exif?.userComment, "Screenshot")
        XCTAssertTrue(try XMPPacket.properties(in: XCTUnwrap(blocks.xmp)).contains { $0.name == "UserComment" })
        let keywords = try IPTCBlock.datasets(in: XCTUnwrap(blocks.iptc)[...]).datasets.filter { $0.number == 25 }
        XCTAssertEqual(keywords.count, 1)
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("IPTC:Keywords", in: path).count, 1)
    }

    func testWritesEachBlockOnceBeforeTheImageData() throws {
        let libvips = try ContainerFixtures.libvipsCopy(of: everywhere, as: "png")
        let encoded = try ContainerFixtures.bytes(libvips)
        let before = try layout(encoded)
        // libvips 8.14 writes its EXIF twice and compresses its text; 8.16 writes EXIF once, text plain.
        let olderLibvips = !libvipsIsNewer(than: 8, 14)
        XCTAssertEqual(before.filter { $0 == "eXIf" }.count, olderLibvips ? 2 : 1)
        let text = olderLibvips ? "zTXt" : "tEXt"
        XCTAssertTrue(before.contains("\(text) XML:com.adobe.xmp") && before.contains("\(text) Raw"), "\(before)")

        let written = try PNGMetadata.writingMetadata(PNGMetadata.readMetadata(path: everywhere), into: encoded)
        XCTAssertEqual(written.notCarried, [])
        let after = try layout(written.bytes)
        let image = try XCTUnwrap(after.firstIndex(of: "IDAT"))
        XCTAssertEqual(Array(after[..<image].filter { ["eXIf", "iTXt", "zTXt", "tEXt"].contains($0.prefix(4)) }),
                       ["eXIf", "iTXt XML:com.adobe.xmp", "zTXt Raw profile type iptc"])
        XCTAssertFalse(after[image...].contains { ["eXIf", "iTXt", "zTXt", "tEXt"].contains($0.prefix(4)) })
        XCTAssertEqual(before.filter { ["IHDR", "iCCP", "IDAT", "IEND"].contains($0) }, after.filter { ["IHDR", "iCCP", "IDAT", "IEND"].contains($0) })

        // The IPTC profile's text is exiftool's, byte for byte; only the compression differs.
        let iptcProfile = { (png: [UInt8]) in
            try PNGMetadata.chunks(of: png).first { $0.type == "zTXt" && PNGText.keyword(of: png[$0.data]) == PNGMetadata.iptcKeyword }
                .map { try PNGText(type: "zTXt", data: Array(png[$0.data])).text }
        }
        XCTAssertEqual(try iptcProfile(written.bytes), try iptcProfile(ContainerFixtures.bytes(everywhere)))

        let path = try ContainerFixtures.write(written.bytes, as: "written.png")
        try ContainerFixtures.assertKept(in: path, makerNoteOf: still)
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("XMP-photoshop:City", in: path), ["Cambridge"])
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("IPTC:City", in: path), ["Cambridge"])
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("IPTC:CopyrightNotice", in: path), [ContainerFixtures.copyright])
        XCTAssertEqual(try ContainerFixtures.exiftoolValues("PNG:Raw", in: path), [])
        try ContainerFixtures.assertSamePixels(libvips, path)
        XCTAssertEqual(try PNGMetadata.readMetadata(path: path), try PNGMetadata.readMetadata(path: everywhere), "reads back as written")
    }

    /// `blocks` written into libvips' PNG copy of `input`, saved.
    func writtenIntoLibvipsCopy(of input: String, _ blocks: MetadataBlocks) throws -> String {
        let libvips = try ContainerFixtures.libvipsCopy(of: input, as: "png")
        let written = try PNGMetadata.writingMetadata(blocks, into: ContainerFixtures.bytes(libvips))
        return try ContainerFixtures.write(written.bytes, as: "written.png")
    }

    /// The model with location removed, written into libvips' copies of both fixtures: nothing
    /// location-like is left for exiftool to find, and nothing else went.
    func testRoundTripWithoutLocationLeavesExiftoolNothing() throws {
        for input in [everywhere, magick] {
            var blocks = try PNGMetadata.readMetadata(path: input)
            XCTAssertFalse(try locationTags(input).isEmpty)
            blocks.exif?.remove(0x8825, from: .ifd0)
            blocks.xmp = try blocks.xmp.map { try XMPPacket.removingLocation(from: $0)?.bytes ?? $0 }
            blocks.iptc = try blocks.iptc.map { try IPTCBlock.removingLocation(from: $0)?.bytes ?? $0 }
            let path = try writtenIntoLibvipsCopy(of: input, blocks)
            XCTAssertEqual(try locationTags(path), [], input)
            XCTAssertEqual(try ContainerFixtures.exiftoolValues("IFD0:Copyright", in: path), [ContainerFixtures.copyright], input)
            XCTAssertEqual(try ContainerFixtures.exiftoolValues("PNG:Raw", in: path), [], input)
            guard input == everywhere else { continue }
            try ContainerFixtures.assertKept(in: path, makerNoteOf: still)
            XCTAssertEqual(try ContainerFixtures.exiftoolValues("XMP-dc:Rights", in: path), [ContainerFixtures.copyright])
            XCTAssertEqual(try ContainerFixtures.exiftoolValues("IPTC:CopyrightNotice", in: path), [ContainerFixtures.copyright])
        }
    }

    /// A libvips PNG of the fixture's pixels with no metadata chunk, and `chunks` before its image data.
    func png(inserting chunks: [[UInt8]]) throws -> [UInt8] {
        let encoded = try ContainerFixtures.bytes(ContainerFixtures.libvipsCopy(of: everywhere, as: "png"))
        return try PNGMetadata.writingMetadata(MetadataBlocks(), into: encoded).bytes.enumerated().reduce(into: []) { png, element in
            png.append(element.element)
            // After IHDR (8 + 25 bytes) every chunk may go.
            if element.offset == 32 { png += chunks.joined() }
        }
    }

    /// Blocks that do not parse are named and left out, the others read; writing drops them all.
    func testUnreadableBlocksAreNamedAndLeftOut() throws {
        let good = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        var badCRC = PNGMetadata.chunk("iTXt", PNGText.iTXtData(keyword: "XML:com.adobe.xmp", text: good))
        badCRC[badCRC.count - 1] ^= 1
        var corrupt = PNGText.zTXtData(keyword: "XML:com.adobe.xmp", text: good)
        corrupt[corrupt.count - 1] ^= 1
        let png = try png(inserting: [
            PNGMetadata.chunk("eXIf", Array("not a TIFF structure".utf8)),
            PNGMetadata.chunk("zTXt", corrupt),
            PNGMetadata.chunk("tEXt", Array("XML:com.adobe.xmp\0<x:xmpmeta><photoshop:City>".utf8)),
            PNGMetadata.chunk("tEXt", Array("Raw profile type iptc\0\nIPTC profile\n 4\n1c02zz00\n".utf8)),
            PNGMetadata.chunk("tEXt", Array("Raw profile type exif\0\nexif\n 5\n4d4d002a\n".utf8)),
            PNGMetadata.chunk("iTXt", Array("XML:com.adobe.xmp\0\u{1}\u{1}\0\0".utf8) + good),
            badCRC,
            PNGMetadata.chunk("iTXt", PNGText.iTXtData(keyword: "XML:com.adobe.xmp", text: good)),
        ])
        let path = try ContainerFixtures.write(png, as: "unreadable.png")
        let blocks = try PNGMetadata.readMetadata(path: path)
        // libxml2 words the XML error.
        XCTAssertTrue(blocks.unreadable.count > 2 && blocks.unreadable[2].hasPrefix(
            "XMP in PNG tEXt 'XML:com.adobe.xmp' (XMP packet is not well-formed XML"), "\(blocks.unreadable)")
        XCTAssertEqual(blocks.unreadable.enumerated().filter { $0.offset != 2 }.map(\.element), [
            "EXIF in PNG eXIf chunk (no TIFF header)",
            "XMP in PNG zTXt 'XML:com.adobe.xmp' (zlib stream: incorrect data check)",
            "IPTC in PNG tEXt 'Raw profile type iptc' (raw profile holds a non-hex character)",
            "EXIF in PNG tEXt 'Raw profile type exif' (raw profile is shorter than it says)",
            "XMP in PNG iTXt 'XML:com.adobe.xmp' (unknown compression method)",
            "XMP in PNG iTXt 'XML:com.adobe.xmp' (CRC mismatch)",
        ])
        XCTAssertEqual(blocks.xmp, good, "the one good packet")
        XCTAssertNil(blocks.exif)
        XCTAssertNil(blocks.iptc)
        let written = try layout(PNGMetadata.writingMetadata(blocks, into: png).bytes)
        XCTAssertEqual(written.filter { !["IHDR", "iCCP", "pHYs", "IDAT", "IEND"].contains($0) }, ["iTXt XML:com.adobe.xmp"])
    }

    /// Cut, damaged and lying files throw `MetadataFormatError` or read what they can; none traps,
    /// and a zip bomb in a text chunk stops at the limit.
    func testHostileFilesNeverTrap() throws {
        let original = try ContainerFixtures.bytes(everywhere)
        let blocks = try PNGMetadata.readMetadata(path: everywhere)
        var random = SplitMix(seed: 2083)
        let folder = Fixtures.temporaryFolder()
        for round in 0..<300 {
            var bytes = original
            switch round % 3 {
            case 0: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 1: for _ in 0..<8 { bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next()) }
            default: bytes.setUInt32(UInt32(truncatingIfNeeded: random.next()), at: 8 + Int(random.next() % UInt64(bytes.count - 12)))
            }
            let path = folder.appendingPathComponent("\(round).png").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do { _ = try PNGMetadata.readMetadata(path: path) } catch is MetadataFormatError {}
            do { _ = try PNGMetadata.writingMetadata(blocks, into: bytes) } catch is MetadataFormatError {}
        }
        let bomb = try PythonReference.runStandardLibrary("import sys, zlib; sys.stdout.write(zlib.compress(b' ' * (17 << 20), 9).hex())")
        let stream = ContainerFixtures.bytes(hex: bomb)
        let path = try ContainerFixtures.write(try png(inserting: [PNGMetadata.chunk("zTXt", Array("XML:com.adobe.xmp\0\0".utf8) + stream)]),
                                               as: "bomb.png")
        XCTAssertEqual(try PNGMetadata.readMetadata(path: path).unreadable,
                       ["XMP in PNG zTXt 'XML:com.adobe.xmp' (zlib stream: inflates past \(16 << 20) bytes)"])
    }

    /// Metadata after 2 GiB of image data is found by walking chunk headers: the image data (a
    /// hole in a sparse file here) is skipped, not read.
    func testReadsPastHugeImageDataWithoutReadingIt() throws {
        let header = try ContainerFixtures.bytes(everywhere).prefix(33) // signature, IHDR
        let imageData = (1 << 31) - 1
        var idat: [UInt8] = [0, 0, 0, 0] + Array("IDAT".utf8)
        idat.setUInt32(UInt32(imageData), at: 0)
        let packet = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let tail = [0, 0, 0, 0] + PNGMetadata.chunk("iTXt", PNGText.iTXtData(keyword: PNGMetadata.xmpKeyword, text: packet))
            + PNGMetadata.chunk("IEND", [])
        let path = Fixtures.temporaryFolder().appendingPathComponent("huge.png").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(header + idat)))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: UInt64(header.count + idat.count + imageData))
        try handle.write(contentsOf: Data(tail))
        try handle.close()
        let started = Date()
        XCTAssertEqual(try PNGMetadata.readMetadata(path: path).xmp, packet)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "seconds: nothing like 2 GiB was read")
    }
}
