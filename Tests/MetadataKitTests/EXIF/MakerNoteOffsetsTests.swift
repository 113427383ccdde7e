import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// MakerNotes moved to another place in an EXIF block (a HEIC's EXIF written into a TIFF):
/// those addressing their values from the TIFF header are rebased, the self-contained ones are
/// copied byte for byte; exiftool reads each back as it read the original.
final class MakerNoteOffsetsTests: XCTestCase {
    /// A little-endian EXIF block with Make "Canon" and a Canon-style MakerNote at offset 62:
    /// an IFD whose two text values sit after it, at offsets counted from the TIFF header.
    static let canonStyle: [UInt8] = {
        var tiff = Array("II*\0".utf8) + [8, 0, 0, 0]
        tiff += [2, 0] + [0x0F, 0x01, 2, 0, 6, 0, 0, 0, 38, 0, 0, 0] + [0x69, 0x87, 4, 0, 1, 0, 0, 0, 44, 0, 0, 0] + [0, 0, 0, 0]
        tiff += Array("Canon\0".utf8)
        tiff += [1, 0] + [0x7C, 0x92, 7, 0, 60, 0, 0, 0, 62, 0, 0, 0] + [0, 0, 0, 0]
        tiff += [2, 0] + [6, 0, 2, 0, 15, 0, 0, 0, 92, 0, 0, 0] + [7, 0, 2, 0, 15, 0, 0, 0, 107, 0, 0, 0] + [0, 0, 0, 0]
        return tiff + Array("Canon EOS TEST\0Firmware 1.0.0\0".utf8)
    }()

    func testOffsetsFromTheTIFFHeaderMoveWithTheNote() throws {
        let note = Array(Self.canonStyle[62...])
        let moved = MakerNoteOffsets.rebased(note, from: 62, to: 1062)
        XCTAssertEqual(moved.uint32(at: 2 + 8, bigEndian: false), 1092)
        XCTAssertEqual(moved.uint32(at: 2 + 12 + 8, bigEndian: false), 1107)
        XCTAssertEqual(Array(moved[30...]), Array(note[30...]), "values untouched")
        XCTAssertEqual(MakerNoteOffsets.rebased(note, from: 62, to: 62), note)
    }

