import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Synthetic boxes for the cases camera files do not cover: 64-bit sizes, lying sizes, key
/// renumbering, full-box `meta`, timed location, top-level layouts.
final class MoovRewriterTests: XCTestCase {
    func testRemovesFromABoxWith64BitSizeAndKeepsItsHeaderForm() throws {
        let name = box("name", text("clip"))
        let moov = box("moov", box("mvhd", zeros(100)), largeBox("udta", box("©xyz", text("+48.8584+002.2945/")) + name))

        let (edited, removed) = try XCTUnwrap(MovieLocationEditor.removingLocation(fromMoov: moov))

        XCTAssertEqual(removed, ["moov/udta/©xyz"])
        XCTAssertEqual(edited.count, moov.count)
        let udtaStart = 8 + 108
        XCTAssertEqual(edited.uint32(at: udtaStart), 1, "still a 64-bit header")
        XCTAssertEqual(edited.uint64(at: udtaStart + 8), UInt64(16 + name.count))
        XCTAssertEqual(Array(edited[udtaStart + 16..<udtaStart + 16 + name.count]), name)
        let freeStart = udtaStart + 16 + name.count
        XCTAssertEqual(edited.fourCC(at: freeStart + 4), "free")
        XCTAssertEqual(Int(try XCTUnwrap(edited.uint32(at: freeStart))), edited.count - freeStart)
        XCTAssertTrue(edited[(freeStart + 8)...].allSatisfy { $0 == 0 })
    }

    func testRenumbersItemsOfTheKeysThatStay() throws {
        let keys = ["com.apple.quicktime.make", "com.apple.quicktime.location.ISO6709",
                    "com.apple.quicktime.model", "com.apple.quicktime.location.name"]
        // Items out of key order, plus one whose index matches no key: it keeps that index.
        let items = item(4, "Home") + item(3, "iPhone 15") + item(9, "orphan") + item(2, "+48.8584+002.2945/") + item(1, "Apple")
        let moov = box("moov", box("mvhd", zeros(100)), quickTimeKeyedMeta(keys: keys, items: items))

        let (edited, removed) = try XCTUnwrap(MovieLocationEditor.removingLocation(fromMoov: moov))

        XCTAssertEqual(removed, ["moov/meta/keys:com.apple.quicktime.location.ISO6709",
                                 "moov/meta/keys:com.apple.quicktime.location.name"])
        let metadata = try MovieMetadata(moov: edited)
        XCTAssertEqual(metadata.keyedValues, [
            .init(key: "com.apple.quicktime.model", value: "iPhone 15"),
            .init(key: "com.apple.quicktime.make", value: "Apple"),
        ])
        let meta = try XCTUnwrap(ISOBox.boxes(in: edited, 8..<edited.count).first { $0.type == "meta" })
        let itemList = try QuickTimeMetaBox(meta, in: edited).items
        XCTAssertEqual(itemList.map { QuickTimeMetaBox.keyIndex(of: $0, in: edited) }, [2, 9, 1])
        XCTAssertNil(edited.firstRange(of: Array("Home".utf8)))
        XCTAssertNil(edited.firstRange(of: Array("+48.8584".utf8)))
    }

