import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// HEIC and AVIF metadata items read into the one model and written into files as libvips 8.14's
/// heifsave (libheif 1.15) writes them; exiftool, heif-info and libvips read the results back.
/// The fixture carries location in an Exif item (GPS, and a Sony MakerNote), an XMP item and an
/// iptc item.
final class HEIFMetadataTests: XCTestCase {
    static let fixture = Fixtures.fixtures.appendingPathComponent("metadata/heic-location-everywhere.heic").path
    static let copyright = "(C) Pillow-Heif contributors (BSD-3-Clause)"

    func testReadsEveryItem() throws {
        let blocks = try HEIFMetadata.readMetadata(path: Self.fixture)
        XCTAssertEqual(blocks.unreadable, [])
        let exif = try XCTUnwrap(blocks.exif)
        XCTAssertEqual(exif.string(ExifTag.make, in: .ifd0), "SONY")
        XCTAssertEqual(exif.string(ExifTag.copyright, in: .ifd0), Self.copyright)
        XCTAssertEqual(exif.numbers(ExifTag.gpsLatitude, in: .gps), [50, 0, 0])
        XCTAssertEqual(exif.bytes(ExifTag.makerNote, in: .exif)?.starts(with: Array("SONY DSC ".utf8)), true)
        XCTAssertEqual(try XMPPacket.locationValues(in: XCTUnwrap(blocks.xmp))["photoshop:City"], "Budapest")
        XCTAssertEqual(try IPTCBlock.locationValues(in: XCTUnwrap(blocks.iptc)),
                       ["IPTC:City": "Budapest", "IPTC:Country-PrimaryLocationName": "Hungary"])
        XCTAssertNil(blocks.photoshop)
    }