    /// Apple's note (offsets from its own start, "Apple iOS" header) and a note whose offsets
    /// are not inside it when counted from the TIFF header stay byte for byte.
    func testSelfContainedAndUnrecognisedNotesStayAsTheyAre() throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("livephoto/train.jpg"))))
        let app1 = try XCTUnwrap(JPEGSegments.segments(of: jpeg)?.first { $0.marker == 0xE1 })
        let exif = try XCTUnwrap(ExifData(Array(jpeg[app1.payload])))
        let apple = try Array(XCTUnwrap(exif.bytes(ExifTag.makerNote, in: .exif)))
        let appleAt = try XCTUnwrap(exif.entry(ExifTag.makerNote, in: .exif)).valueOffset
        XCTAssertEqual(MakerNoteOffsets.rebased(apple, from: appleAt, to: appleAt + 4000), apple)
        let note = Array(Self.canonStyle[62...])
        XCTAssertEqual(MakerNoteOffsets.rebased(note, from: 5000, to: 9000), note, "offsets 92 and 107 are not inside a note at 5000")
        XCTAssertEqual(MakerNoteOffsets.rebased(Array("no IFD here at all, just text".utf8), from: 10, to: 20),
                       Array("no IFD here at all, just text".utf8))
    }

    /// The Canon-style note written into a TIFF: exiftool finds its values where they moved.
    func testACanonStyleNoteReadsBackFromATIFF() throws {
        let blocks = MetadataBlocks(exif: try XCTUnwrap(ExifData(Self.canonStyle)))
        let tags = try writtenIntoTIFF(blocks, ["-Canon:all"])
        XCTAssertEqual(tags["Canon:CanonImageType"] as? String, "Canon EOS TEST")
        XCTAssertEqual(tags["Canon:CanonFirmwareVersion"] as? String, "Firmware 1.0.0")
    }

    /// A real Sony note (from the HEIC fixture's EXIF) moved into a TIFF reads as in the HEIC.
    func testASonyNoteReadsBackFromATIFFAsFromItsHEIC() throws {
        let heic = Fixtures.fixtures.appendingPathComponent("metadata/heic-location-everywhere.heic").path
        let blocks = try HEIFMetadata.readMetadata(path: heic)
        let original = try exiftool(heic, ["-Sony:all"]).filter { $0.key != "SourceFile" }.mapValues { "\($0)" }
        XCTAssertGreaterThan(original.count, 50)
        let moved = try writtenIntoTIFF(blocks, ["-Sony:all"]).filter { $0.key != "SourceFile" }.mapValues { "\($0)" }
        XCTAssertEqual(moved, original)
    }

    /// `blocks` written into a small libvips TIFF and read back by exiftool, without warnings.
    /// A little-endian EXIF block whose Nikon type-3 MakerNote (at 44) is declared 10 bytes short,
    /// as COOLPIX cameras write it (the "Nikon\0\2\0\0\0" header left out of the count): its
    /// NEFBitDepth value and its empty NikonScan directory lie in the 10 bytes past the declared end.
    static let coolpixStyle: [UInt8] = {
        var tiff = Array("II*\0".utf8) + [8, 0, 0, 0]
        tiff += [1, 0] + [0x69, 0x87, 4, 0, 1, 0, 0, 0, 26, 0, 0, 0] + [0, 0, 0, 0]
        tiff += [1, 0] + [0x7C, 0x92, 7, 0, 52, 0, 0, 0, 44, 0, 0, 0] + [0, 0, 0, 0]
        tiff += Array("Nikon\0".utf8) + [2, 0, 0, 0] + Array("II*\0".utf8) + [8, 0, 0, 0]
        tiff += [2, 0] + [0x10, 0x0E, 4, 0, 1, 0, 0, 0, 46, 0, 0, 0] + [0x22, 0x0E, 3, 0, 4, 0, 0, 0, 38, 0, 0, 0] + [0, 0, 0, 0]
        return tiff + [8, 0, 12, 0, 14, 0, 0, 0] + [0, 0, 0, 0, 0, 0]
    }()

    func testANikonNoteDeclaredShortOfItsHeaderKeepsWhatLiesPastIt() throws {
        var exif = try XCTUnwrap(ExifData(Self.coolpixStyle))
        exif.trimUnreferencedTail()
        XCTAssertEqual(exif.tiff.count, Self.coolpixStyle.count, "the 10 bytes past the declared note stay")
        let tags = try writtenIntoTIFF(MetadataBlocks(exif: exif), ["-Nikon:NEFBitDepth#"])
        XCTAssertEqual(tags["Nikon:NEFBitDepth"] as? String, "8 12 14 0")
    }

    /// Never more than the uncounted header: a note whose values reach further keeps its count,
    /// so no bytes of another tag (a GPS directory) travel inside it.
    func testANoteReachingFartherThanItsHeaderKeepsItsDeclaredLength() {
        let note = Array(Self.coolpixStyle[44...])
        XCTAssertEqual(MakerNoteOffsets.length(ofNote: note, declared: 52), 62)
        XCTAssertEqual(MakerNoteOffsets.length(ofNote: note, declared: 40), 40, "22 bytes short")
        XCTAssertEqual(MakerNoteOffsets.length(ofNote: Array(note[..<56]), declared: 52), 56, "cut off before its scan directory: as far as its values go")
        XCTAssertEqual(MakerNoteOffsets.length(ofNote: Array(Self.canonStyle[62...]), declared: 60), 60)
    }

    private func writtenIntoTIFF(_ blocks: MetadataBlocks, _ arguments: [String]) throws -> [String: Any] {
        let url = Fixtures.temporaryFolder().appendingPathComponent("note.tif")
        let made = try runProcess("vips", ["black", url.path, "8", "8"])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        let output = try TIFFMetadata.writingMetadata(blocks, into: [UInt8](Data(contentsOf: url))).bytes
        try Data(output).write(to: url)
        var tags = try exiftool(url.path, ["-warning"] + arguments)
        XCTAssertNil(tags.removeValue(forKey: "ExifTool:Warning"))
        return tags
    }
}
