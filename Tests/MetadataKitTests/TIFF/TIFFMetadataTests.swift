import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// TIFF inputs read into the one model and the model written into TIFFs as libvips 8.14's
/// tiffsave writes them; exiftool reads the results back. The fixture carries location in EXIF
/// GPS, XMP and IPTC twice (tag 33723 and inside the Photoshop resources of 34377), and an Apple
/// MakerNote in big-endian EXIF, where libvips writes little-endian TIFFs.
final class TIFFMetadataTests: XCTestCase {
    static let fixture = Fixtures.fixtures.appendingPathComponent("metadata/tiff-location-everywhere.tif").path
    static let contentIdentifier = "E905E6C6-C747-4805-942F-9904A0281F02"

    func testReadsEveryBlockAndMergesBothIPTCCopies() throws {
        let blocks = try TIFFMetadata.readMetadata(path: Self.fixture)
        XCTAssertEqual(blocks.unreadable, [])
        let exif = try XCTUnwrap(blocks.exif)
        XCTAssertEqual(exif.string(ExifTag.make, in: .ifd0), "Apple")
        XCTAssertEqual(exif.string(ExifTag.copyright, in: .ifd0), "(C) Lychee contributors (MIT)")
        XCTAssertEqual(exif.string(ExifTag.dateTimeOriginal, in: .exif), "2021:04:10 11:44:00")
        XCTAssertEqual(exif.appleMakerNote?.contentIdentifier, Self.contentIdentifier)
        XCTAssertTrue(exif.hasGPS)
        XCTAssertFalse(exif.contains(0x0111, in: .ifd0), "strip offsets are the file's, not the photo's")
        XCTAssertEqual(try XMPPacket.locationValues(in: XCTUnwrap(blocks.xmp))["photoshop:City"], "Mainz")
        let iptc = try XCTUnwrap(blocks.iptc)
        XCTAssertEqual(try IPTCBlock.locationValues(in: iptc), [
            "IPTC:City": "Mainz", "IPTC:Province-State": "Rheinland-Pfalz",
            "IPTC:Country-PrimaryLocationName": "Deutschland", "IPTC:Sub-location": "Dom",
        ], "each dataset once, the Photoshop copy's extra one included")
        let photoshop = try IPTCBlock.splitting(photoshopResources: XCTUnwrap(blocks.photoshop))
        XCTAssertEqual(photoshop.iim, [], "IIM lives in `iptc` only")
        XCTAssertNotNil(photoshop.others)
    }

    /// What exiftool reads from the fixture is what the model holds.
    func testTheModelHoldsWhatExiftoolReads() throws {
        let tags = try exiftool(Self.fixture, ["-IFD0:all", "-ExifIFD:DateTimeOriginal", "-Apple:all"])
        let exif = try XCTUnwrap(try TIFFMetadata.readMetadata(path: Self.fixture).exif)
        XCTAssertEqual(exif.string(ExifTag.model, in: .ifd0), tags["IFD0:Model"] as? String)
        XCTAssertEqual(exif.string(ExifTag.copyright, in: .ifd0), tags["IFD0:Copyright"] as? String)
        XCTAssertEqual(exif.string(ExifTag.dateTimeOriginal, in: .exif), tags["ExifIFD:DateTimeOriginal"] as? String)
        XCTAssertEqual(exif.appleMakerNote?.contentIdentifier, tags["Apple:MediaGroupUUID"] as? String)
    }

    /// libvips 8.14 writes the fixture's XMP, IPTC and Photoshop blocks back as it read them; the
    /// writer replaces them, adds EXIF, and leaves exactly one of each tag.
    func testWritingLeavesOneCopyOfEachBlockAndKeepsWhatMustStay() throws {
        let blocks = try TIFFMetadata.readMetadata(path: Self.fixture)
        let written = try libvipsWritten(["copy", Self.fixture])
        let output = try TIFFMetadata.writingMetadata(blocks, into: written.bytes).bytes
        let ifd0 = try XCTUnwrap(ExifData(output)).entries(in: .ifd0).map(\.tag)
        for tag: UInt16 in [700, 33723, 34377, 0x8769, 0x8825, 34675, ExifTag.make, 0x0111] {
            XCTAssertEqual(ifd0.filter { $0 == tag }.count, 1, "tag \(tag)")
        }
        XCTAssertEqual(ifd0, ifd0.sorted(), "ascending tags")
        XCTAssertEqual(try XCTUnwrap(ExifData(output)).bytes(ExifTag.makerNote, in: .exif),
                       blocks.exif?.bytes(ExifTag.makerNote, in: .exif), "MakerNote byte for byte")
        let tags = try readBack(output, pixelsOf: written.url)
        XCTAssertEqual(tags["IPTC:City"] as? String, "Mainz")
        XCTAssertEqual(tags["IPTC2:Sub-location"] as? String, "Dom", "the Photoshop copy holds the merged IIM")
        XCTAssertEqual(tags["IPTC:Sub-location"] as? String, "Dom", "and so does 33723")
        XCTAssertEqual(tags["Photoshop:URL"] as? String, "https://example.org/rights")
        XCTAssertEqual(tags["XMP-photoshop:City"] as? String, "Mainz")
        XCTAssertNotNil(tags["GPS:GPSLatitude"])
    }

