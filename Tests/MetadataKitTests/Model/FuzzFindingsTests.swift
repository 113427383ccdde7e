@testable import MetadataKit
import XCTest

/// Inputs the header fuzzer (fuzz/HeaderFuzzer.swift) found to trap or to break a promise,
/// reduced to the bytes that matter.
final class MetadataKitFuzzFindingsTests: XCTestCase {
    /// A TIFF cut off inside its only IFD0 entry, whose 2-byte inline value still fits:
    /// compacting it (as for every TIFF input) read the entry's 4-byte value slot past the end.
    func testEntryCutOffInsideItsValueSlotIsNotRead() throws {
        let tiff: [UInt8] = Array("MM\0*".utf8) + [0, 0, 0, 8] + [0, 1] + [0x01, 0x0F, 0, 2, 0, 0, 0, 2] + Array("A\0".utf8)
        let exif = try XCTUnwrap(ExifData(tiff))
        XCTAssertNil(exif.string(ExifTag.make, in: .ifd0))
        XCTAssertNil(exif.compacted { $0 != .ifd0 || ExifTag.descriptiveIFD0.contains($1) }, "nothing to keep")
    }

    /// A name or a comment that is not UTF-8: swift-corelibs' XMLParser force-unwraps both as
    /// UTF-8 and trapped inside `parse()`, where libxml2 would have reported the packet malformed.
    func testNamesAndCommentsThatAreNotUTF8AreMalformedNotATrap() {
        for packet: [UInt8] in [Array("<exif:GPS".utf8) + [0xFF] + Array("/>".utf8), Array("<a><!--".utf8) + [0xFF] + Array("--></a>".utf8)] {
            XCTAssertThrowsError(try XMPPacket.properties(in: packet))
            XCTAssertThrowsError(try XMPPacket.locationValues(in: packet))
            XCTAssertThrowsError(try XMPPacket.removingLocation(from: packet))
            XCTAssertTrue(XMPPacket.carriesLocation(packet), "what may name a place and cannot be read counts as location")
        }
        let latin1 = Array("<?xml version='1.0' encoding='ISO-8859-1'?><a>caf".utf8) + [0xE9] + Array("</a>".utf8)
        XCTAssertEqual(try XMPPacket.properties(in: latin1), [], "a declared 8-bit encoding is not UTF-8 to check")
    }

    /// IFD0 with one pointer entry to a second directory that holds the same pointer, to itself.
    private func tiffWithSelfPointingDirectory(_ tag: UInt16) -> [UInt8] {
        let directory: [UInt8] = [0, 1] + [UInt8(tag >> 8), UInt8(tag & 0xFF), 0, 4, 0, 0, 0, 1, 0, 0, 0, 26] + [0, 0, 0, 0]
        return Array("MM\0*".utf8) + [0, 0, 0, 8] + directory + directory
    }

    /// A GPS directory holding the GPS pointer to itself sent remove(gpsPointer) (stripLocation)
    /// and compacted(keeping:) (every TIFF input, as it was) into unbounded recursion.
    func testDirectoryPointingToItselfIsNotWalkedForever() throws {
        var gps = try XCTUnwrap(ExifData(tiffWithSelfPointingDirectory(ExifTag.gpsPointer)))
        XCTAssertTrue(gps.hasGPS)
        XCTAssertEqual(gps.compacted { directory, _ in directory != .ifd0 }?.hasGPS, true)
        gps.remove(ExifTag.gpsPointer, from: .ifd0)
        XCTAssertFalse(gps.hasGPS)

        let exif = try XCTUnwrap(ExifData(tiffWithSelfPointingDirectory(0x8769)))
        XCTAssertEqual(exif.compacted { directory, _ in directory != .ifd0 }?.entries(in: .exif).map(\.tag), [0x8769], "inside EXIF it is a plain value")
    }

    /// IFD0 claims three entries where the block holds one, the GPS pointer: remove(gpsPointer)
    /// returned without removing anything, so stripLocation reported "EXIF GPS" removed and the
    /// output kept it.
    func testGPSGoesFromADirectoryClaimingMoreEntriesThanTheBlockHolds() throws {
        let ifd0: [UInt8] = [0, 3] + [0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 22]
        let gps: [UInt8] = [0, 1] + [0, 1, 0, 2, 0, 0, 0, 2] + Array("N\0\0\0".utf8) + [0, 0, 0, 0]
        var exif = try XCTUnwrap(ExifData(Array("MM\0*".utf8) + [0, 0, 0, 8] + ifd0 + gps))
        XCTAssertEqual(exif.string(ExifTag.gpsLatitudeRef, in: .gps), "N")
        let size = exif.tiff.count
        exif.remove(ExifTag.gpsPointer, from: .ifd0)
        XCTAssertFalse(exif.hasGPS)
        XCTAssertFalse(exif.contains(ExifTag.gpsPointer, in: .ifd0))
        XCTAssertFalse(exif.tiff.contains(UInt8(ascii: "N")), "the GPS directory's bytes are zeroed")
        XCTAssertEqual(exif.tiff.count, size)
    }