    /// What exiftool reads from the items (it does not read iptc items) is what the model holds.
    func testTheModelHoldsWhatExiftoolReads() throws {
        let tags = try exiftool(Self.fixture, ["-IFD0:all", "-ExifIFD:all", "-XMP-photoshop:City", "-b", "-MakerNoteSony"])
        let blocks = try HEIFMetadata.readMetadata(path: Self.fixture)
        XCTAssertEqual(blocks.exif?.string(ExifTag.model, in: .ifd0), tags["IFD0:Model"] as? String)
        XCTAssertEqual(blocks.exif?.string(ExifTag.dateTimeOriginal, in: .exif), tags["ExifIFD:DateTimeOriginal"] as? String)
        XCTAssertEqual(try XMPPacket.locationValues(in: XCTUnwrap(blocks.xmp))["photoshop:City"], tags["XMP-photoshop:City"] as? String)
        // exiftool's -b output of a Sony note differs from the file in a few bytes: look in the file.
        let makerNote = try XCTUnwrap(blocks.exif?.bytes(ExifTag.makerNote, in: .exif))
        XCTAssertNotNil(try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture))).firstOffset(of: Array(makerNote)))
        XCTAssertEqual((tags["ExifIFD:MakerNoteSony"] as? String)?.hasPrefix("base64:U09OWSBEU0Mg"), true, "SONY DSC")
    }

    /// libvips writes its own Exif item (MakerNote lost); the writer removes it and adds the
    /// model's three items once each, for HEIC and AVIF, with and without libvips' own.
    func testWritingLeavesOneItemOfEachKindAndKeepsWhatMustStay() throws {
        let blocks = try HEIFMetadata.readMetadata(path: Self.fixture)
        let original = try exiftool(Self.fixture, ["-Sony:all"])
        for name in ["written.heic", "written.avif", "stripped.heic"] {
            let written = try libvipsWritten(Self.fixture, name: name, options: name.hasPrefix("stripped") ? "[strip]" : "")
            let output = try HEIFMetadata.writingMetadata(blocks, into: written.bytes).bytes
            let tags = try readBack(output, pixelsOf: written.url)
            let structure = try HEIFStructure(path: readBackURL(written.url).path)
            for type in ["Exif", "mime", "iptc"] { XCTAssertEqual(structure.itemTypes.filter { $0 == type }.count, 1, "\(name) \(type)") }
            XCTAssertEqual(tags["XMP-photoshop:City"] as? String, "Budapest", name)
            XCTAssertNotNil(tags["GPS:GPSLatitude"], name)
            XCTAssertEqual(try Self.values(exiftool(readBackURL(written.url).path, ["-Sony:all"])), Self.values(original), name)
            XCTAssertEqual(try HEIFMetadata.readMetadata(path: readBackURL(written.url).path), blocks, "\(name) reads back as it was")
            XCTAssertTrue(try runProcess("vipsheader", ["-a", readBackURL(written.url).path]).stdout.contains("Pillow-Heif"), name)
        }
    }

    /// The issue's anchor: with location removed from the model, exiftool finds none, and the
    /// removed items' data is zeroed, not left in `mdat`.
    func testARoundTripWithoutLocationLeavesNoneAnywhere() throws {
        var blocks = try HEIFMetadata.readMetadata(path: Self.fixture)
        blocks.exif?.remove(ExifTag.gpsPointer, from: .ifd0)
        blocks.iptc = try IPTCBlock.removingLocation(from: XCTUnwrap(blocks.iptc))?.bytes
        blocks.xmp = try XMPPacket.removingLocation(from: XCTUnwrap(blocks.xmp))?.bytes
        let fixtureCopy = Fixtures.temporaryFolder().appendingPathComponent("fixture.heic")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: fixtureCopy.path)
        let output = try HEIFMetadata.writingMetadata(blocks, into: [UInt8](Data(contentsOf: fixtureCopy))).bytes
        _ = try readBack(output, pixelsOf: fixtureCopy)
        XCTAssertEqual(try locationTags(readBackURL(fixtureCopy).path), [])
        let read = try HEIFMetadata.readMetadata(path: readBackURL(fixtureCopy).path)
        XCTAssertEqual(try IPTCBlock.locationValues(in: XCTUnwrap(read.iptc)), [:])
        XCTAssertNil(output.firstOffset(of: Array("photoshop:City".utf8)), "the old XMP item's data is zeroed")
        XCTAssertNil(output.firstOffset(of: [0x1C, 0x02, 0x5A]), "no IIM City dataset left")
    }

    /// A grid AVIF as libheif lays one out (iloc version 1, the grid's description in `idat`, the
    /// Exif item describing the grid): the writer keeps the layout and every image item's data.
    func testAGridWithItsDescriptionInIdatKeepsItsLayout() throws {
        let fixture = Fixtures.fixtures.appendingPathComponent("metadata/avif-grid-location.avif")
        var blocks = try HEIFMetadata.readMetadata(path: fixture.path)
        XCTAssertEqual(blocks.exif?.string(ExifTag.make, in: .ifd0), "mediabatch")
        XCTAssertEqual(try XMPPacket.locationValues(in: XCTUnwrap(blocks.xmp))["photoshop:City"], "Wien")
        blocks.exif?.remove(ExifTag.gpsPointer, from: .ifd0)
        blocks.xmp = try XMPPacket.removingLocation(from: XCTUnwrap(blocks.xmp))?.bytes
        let copy = Fixtures.temporaryFolder().appendingPathComponent("grid.avif")
        try FileManager.default.copyItem(at: fixture, to: copy)
        let input = try [UInt8](Data(contentsOf: copy))
        let output = try HEIFMetadata.writingMetadata(blocks, into: input).bytes
        try Data(output).write(to: readBackURL(copy))
        let meta = try XCTUnwrap(ISOBox.boxes(in: output, 0..<output.count).first { $0.type == "meta" })
        let parsed = try HEIFMetaBox(output, meta)
        XCTAssertEqual(parsed.locations.version, 1)
        XCTAssertEqual(parsed.items.map(\.type).sorted(), ["Exif", "av01", "av01", "av01", "av01", "grid", "mime"])
        XCTAssertEqual(parsed.references.references.filter { $0.type == "cdsc" }.map(\.to), [[5], [5]], "describing the grid")
        let tags = try exiftool(readBackURL(copy).path, ["-warning", "-IFD0:Make"])
        XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")")
        XCTAssertEqual(tags["IFD0:Make"] as? String, "mediabatch")
        XCTAssertEqual(try locationTags(readBackURL(copy).path), [])
        XCTAssertEqual(try runProcess("heif-info", [readBackURL(copy).path]).exitCode, 0)
        XCTAssertEqual(try rawPixels(readBackURL(copy)), try rawPixels(copy), "same pixels")
    }

    /// A damaged item is named unreadable and left out; cut-off and flipped files never trap.
    func testDamagedItemsAreNamedUnreadableAndNothingTraps() throws {
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture)))
        let url = Fixtures.temporaryFolder().appendingPathComponent("damaged.heic")
        var damaged = original
        let iim = try XCTUnwrap(original.firstOffset(of: [0x1C, 0x02, 0x5A, 0x00, 0x08]))
        damaged[iim + 3] = 0xFF // the City dataset claims 65 KB
        let tiff = try XCTUnwrap(original.firstOffset(of: Array("II*\0".utf8)))
        damaged[tiff] = 0x58 // no byte-order mark: no TIFF header
        try Data(damaged).write(to: url)
        let blocks = try HEIFMetadata.readMetadata(path: url.path)
        XCTAssertNil(blocks.exif)
        XCTAssertNil(blocks.iptc)
        XCTAssertEqual(blocks.unreadable.map { $0.components(separatedBy: " (").first ?? "" }, ["EXIF in item 2", "IPTC in item 4"])
        XCTAssertNotNil(blocks.xmp, "the XMP item is fine")
        var generator = SplitMix(seed: 0x6D657461)
        let meta = 28..<534
        for round in 0..<150 {
            var bytes = round % 4 == 0 ? Array(original.prefix(Int(generator.next() % UInt64(original.count)))) : original
            for _ in 0..<(round % 4 == 0 ? 0 : 1 + Int(generator.next() % 4)) {
                bytes[meta.lowerBound + Int(generator.next() % UInt64(meta.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            try Data(bytes).write(to: url)
            _ = try? HEIFMetadata.readMetadata(path: url.path)
            _ = try? HEIFMetadata.writingMetadata(blocks, into: bytes)
        }
    }

    /// What libheif 1.19 (bookworm-backports) and 1.23 (Debian 13, under libvips 8.16) write —
    /// `pitm` after `iinf`, `colr` and `clap` properties, their own Exif and XMP items or none —
    /// takes the model alike, and decodes here to the same pixels.
    func testNewerLibheifLayoutsTakeTheModel() throws {
        let blocks = try HEIFMetadata.readMetadata(path: Self.fixture)
        let original = try Self.values(exiftool(Self.fixture, ["-Sony:all"]))
        for name in ["layout-libheif-1.19.heic", "layout-libheif-1.19.avif", "layout-libheif-1.23.heic", "layout-libheif-1.23-bare.avif"] {
            let copy = Fixtures.temporaryFolder().appendingPathComponent(name)
            try FileManager.default.copyItem(at: Fixtures.fixtures.appendingPathComponent("metadata/" + name), to: copy)
            let output = try HEIFMetadata.writingMetadata(blocks, into: [UInt8](Data(contentsOf: copy))).bytes
            let tags = try readBack(output, pixelsOf: copy)
            XCTAssertEqual(tags["XMP-photoshop:City"] as? String, "Budapest", "\(name): the model's XMP, not the file's (Mainz)")
            XCTAssertEqual(try HEIFStructure(path: readBackURL(copy).path).itemTypes.filter { ["Exif", "mime", "iptc"].contains($0) }.sorted(),
                           ["Exif", "iptc", "mime"], name)
            XCTAssertEqual(try Self.values(exiftool(readBackURL(copy).path, ["-Sony:all"])), original, name)
            XCTAssertEqual(try HEIFMetadata.readMetadata(path: readBackURL(copy).path), blocks, name)
        }
    }

    /// The new `mdat` goes right after `meta`: the end of the file stays as it was (a motion
    /// photo's video is found from there, and bytes too few for a box stay after the last box,
    /// where the fuzzer found an appended `mdat` misread); image sequences are refused.
    func testTheEndOfTheFileStaysWhereItWas() throws {
        let blocks = try HEIFMetadata.readMetadata(path: Self.fixture)
        var file = try [UInt8](Data(contentsOf: Fixtures.fixtures.appendingPathComponent("metadata/layout-libheif-1.23-bare.avif")))
        let mdat = try XCTUnwrap(ISOBox.boxes(in: file, 0..<file.count).last)
        file.append(0x2A) // one byte after the last box
        let output = try HEIFMetadata.writingMetadata(blocks, into: file).bytes
        XCTAssertEqual(Array(output.suffix(file.count - mdat.start)), Array(file.suffix(from: mdat.start)))
        let url = Fixtures.temporaryFolder().appendingPathComponent("tail.avif")
        try Data(output).write(to: url)
        XCTAssertEqual(try HEIFMetadata.readMetadata(path: url.path), blocks)
        XCTAssertThrowsError(try HEIFMetadata.writingMetadata(blocks, into: file.dropLast() + ISOBox.box("moov", [])))
    }

    /// A Live Photo still's model (read from the TIFF fixture: Apple MakerNote in big-endian
    /// EXIF) written into a HEIC libvips made with an sRGB profile: the identifier, the MakerNote
    /// byte for byte and the profile are there; Photoshop resources are named not carried.
    func testAnAppleStillKeepsItsIdentifierMakerNoteAndProfile() throws {
        let blocks = try TIFFMetadata.readMetadata(path: TIFFMetadataTests.fixture)
        let written = try libvipsWritten(TIFFMetadataTests.fixture, name: "apple.heic")
        let writing = try HEIFMetadata.writingMetadata(blocks, into: written.bytes)
        XCTAssertEqual(writing.notCarried, ["Photoshop resources"])
        try Data(writing.bytes).write(to: readBackURL(written.url))
        let tags = try exiftool(readBackURL(written.url).path, ["-warning", "-Apple:all", "-ICC_Profile:ProfileDescription", "-IFD0:Make"])
        XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")")
        XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, TIFFMetadataTests.contentIdentifier)
        XCTAssertEqual(tags["ICC_Profile:ProfileDescription"] as? String, "sRGB")
        XCTAssertEqual(tags["IFD0:Make"] as? String, "Apple")
        let read = try HEIFMetadata.readMetadata(path: readBackURL(written.url).path)
        XCTAssertEqual(read.exif?.bytes(ExifTag.makerNote, in: .exif), blocks.exif?.bytes(ExifTag.makerNote, in: .exif))
        XCTAssertEqual(read.iptc, blocks.iptc)
        XCTAssertEqual(try rawPixels(readBackURL(written.url)), try rawPixels(written.url))
    }

    // MARK: Helpers

    /// exiftool's tags as text, without the file's name.
    static func values(_ tags: [String: Any]) -> [String: String] {
        tags.filter { $0.key != "SourceFile" }.mapValues { "\($0)" }
    }

    /// A HEIF file as libvips writes it (`vips copy SOURCE OUTPUT[OPTIONS]`).
    func libvipsWritten(_ source: String, name: String, options: String = "") throws -> (url: URL, bytes: [UInt8]) {
        let url = Fixtures.temporaryFolder().appendingPathComponent(name)
        let made = try runProcess("vips", ["copy", source, url.path + options])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        return (url, try [UInt8](Data(contentsOf: url)))
    }

    func readBackURL(_ original: URL) -> URL {
        original.deletingLastPathComponent().appendingPathComponent("metadata-" + original.lastPathComponent)
    }

    /// Writes `bytes` next to `original` and reads them back: exiftool without a warning, Make,
    /// Model, DateTimeOriginal and Copyright kept, heif-info content, and the same pixels.
    func readBack(_ bytes: [UInt8], pixelsOf original: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let url = readBackURL(original)
        try Data(bytes).write(to: url)
        let tags = try exiftool(url.path, ["-warning", "-IFD0:all", "-ExifIFD:all", "-XMP:all", "-GPS:all"])
        XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Make"] as? String, "SONY", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Model"] as? String, "ILCE-7SM3", file: file, line: line)
        XCTAssertEqual(tags["ExifIFD:DateTimeOriginal"] as? String, "2020:09:14 11:09:34", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Copyright"] as? String, Self.copyright, file: file, line: line)
        let info = try runProcess("heif-info", [url.path])
        XCTAssertEqual(info.exitCode, 0, info.stderr, file: file, line: line)
        XCTAssertEqual(try rawPixels(url), try rawPixels(original), "same pixels", file: file, line: line)
        return tags
    }

    func rawPixels(_ url: URL) throws -> Data {
        let raw = url.deletingPathExtension().appendingPathExtension("raw")
        let saved = try runProcess("vips", ["rawsave", url.path, raw.path])
        XCTAssertEqual(saved.exitCode, 0, saved.stderr)
        return try Data(contentsOf: raw)
    }
}
