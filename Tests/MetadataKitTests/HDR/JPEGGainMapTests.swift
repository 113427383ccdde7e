import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Finding a JPEG's gain map and its metadata, on the committed gain-map files (libavif's test
/// data) and, where it is beside the repository, the shared corpus's Pixel-style Ultra HDR photo.
final class JPEGGainMapTests: XCTestCase {
    static func fixture(_ name: String) -> String { Fixtures.fixtures.appendingPathComponent("hdr/\(name)").path }

    /// Values as exiftool prints them for the map's `hdrgm` XMP.
    func testReadsUltraHDRWithThreeChannelSequences() throws {
        let found = try XCTUnwrap(JPEGGainMap.read(path: Self.fixture("seine_sdr_gainmap_srgb.jpg")))
        XCTAssertEqual(found.kind, .ultraHDR)
        XCTAssertEqual(found.jpeg.count, 28410)
        XCTAssertEqual(found.metadata, GainMapMetadataTests.threeChannels)
    }

    func testReadsAdobeStyleMapBehindALittleEndianIndex() throws {
        let found = try XCTUnwrap(JPEGGainMap.read(path: Self.fixture("paris_exif_xmp_gainmap_littleendian.jpg")))
        XCTAssertEqual(found.kind, .ultraHDR)
        XCTAssertEqual(found.jpeg.count, 14092)
        XCTAssertEqual(found.metadata, GainMapMetadata(gainMapMin: [0], gainMapMax: [3.5, 3.6, 3.7], gamma: [1], offsetSDR: [0],
                                                       offsetHDR: [0], hdrCapacityMin: 0, hdrCapacityMax: 3.5))
    }

    func testReadsApplesMapWithItsXMPHeadroom() throws {
        let found = try XCTUnwrap(JPEGGainMap.read(path: Self.fixture("apple_gainmap_new.jpg")))
        XCTAssertEqual(found.kind, .apple)
        XCTAssertEqual(found.jpeg.count, 6003)
        XCTAssertEqual(found.metadata, GainMapMetadata.apple(headroom: 4.532783))
    }

    func testReadsPixelUltraHDR() throws {
        let path = try Fixtures.corpusFile("jpeg/ultra-hdr.jpg")
        let found = try XCTUnwrap(JPEGGainMap.read(path: path))
        XCTAssertEqual(found.kind, .ultraHDR)
        let metadata = try XCTUnwrap(found.metadata)
        XCTAssertEqual(metadata.gainMapMax, [6.64386])
        XCTAssertEqual(metadata.offsetSDR, [0])
    }

    func testPhotosWithoutAGainMapHaveNone() throws {
        for sample in ["jpeg/canon_eos_7d_iptc_city.jpg", "livephoto/train.jpg"] {
            XCTAssertNil(try JPEGGainMap.read(path: Fixtures.sample(sample)), sample)
            XCTAssertFalse(try JPEGStructure(path: Fixtures.sample(sample)).hasGainMap, sample)
        }
        for name in ["seine_sdr_gainmap_srgb.jpg", "paris_exif_xmp_gainmap_littleendian.jpg", "apple_gainmap_new.jpg"] {
            XCTAssertTrue(try JPEGStructure(path: Self.fixture(name)).hasGainMap, name)
        }
    }

    /// A gain map whose `hdrgm` XMP says GainMapMax < GainMapMin is a gain map, and invalid.
    func testNamesWhatIsWrongWithAnInvalidMap() throws {
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture("seine_sdr_gainmap_srgb.jpg"))))
        let broken = try XCTUnwrap(Self.replacing("hdrgm:GainMapMax", with: "hdrgm:GainMapMIN", in: file))
        let path = Fixtures.temporaryFolder().appendingPathComponent("broken.jpg").path
        try Data(broken).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try JPEGGainMap.read(path: path)) { error in
            XCTAssertTrue("\(error)".contains("no hdrgm:GainMapMax"), "\(error)")
        }
    }

    /// Cut short anywhere, overwritten anywhere: nil or an error, never a trap.
    func testHostileFilesNeverTrap() throws {
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture("paris_exif_xmp_gainmap_littleendian.jpg"))))
        let folder = Fixtures.temporaryFolder()
        var random = SplitMix(seed: 1)
        for round in 0..<60 {
            var bytes = Array(file.prefix(round < 20 ? Int(random.next() % UInt64(file.count)) : file.count))
            // The heads and the MPF index are where parsers look.
            for _ in 0..<(round < 20 ? 0 : 8) {
                let at = round % 2 == 0 ? Int(random.next() % 4200) : 33487 + Int(random.next() % 700)
                if at < bytes.count { bytes[at] = UInt8(truncatingIfNeeded: random.next()) }
            }
            let path = folder.appendingPathComponent("\(round).jpg").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            _ = try? JPEGGainMap.read(path: path)
            _ = (try? JPEGStructure(path: path))?.hasGainMap
        }
    }

    static func replacing(_ old: String, with new: String, in bytes: [UInt8]) -> [UInt8]? {
        guard old.utf8.count == new.utf8.count else { return nil }
        var output = bytes
        var found = false
        var from = 0
        while let at = output.firstOffset(of: Array(old.utf8), from: from) {
            output.replaceSubrange(at..<at + old.utf8.count, with: Array(new.utf8))
            found = true
            from = at + 1
        }
        return found ? output : nil
    }
}
