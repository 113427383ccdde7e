import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// Which gain map a HEIF/AVIF primary image has, from the `meta` box alone.
final class HEIFGainMapTests: XCTestCase {
    func testAppleAuxiliaryGainMapOfTheIPhonePrimary() throws {
        XCTAssertEqual(try HEIFStructure(path: Fixtures.sample("heic/pug.heic")).gainMapKind, .apple)
    }

    func testISOToneMapItemsOfLibavifsFiles() throws {
        for name in ["seine_sdr_gainmap_srgb.avif", "seine_hdr_gainmap_srgb.avif"] {
            let path = Fixtures.fixtures.appendingPathComponent("hdr/\(name)").path
            XCTAssertEqual(try HEIFStructure(path: path).gainMapKind, .iso21496, name)
        }
    }

    func testSamsungAuxiliaryGainMap() throws {
        let path = try Fixtures.corpusFile("heic/samsung_200MP.heic")
        XCTAssertEqual(try HEIFStructure(path: path).gainMapKind, .samsung)
    }

    func testPicturesWithoutOne() throws {
        for sample in ["heic/IMG_1034.heic", "heic/L_exif_xmp_iptc.heic"] {
            XCTAssertNil(try HEIFStructure(path: Fixtures.sample(sample)).gainMapKind, sample)
        }
    }

    /// Pug's `meta` box with bytes overwritten at random: an answer or nil, never a trap.
    func testHostileMetaBoxesNeverTrap() throws {
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/pug.heic"))))
        let start = try XCTUnwrap(file.firstOffset(of: Array("meta".utf8))) - 4
        let size = Int(try XCTUnwrap(file.uint32(at: start)))
        let meta = Array(file[start..<start + size])
        let children = try ISOBox.boxes(in: meta, 12..<meta.count)
        XCTAssertEqual(HEIFGainMap.kind(meta: meta, children: children), .apple)
        var random = SplitMix(seed: 23008)
        for _ in 0..<3000 {
            var bytes = meta
            for _ in 0..<4 { bytes[12 + Int(random.next() % UInt64(meta.count - 12))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = HEIFGainMap.kind(meta: bytes, children: (try? ISOBox.boxes(in: bytes, 12..<bytes.count)) ?? children)
        }
    }
}