    /// The issue's anchor: with location removed from the model, exiftool finds none, and no
    /// stale copy is left in the file's bytes for a reader that scans them.
    func testARoundTripWithoutLocationLeavesNoneAnywhere() throws {
        var blocks = try TIFFMetadata.readMetadata(path: Self.fixture)
        blocks.exif?.remove(ExifTag.gpsPointer, from: .ifd0)
        blocks.iptc = try IPTCBlock.removingLocation(from: XCTUnwrap(blocks.iptc))?.bytes
        blocks.xmp = try XMPPacket.removingLocation(from: XCTUnwrap(blocks.xmp))?.bytes
        let written = try libvipsWritten(["copy", Self.fixture])
        let output = try TIFFMetadata.writingMetadata(blocks, into: written.bytes).bytes
        let tags = try readBack(output, pixelsOf: written.url)
        XCTAssertEqual(try locationTags(readBackURL(written.url).path), [])
        XCTAssertEqual(tags["Photoshop:URL"] as? String, "https://example.org/rights", "what is not location stays")
        for place in ["Mainz", "Rheinland", "Deutschland"] {
            XCTAssertNil(output.firstOffset(of: Array(place.utf8)), "\(place) left in the bytes")
        }
    }

    /// Tiles, deflate and JPEG compression: the encoder's own arrays of offsets are carried, the
    /// image data is not touched.
    func testEveryLayoutLibvipsWritesStillDecodesToTheSamePixels() throws {
        let blocks = try TIFFMetadata.readMetadata(path: Self.fixture)
        // Pyramids need a bigger image: SubIFDs (330) hold the levels' offsets, or IFD0 links to the next page.
        let large = Fixtures.temporaryFolder().appendingPathComponent("large.tif").path
        XCTAssertEqual(try runProcess("vips", ["resize", Self.fixture, large, "12"]).exitCode, 0)
        for options in ["[tile,tile-width=16,tile-height=16,compression=deflate,predictor=horizontal]", "[compression=jpeg]", "[strip]",
                        "[tile,pyramid,subifd,compression=deflate]", "[tile,pyramid,compression=jpeg]"] {
            let (url, bytes) = try libvipsWritten(["copy", options.contains("pyramid") ? large : Self.fixture], options: options)
            let output = try TIFFMetadata.writingMetadata(blocks, into: bytes).bytes
            try Data(output).write(to: readBackURL(url))
            let tags = try exiftool(readBackURL(url).path, ["-warning", "-Apple:all", "-IFD0:Make"])
            XCTAssertNil(tags["ExifTool:Warning"], "\(options): \(tags["ExifTool:Warning"] ?? "")")
            XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, Self.contentIdentifier, options)
            XCTAssertEqual(try rawPixels(readBackURL(url)), try rawPixels(url), options)
            let levels = { (path: String) in try exiftool(path, ["-ImageWidth"]).keys.sorted() } // IFD0, SubIFD1…, IFD1…
            XCTAssertEqual(try levels(readBackURL(url).path), try levels(url.path), options)
        }
    }

    /// Without other Photoshop resources IIM goes to 33723 alone, as exiftool writes a new TIFF;
    /// an empty model leaves none of the encoder's metadata either.
    func testIPTCGoesIntoPhotoshopResourcesOnlyBesideOthers() throws {
        var blocks = try TIFFMetadata.readMetadata(path: Self.fixture)
        blocks.photoshop = nil
        let written = try libvipsWritten(["copy", Self.fixture])
        let tags = try ExifData(TIFFMetadata.writingMetadata(blocks, into: written.bytes).bytes).map { $0.entries(in: .ifd0).map(\.tag) }
        XCTAssertEqual(tags?.contains(33723), true)
        XCTAssertEqual(tags?.contains(34377), false)
        let empty = try ExifData(TIFFMetadata.writingMetadata(MetadataBlocks(), into: written.bytes).bytes)
        XCTAssertEqual(empty?.entries(in: .ifd0).map(\.tag).filter { [700, 33723, 34377, 0x8769, 0x8825].contains($0) }, [])
        XCTAssertNotNil(empty?.entries(in: .ifd0).first { $0.tag == 34675 }, "the ICC profile is the encoder's")
    }

    /// A big-endian TIFF (as Photoshop on a Mac or a camera writes one) reads alike; BigTIFF is
    /// named unreadable and refused for writing.
    func testBigEndianAndBigTIFF() throws {
        let make = Array("Canon\0".utf8), xmp = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)
        var tiff = Array("MM\0*".utf8) + [0, 0, 0, 8, 0, 2]
        tiff += [0x01, 0x0F, 0, 2, 0, 0, 0, UInt8(make.count), 0, 0, 0, 38] + [0x02, 0xBC, 0, 1, 0, 0, 0, UInt8(xmp.count), 0, 0, 0, 44]
        tiff += [0, 0, 0, 0] + make + xmp
        let url = Fixtures.temporaryFolder().appendingPathComponent("big-endian.tif")
        try Data(tiff).write(to: url)
        let blocks = try TIFFMetadata.readMetadata(path: url.path)
        XCTAssertEqual(blocks.exif?.string(ExifTag.make, in: .ifd0), "Canon")
        XCTAssertEqual(blocks.xmp, xmp)
        let rewritten = try XCTUnwrap(ExifData(TIFFMetadata.writingMetadata(blocks, into: tiff).bytes))
        XCTAssertEqual(rewritten.string(ExifTag.make, in: .ifd0), "Canon")

        let bigTIFF = Array("II+\0".utf8) + [8, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
        try Data(bigTIFF).write(to: url)
        XCTAssertEqual(try TIFFMetadata.readMetadata(path: url.path).unreadable, ["TIFF metadata (BigTIFF is not read)"])
        XCTAssertThrowsError(try TIFFMetadata.writingMetadata(blocks, into: bigTIFF))
    }

    /// Damaged blocks are left out whole and named; cut-off and flipped files never trap.
    func testDamagedInputsAreNamedUnreadableAndNeverTrap() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture)))
        let url = Fixtures.temporaryFolder().appendingPathComponent("damaged.tif")
        var damaged = original
        let iim = try XCTUnwrap(original.firstOffset(of: [0x1C, 0x02, 0x00, 0x00, 0x02]))
        damaged[iim + 4] = 0xFF // the first dataset now claims 65 KB
        try Data(damaged).write(to: url)
        let blocks = try TIFFMetadata.readMetadata(path: url.path)
        XCTAssertTrue(blocks.unreadable.contains { $0.hasPrefix("IPTC in tag 33723") }, "\(blocks.unreadable)")
        XCTAssertEqual(try IPTCBlock.locationValues(in: XCTUnwrap(blocks.iptc))["IPTC:Sub-location"], "Dom", "the other copy is read")
        var generator = SplitMix(seed: 33723)
        for round in 0..<300 {
            var bytes = round % 3 == 0 ? Array(original.prefix(Int(generator.next() % UInt64(original.count)))) : original
            for _ in 0..<(round % 3 == 0 ? 0 : 8) {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            try Data(bytes).write(to: url)
            if let read = try? TIFFMetadata.readMetadata(path: url.path) { _ = try? TIFFMetadata.writingMetadata(read, into: bytes) }
        }
    }

    // MARK: Helpers

    /// A TIFF as libvips writes it (`vips ARGUMENTS… OUTPUT`).
    func libvipsWritten(_ arguments: [String], name: String = "written.tif", options: String = "") throws -> (url: URL, bytes: [UInt8]) {
        let url = Fixtures.temporaryFolder().appendingPathComponent(name)
        let made = try runProcess("vips", arguments + [url.path + options])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        return (url, try [UInt8](Data(contentsOf: url)))
    }

    /// Writes `bytes` next to `original` and reads them back with exiftool: Make, Model,
    /// DateTimeOriginal, Copyright, the Live Photo identifier and the ICC profile kept, no
    /// warning, and the same pixels as `original`.
    func readBack(_ bytes: [UInt8], pixelsOf original: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let url = readBackURL(original)
        try Data(bytes).write(to: url)
        let tags = try exiftool(url.path, ["-warning", "-IFD0:all", "-ExifIFD:all", "-Apple:all", "-ICC_Profile:ProfileDescription",
                                           "-IPTC:all", "-IPTC2:all", "-XMP:all", "-Photoshop:all", "-GPS:all"])
        XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Make"] as? String, "Apple", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Model"] as? String, "iPhone 6s", file: file, line: line)
        XCTAssertEqual(tags["ExifIFD:DateTimeOriginal"] as? String, "2021:04:10 11:44:00", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Copyright"] as? String, "(C) Lychee contributors (MIT)", file: file, line: line)
        XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, Self.contentIdentifier, file: file, line: line)
        XCTAssertEqual(tags["ICC_Profile:ProfileDescription"] as? String, "sRGB", file: file, line: line)
        XCTAssertEqual(try rawPixels(url), try rawPixels(original), "same pixels", file: file, line: line)
        return tags
    }

    func readBackURL(_ original: URL) -> URL {
        original.deletingLastPathComponent().appendingPathComponent("metadata-" + original.lastPathComponent)
    }

    /// The decoded pixels, as libvips' rawsave writes them: no header, no metadata.
    func rawPixels(_ url: URL) throws -> Data {
        let raw = url.deletingPathExtension().appendingPathExtension("raw")
        let saved = try runProcess("vips", ["rawsave", url.path, raw.path])
        XCTAssertEqual(saved.exitCode, 0, saved.stderr)
        return try Data(contentsOf: raw)
    }
}