    /// Two GPS pointers in IFD0, each to a GPS directory of its own: remove(gpsPointer) took the
    /// first and left the second, and with it a position.
    func testEveryGPSPointerGoesWithTheDirectoryItPointsTo() throws {
        func entry(_ tag: UInt16, type: UInt8, count: UInt8, value: [UInt8]) -> [UInt8] {
            [UInt8(tag >> 8), UInt8(tag & 0xFF), 0, type, 0, 0, 0, count] + value
        }
        let ifd0 = [0, 2] + entry(ExifTag.gpsPointer, type: 4, count: 1, value: [0, 0, 0, 38])
            + entry(ExifTag.gpsPointer, type: 4, count: 1, value: [0, 0, 0, 56]) + [0, 0, 0, 0]
        func gps(_ reference: String) -> [UInt8] {
            [0, 1] + entry(ExifTag.gpsLatitudeRef, type: 2, count: 2, value: Array("\(reference)\0\0\0".utf8)) + [0, 0, 0, 0]
        }
        var exif = try XCTUnwrap(ExifData(Array("MM\0*".utf8) + [0, 0, 0, 8] + ifd0 + gps("N") + gps("S")))
        exif.remove(ExifTag.gpsPointer, from: .ifd0)
        XCTAssertFalse(exif.hasGPS)
        XCTAssertFalse(exif.contains(ExifTag.gpsPointer, in: .ifd0))
        XCTAssertFalse(exif.tiff.contains(UInt8(ascii: "N")) || exif.tiff.contains(UInt8(ascii: "S")), "both GPS directories are zeroed")
    }

    /// Bare IIM whose only dataset is a location (2:26, empty) followed by a zero pad byte:
    /// removing it left the pad alone, which IPTCBlock then refused as neither IIM nor Photoshop
    /// resources, so the output's IPTC could not be read back.
    func testZeroPaddingLeftByRemovingEveryDatasetReadsBack() throws {
        let block: [UInt8] = [0x1C, 2, 26, 0, 0, 0]
        let removal = try XCTUnwrap(IPTCBlock.removingLocation(from: block))
        XCTAssertEqual(removal.removed, ["IPTC:ContentLocationCode"])
        XCTAssertEqual(removal.bytes, [0])
        XCTAssertEqual(try IPTCBlock.locationValues(in: removal.bytes), [:])
        XCTAssertNil(try IPTCBlock.removingLocation(from: removal.bytes))
    }

    /// A processing instruction without data: libxml2 hands swift-corelibs' XMLParser a NULL for
    /// its data, which it reads as a C string, and the process died (SIGSEGV in strlen) wherever
    /// XMP properties were read. A PI with data still parses.
    func testProcessingInstructionWithoutDataIsRefusedNotACrash() throws {
        let packet = Array("<a xmlns:photoshop='http://ns.adobe.com/photoshop/1.0/'><?x?></a>".utf8)
        XCTAssertThrowsError(try XMPPacket.properties(in: packet))
        XCTAssertThrowsError(try XMPPacket.locationValues(in: packet))
        XCTAssertThrowsError(try XMPPacket.removingLocation(from: packet))
        XCTAssertTrue(XMPPacket.carriesLocation(packet), "what may name a place and cannot be read counts as location")
        XCTAssertEqual(try XMPPacket.properties(in: Array("<a><?x y?></a>".utf8)), [])
    }

    /// A TIFF whose XResolution value claims offset 1, inside the header, and whose XMP claims
    /// the strip's bytes: zeroing the old IFD0's values wiped the byte-order mark (the written
    /// file could not be read back), and would have wiped pixels.
    func testTheHeaderAndThePixelsAreNeverZeroed() throws {
        var tiff = Array("MM\0*".utf8) + [0, 0, 0, 8] + [0, 4]
        tiff += [0x01, 0x11, 0, 4, 0, 0, 0, 1, 0, 0, 0, 62] + [0x01, 0x17, 0, 4, 0, 0, 0, 1, 0, 0, 0, 8] // one strip at 62
        tiff += [0x01, 0x1A, 0, 5, 0, 0, 0, 1, 0, 0, 0, 1] + [0x02, 0xBC, 0, 1, 0, 0, 0, 8, 0, 0, 0, 62] // XResolution at 1, XMP at 62
        tiff += [0, 0, 0, 0] + Array("PIXELS!!".utf8)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("finding-\(UUID().uuidString).tif")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(tiff).write(to: url)
        let blocks = try TIFFMetadata.readMetadata(path: url.path)
        XCTAssertEqual(blocks.xmp, Array("PIXELS!!".utf8), "not XML, but naming no place: kept unparsed")
        let output = try TIFFMetadata.writingMetadata(blocks, into: tiff).bytes
        XCTAssertEqual(Array(output[0..<4]), Array("MM\0*".utf8))
        XCTAssertEqual(Array(output[62..<70]), Array("PIXELS!!".utf8))
        try Data(output).write(to: url)
        XCTAssertEqual(try TIFFMetadata.readMetadata(path: url.path).exif?.numbers(ExifTag.xResolution, in: .ifd0).count, 1)
    }

    /// A HEIF whose `iref` holds a reference typed "au\u{81}l" (one flipped byte): box types are
    /// read one byte a character but were written as UTF-8, two bytes for that one, so the written
    /// `iref` misplaced every box after it and the file could not be read back.
    func testBoxTypesPastASCIIAreWrittenBackAsRead() throws {
        let auxl = ISOBox.box("au\u{81}l", [0, 2, 0, 1, 0, 1])
        let iref = ISOBox.box("iref", [0, 0, 0, 0] + auxl + ISOBox.box("cdsc", [0, 3, 0, 1, 0, 1]))
        XCTAssertEqual(Array(auxl[4..<8]), [0x61, 0x75, 0x81, 0x6C])
        let box = try XCTUnwrap(ISOBox.boxes(in: iref, 0..<iref.count).first)
        let references = try ItemReferences(iref, box)
        XCTAssertEqual(references.references.map(\.type), ["au\u{81}l", "cdsc"])
        XCTAssertEqual(references.box, iref)
    }
}