    func testEditsFullBoxItemListMetaAndXMPInTrackUserData() throws {
        let gpsXMP = box("XMP_", text(xmp(#"exif:GPSLatitude="48,51.5N""#)))
        let plainXMP = box("XMP_", text(xmp(#"dc:title="t""#)))
        let iTunesMeta = box("meta", zeros(4), box("hdlr", zeros(8) + Array("mdir".utf8) + zeros(12)),
                             box("ilst", box("©xyz", box("data", be32(1) + be32(0) + text("+48.8584+002.2945/"))),
                                 box("©nam", box("data", be32(1) + be32(0) + text("Paris")))))
        let terminator = zeros(4) // QuickTime may close a user-data list with a 32-bit zero
        let trackUserData = box("udta", iTunesMeta, gpsXMP, box("loci", zeros(20)), terminator)
        let moov = box("moov", box("mvhd", zeros(100)), box("trak", box("tkhd", zeros(84)), trackUserData), box("udta", plainXMP))

        let (edited, removed) = try XCTUnwrap(MovieLocationEditor.removingLocation(fromMoov: moov))

        XCTAssertEqual(removed, ["moov/trak/udta/meta/ilst/©xyz", "moov/trak/udta/XMP_", "moov/trak/udta/loci"])
        XCTAssertNotNil(edited.firstRange(of: Array("Paris".utf8)))
        XCTAssertNotNil(edited.firstRange(of: Array("dc:title".utf8)), "XMP without location stays")
        XCTAssertNil(edited.firstRange(of: Array("GPSLatitude".utf8)))
        let udtaStart = 8 + 108 + 8 + 92
        let udta = try ISOBox.parse(header: Array(edited[udtaStart..<udtaStart + 8]), at: udtaStart, limit: edited.count)
        XCTAssertEqual(udta.type, "udta")
        XCTAssertEqual(Array(edited[udta.end - 4..<udta.end]), terminator)
        XCTAssertEqual(edited.fourCC(at: udta.end + 4), "free")
    }

    func testReturnsNilWhenThereIsNoLocation() throws {
        let moov = box("moov", box("mvhd", zeros(100)),
                       quickTimeKeyedMeta(keys: ["com.apple.quicktime.make"], items: item(1, "Apple")),
                       box("udta", box("©nam", text("title"))))
        XCTAssertNil(try MovieLocationEditor.removingLocation(fromMoov: moov))
    }

    func testLyingOrCutOffSizesThrow() {
        let lyingChild = box("moov", box("udta", box("©xyz", text("+1+2/"))))
        var overlong = lyingChild
        overlong.setUInt32(200, at: 16) // ©xyz claims more than udta holds
        var tooSmall = lyingChild
        tooSmall.setUInt32(4, at: 8) // udta smaller than its own header
        let huge64 = box("moov", [0, 0, 0, 1] + Array("udta".utf8) + [UInt8](repeating: 0xFF, count: 8))
        let cutHeader = Array(lyingChild.prefix(12))
        let wrongKeyCount = box("moov", box("meta", box("hdlr", zeros(8) + Array("mdta".utf8) + zeros(12)),
                                            box("keys", zeros(4) + be32(5) + box("mdta", text("com.apple.quicktime.make")))))
        for (name, moov) in [("overlong", overlong), ("too small", tooSmall), ("huge 64-bit", huge64),
                             ("cut header", cutHeader), ("wrong key count", wrongKeyCount)] {
            XCTAssertThrowsError(try MovieLocationEditor.removingLocation(fromMoov: moov), name) { error in
                XCTAssertTrue(error is MovieFileError, name)
            }
        }
    }

    /// Corrupted real `moov`s either throw or yield a same-size result: hostile bytes must
    /// never trap.
    func testCorruptedMoovNeverTraps() throws {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for sample in ["livephoto/train.mov", "video/with-gps_xyz.mp4", "video/loci_gps_issue515.mp4"] {
            let moov = try MovieFile(path: Fixtures.sample(sample)).moov
            for _ in 0..<1_000 {
                var corrupted = moov
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                // Often a size field's worth of bytes, since sizes are what hostile input lies about.
                let position = Int(seed >> 33) % (corrupted.count - 4)
                for offset in 0..<(seed & 1 == 0 ? 1 : 4) {
                    corrupted[position + Int(offset)] = UInt8(truncatingIfNeeded: seed >> (17 + 8 * offset))
                }
                if let edited = try? MovieLocationEditor.removingLocation(fromMoov: corrupted) {
                    XCTAssertEqual(edited.moov.count, corrupted.count, sample)
                }
                _ = try? MovieMetadata(moov: corrupted)
            }
        }
    }

    func testRefusesLocationRecordedInSamples() {
        let stsd = { (entry: [UInt8]) in
            box("moov", box("trak", box("mdia", box("minf", box("stbl", box("stsd", zeros(4) + be32(1) + entry))))))
        }
        let mebx = box("mebx", zeros(8), box("keys", zeros(4) + be32(1) + box("keyd", Array("mdtacom.apple.quicktime.location.ISO6709".utf8))))
        for moov in [stsd(mebx), stsd(box("gpmd", zeros(8)))] {
            XCTAssertThrowsError(try MovieLocationEditor.removingLocation(fromMoov: moov)) { error in
                XCTAssertTrue("\(error)".contains("records location in its samples"), "\(error)")
            }
        }
    }

    func testTopLevelLayoutsThatCannotBeEditedSafelyThrow() throws {
        let folder = Fixtures.temporaryFolder()
        let moov = box("moov", box("udta", box("©xyz", text("+1+2/"))))
        let cases: [(String, [UInt8], String)] = [
            ("fragmented", box("ftyp", Array("isom".utf8) + zeros(4)) + moov + box("moof", zeros(8)), "fragmented"),
            ("no moov", box("ftyp", Array("isom".utf8) + zeros(4)) + box("mdat", zeros(16)), "no 'moov'"),
            ("truncated", box("ftyp", Array("isom".utf8) + zeros(4)) + Array(moov.dropLast(3)), "claims"),
        ]
        for (name, bytes, message) in cases {
            let path = folder.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try MovieLocationEditor.writeWithoutLocation(from: path, to: path + ".out"), name) { error in
                XCTAssertTrue("\(error)".contains(message), "\(name): \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".out"), name)
        }
    }

    func testLargeSizeAndSizeZeroAtTopLevel() throws {
        let moov = box("moov", box("mvhd", zeros(100)), box("udta", box("©xyz", text("+1+2/"))))
        let mdatToEnd = be32(0) + Array("mdat".utf8) + zeros(64)
        let bytes = largeBox("ftyp", Array("isom".utf8) + zeros(4)) + moov + mdatToEnd
        let path = Fixtures.temporaryFolder().appendingPathComponent("in.mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let report = try MovieLocationEditor.writeWithoutLocation(from: path, to: path + ".out")

        XCTAssertEqual(report.removed, ["moov/udta/©xyz"])
        let written = try XCTUnwrap(FileManager.default.contents(atPath: path + ".out"))
        XCTAssertEqual(written.count, bytes.count)
        XCTAssertEqual(written.suffix(mdatToEnd.count), Data(mdatToEnd))
        XCTAssertNil(written.range(of: Data("+1+2/".utf8)))
    }
}

// MARK: - Building boxes


private func box(_ type: String, _ payloads: [UInt8]...) -> [UInt8] {
    let payload = payloads.flatMap { $0 }
    return be32(UInt32(8 + payload.count)) + fourCC(type) + payload
}

private func largeBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    be32(1) + fourCC(type) + be32(0) + be32(UInt32(16 + payload.count)) + payload
}

/// A keyed-metadata `ilst` item: its type is the key's 1-based index.
private func item(_ keyIndex: UInt32, _ value: String) -> [UInt8] {
    let data = box("data", be32(1), be32(0), text(value))
    return be32(UInt32(8 + data.count)) + be32(keyIndex) + data
}

/// QuickTime style: no version and flags, `hdlr` first.
private func quickTimeKeyedMeta(keys: [String], items: [UInt8]) -> [UInt8] {
    box("meta", box("hdlr", zeros(8) + Array("mdta".utf8) + zeros(12)),
        box("keys", zeros(4) + be32(UInt32(keys.count)) + keys.flatMap { box("mdta", text($0)) }),
        box("ilst", items))
}

private func fourCC(_ type: String) -> [UInt8] { type.unicodeScalars.map { UInt8($0.value) } }
private func text(_ string: String) -> [UInt8] { Array(string.utf8) }
private func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
private func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

/// A well-formed packet: XMP in movies is parsed, so namespaces must be declared.
private func xmp(_ attribute: String) -> String {
    #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">"#
        + #"<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" "#
        + attribute + "/></rdf:RDF></x:xmpmeta>"
}
