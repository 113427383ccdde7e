import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Apple's headroom (XMP, else the MakerNote formula) and the remapping of its gain map values.
final class AppleHDRTests: XCTestCase {
    static let fixture = Fixtures.fixtures.appendingPathComponent("hdr/apple_gainmap_new.jpg").path

    /// An Apple MakerNote ("Apple iOS", version 1, big-endian) holding `rationals` (tag, type,
    /// numerator, denominator), their values after the IFD.
    static func makerNote(_ rationals: [(tag: UInt16, type: UInt16, numerator: UInt32, denominator: UInt32)]) -> AppleMakerNote? {
        func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        func be32(_ value: UInt32) -> [UInt8] { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xFFFF)) }
        let dataStart = 16 + rationals.count * 12 + 4
        var note = Array("Apple iOS\0".utf8) + [0, 1] + Array("MM".utf8) + be16(UInt16(rationals.count))
        for (index, rational) in rationals.enumerated() {
            note += be16(rational.tag) + be16(rational.type) + be32(1) + be32(UInt32(dataStart + index * 8))
        }
        note += [0, 0, 0, 0]
        for rational in rationals { note += be32(rational.numerator) + be32(rational.denominator) }
        return AppleMakerNote(note)
    }

    /// The iPhone 15 Pro photo of the notes: HDRHeadroom 1.01, HDRGain 1.1846 → 1.944 stops → 3.85.
    func testMakerNoteFormulaGivesTheIPhone15ProHeadroom() throws {
        let note = try XCTUnwrap(Self.makerNote([(0x0021, 10, 101, 100), (0x0030, 5, 11846, 10000)]))
        XCTAssertEqual(note.rational(0x0021) ?? 0, 1.01, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(AppleHDR.headroom(xmp: nil, makerNote: note)), 3.85, accuracy: 0.005)
    }

    func testEachBranchOfTheFormulaAndAMissingTag0x0030() throws {
        let cases: [(UInt32, UInt32?, Double)] = [
            (50, nil, pow(2, 1.8)), // maker33 0.5, no maker48: taken as 0
            (50, 200, pow(2, -0.101 * 2 + 1.601)),
            (150, 0, 8),
            (150, 500, pow(2, max(-0.303 * 5 + 2.303, 0))),
            (150, 1000, 1), // negative stops: no headroom
        ]
        for (maker33, maker48, expected) in cases {
            var rationals: [(tag: UInt16, type: UInt16, numerator: UInt32, denominator: UInt32)] = [(0x0021, 10, maker33, 100)]
            if let maker48 { rationals.append((0x0030, 10, maker48, 100)) }
            XCTAssertEqual(try XCTUnwrap(AppleHDR.headroom(xmp: nil, makerNote: Self.makerNote(rationals))), expected, accuracy: 1e-9)
        }
        XCTAssertNil(AppleHDR.headroom(xmp: nil, makerNote: Self.makerNote([(0x0030, 10, 1, 100)])), "no tag 0x0021")
        XCTAssertNil(AppleHDR.headroom(xmp: nil, makerNote: Self.makerNote([(0x0021, 10, 1, 0)])), "a zero denominator")
        XCTAssertNil(AppleHDR.headroom(xmp: nil, makerNote: nil))
    }

    /// The fixture's map says 4.532783 in its XMP; its MakerNote (1.5189, 0) would say 8.
    func testXMPHeadroomWinsOverTheMakerNote() throws {
        let makerNote = try XCTUnwrap(JPEGMetadata.readMetadata(path: Self.fixture).exif?.appleMakerNote)
        XCTAssertEqual(try XCTUnwrap(AppleHDR.headroom(xmp: nil, makerNote: makerNote)), 8, accuracy: 1e-9)
        let structure = try JPEGStructure(path: Self.fixture)
        let xmp = try XCTUnwrap(structure.auxiliaryXMP.first)
        XCTAssertTrue(AppleHDR.isGainMapXMP(xmp))
        XCTAssertEqual(AppleHDR.headroom(xmp: xmp, makerNote: makerNote), 4.532783)
        XCTAssertEqual(AppleHDR.headroom(xmp: Array("<broken".utf8), makerNote: makerNote) ?? 0, 8, accuracy: 1e-9)
    }

    /// libavif's apple_gainmap_old.jpg (HDRGainMapVersion 65536, no XMP headroom): the headroom
    /// is the MakerNote's (1.5189, 0 → 3 stops → 8) and the map takes the same curve as newer ones:
    /// byte 77 (the bright areas' typical value) boosts Apple's 1 + 7·0.0742 = 1.519, stored as 51.
    /// Passing the byte through as an ISO value (libavif's and libultrahdr's reading) would store
    /// 77, a boost of 1.87: 23% brighter than Apple's.
    func testTheOlderGenerationTakesTheMakerNoteHeadroomAndTheSameCurve() throws {
        let path = Fixtures.fixtures.appendingPathComponent("hdr/apple_gainmap_old.jpg").path
        let found = try XCTUnwrap(JPEGGainMap.read(path: path))
        XCTAssertEqual(found.kind, .apple)
        let metadata = try XCTUnwrap(found.metadata)
        XCTAssertEqual(metadata.gainMapMax.first ?? 0, 3, accuracy: 1e-9)
        XCTAssertEqual(metadata.hdrCapacityMax, 3, accuracy: 1e-9)
        let xmp = try XCTUnwrap(try JPEGStructure(path: path).auxiliaryXMP.first)
        XCTAssertTrue(AppleHDR.isGainMapXMP(xmp))
        XCTAssertNil(AppleHDR.headroom(xmp: xmp, makerNote: nil), "no HDRGainMapHeadroom in version 65536's XMP")
        let lut = AppleHDR.recoveryLUT(headroom: 8)
        XCTAssertEqual([lut[30], lut[50], lut[77], lut[100], lut[128]], [11, 25, 51, 78, 113])
    }

    func testAppleMetadataAndLUTReproduceApplesBoost() throws {
        let headroom = 3.85
        let metadata = try GainMapMetadata.apple(headroom: headroom).validated()
        XCTAssertEqual(metadata.gainMapMax, [log2(headroom)])
        XCTAssertEqual(metadata.offsetSDR + metadata.offsetHDR + metadata.gainMapMin, [0, 0, 0])
        let lut = AppleHDR.recoveryLUT(headroom: headroom)
        XCTAssertEqual(lut.count, 256)
        XCTAssertEqual(lut.first, 0)
        XCTAssertEqual(lut.last, 255)
        XCTAssertEqual(lut, lut.sorted(), "monotonic")
        for byte in [16, 64, 128, 200] {
            // ISO's boost for the remapped value against Apple's for the original one.
            let apple = 1 + (headroom - 1) * AppleHDR.sRGBToLinear(Double(byte) / 255)
            let iso = pow(2, Double(lut[byte]) / 255 * log2(headroom))
            XCTAssertEqual(iso / apple, 1, accuracy: 0.005, "byte \(byte)")
        }
        XCTAssertEqual(AppleHDR.recoveryLUT(headroom: 1), [UInt8](repeating: 0, count: 256))
        XCTAssertEqual(AppleHDR.recoveryLUT(headroom: .nan), [UInt8](repeating: 0, count: 256))
        XCTAssertThrowsError(try GainMapMetadata.apple(headroom: 1).validated())
    }
}
