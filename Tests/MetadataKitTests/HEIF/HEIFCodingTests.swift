import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// A HEIF's primary image as the HEVC path reads it, from the committed files: an iPhone's grid
/// (rotated), libheif's single images with a clean aperture, and what goes to libheif instead.
final class HEIFCodingTests: XCTestCase {
    /// An iPhone 8's photo: 8×6 tiles of 512 (48 in all, each one extent in the file) cut to
    /// 4032×3024, Display P3 in an ICC profile, no `nclx`, turned by `irot` 0 (kept: libheif
    /// applies even a null rotation).
    func testIPhoneGrid() throws {
        let coded = try hevc(Fixtures.sample("heic/IMG_1034.heic"))
        XCTAssertEqual([coded.columns, coded.rows, coded.tileWidth, coded.tileHeight, coded.width, coded.height], [8, 6, 512, 512, 4032, 3024])
        XCTAssertEqual(coded.tiles.count, 48)
        XCTAssertTrue(coded.tiles.allSatisfy { $0.count == 1 && $0[0].count > 1000 })
        XCTAssertNil(coded.colour)
        XCTAssertTrue(String(decoding: try XCTUnwrap(coded.iccProfile)[48..<200], as: UTF8.self).contains("P3") ||
                      coded.iccProfile!.count > 500)
        XCTAssertEqual(coded.bitDepth, 8)
        XCTAssertNil(coded.alpha)
        XCTAssertEqual(coded.transforms, [.rotation(counterClockwise: 0)])
        XCTAssertEqual(coded.displayedSize.width, 4032)
        XCTAssertEqual(coded.thumbnail, .init(width: 320, height: 240))
    }

    /// An iPhone XR's, stored landscape and turned a quarter: shown portrait.
    func testRotatedGridIsShownTurned() throws {
        let coded = try hevc(Fixtures.sample("heic/iphone_xr_issue263.heic"))
        XCTAssertEqual([coded.width, coded.height], [4032, 3024])
        XCTAssertEqual(coded.transforms, [.rotation(counterClockwise: 270)])
        XCTAssertEqual([coded.displayedSize.width, coded.displayedSize.height], [3024, 4032])
    }

    /// libheif 1.19's encoder: one image coded 64×48 for a 48×36 picture's clean aperture,
    /// full-range nclx, and the region libheif 1.15 keeps.
    func testSingleImageWithCleanAperture() throws {
        let coded = try hevc(Fixtures.fixtures.appendingPathComponent("metadata/layout-libheif-1.19.heic").path)
        XCTAssertEqual([coded.columns, coded.rows], [1, 1])
        guard case .cleanAperture(let clap)? = coded.transforms.first else { return XCTFail("\(coded.transforms)") }
        let cut = try XCTUnwrap(clap.cut(width: coded.width, height: coded.height))
        XCTAssertEqual([cut.width, cut.height], [48, 36])
        XCTAssertEqual([coded.displayedSize.width, coded.displayedSize.height], [48, 36])
    }

    /// AV1, sequences, an item without data, a file that is not HEIF: each declined, saying why.
    func testWhatItDeclines() {
        let declines: [(String, String)] = [
            (Fixtures.fixtures.appendingPathComponent("metadata/layout-libheif-1.19.avif").path, "its primary image is 'av01' coded"),
            (Fixtures.fixtures.appendingPathComponent("kinds/images/animated_avis_3frames.avif").path, "it is an image sequence (a 'moov' box)"),
            (Fixtures.broken.appendingPathComponent("empty.heic").path, "it has no readable 'meta' box"),
        ]
        for (path, reason) in declines {
            XCTAssertEqual(HEIFCoding.read(path: path), .declines(reason), path)
        }
    }

    /// A grid that claims a picture larger than its tiles cover (a header bomb: 65535 × 3024 from
    /// 8 × 6 tiles) is declined: libheif's header says the claimed size, which `maxPixels` judges,
    /// and the loader never allocates it.
    func testGridLargerThanItsTilesDeclines() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/IMG_1034.heic"))))
        let idat = try XCTUnwrap(bytes.firstOffset(of: Array("idat".utf8)))
        XCTAssertEqual(Array(bytes[idat + 8..<idat + 10]), [0x0F, 0xC0], "4032, 16 bits")
        bytes.replaceSubrange(idat + 8..<idat + 10, with: [0xFF, 0xFF])
        let file = Fixtures.temporaryFolder().appendingPathComponent("bomb.heic")
        try Data(bytes).write(to: file)
        XCTAssertEqual(HEIFCoding.read(path: file.path), .declines("its grid's 65535×3024 is not covered by 8×6 tiles of 512×512"))
    }

    /// A property it does not know, marked essential, declines; the same unmarked is ignored,
    /// as libheif ignores it. libheif's encoder marks `pixi` essential (`ipma`'s third
    /// association, 0x83): renamed, it is a property nobody knows.
    func testUnknownEssentialPropertyDeclines() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/L_exif_xmp_iptc.heic"))))
        let pixi = try XCTUnwrap(bytes.firstOffset(of: Array("pixi".utf8)))
        bytes.replaceSubrange(pixi..<pixi + 4, with: Array("xyzw".utf8))
        let ipma = try XCTUnwrap(bytes.firstOffset(of: Array("ipma".utf8)))
        let third = ipma + 4 + 4 + 4 + 2 + 1 + 2 // version and flags, count, item ID, count, two associations
        XCTAssertEqual(bytes[third], 0x83)
        let folder = Fixtures.temporaryFolder()
        for essential in [true, false] {
            bytes[third] = essential ? 0x83 : 0x03
            let file = folder.appendingPathComponent("unknown-\(essential).heic")
            try Data(bytes).write(to: file)
            let coding = HEIFCoding.read(path: file.path)
            if essential {
                XCTAssertEqual(coding, .declines("its image 1 has an essential 'xyzw' property"))
            } else {
                XCTAssertEqual(try hevc(file.path).width, 64)
            }
        }
    }

    /// A camera's 10-bit HIF (the corpus'): a 2×2 grid of 4:2:2 tiles cut to 4240×2832, read for the path.
    func testTenBitCameraGrid() throws {
        let coded = try hevc(try Fixtures.corpusFile("heic/cat.hif"))
        XCTAssertEqual([coded.columns, coded.rows, coded.tileWidth, coded.tileHeight, coded.width, coded.height], [2, 2, 2176, 1472, 4240, 2832])
        XCTAssertEqual(coded.bitDepth, 10)
        XCTAssertEqual(HEVCConfiguration(coded.configuration)?.chromaFormat, 2)
        XCTAssertEqual(coded.thumbnail, .init(width: 1616, height: 1080))
    }

    /// Depths as `hvcC` and `pixi` state them, in a copy of a libheif-made 8-bit monochrome image: 10 bits in
    /// both is read (8, 10 and 12 are), 14 is declined, and a `pixi` that differs from `hvcC` is.
    func testDepthsAsStated() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("heic/L_exif_xmp_iptc.heic"))))
        let depths = try XCTUnwrap(bytes.firstOffset(of: Array("hvcC".utf8))) + 4 + 17, pixi = try XCTUnwrap(bytes.firstOffset(of: Array("pixi".utf8))) + 4 + 5
        XCTAssertEqual([bytes[depths], bytes[depths + 1], bytes[pixi - 1], bytes[pixi]], [0xF8, 0xF8, 1, 8], "luma, chroma: 8 bits; one channel of 8")
        let file = Fixtures.temporaryFolder().appendingPathComponent("depth.heic")
        func read(hvcC: UInt8, pixi pixiBits: UInt8) throws -> HEIFCoding {
            bytes[depths] = 0xF8 | (hvcC - 8)
            bytes[depths + 1] = 0xF8 | (hvcC - 8)
            bytes[pixi] = pixiBits
            try Data(bytes).write(to: file)
            return HEIFCoding.read(path: file.path)
        }
        XCTAssertEqual(try hevc({ _ = try read(hvcC: 10, pixi: 10); return file.path }()).bitDepth, 10)
        XCTAssertEqual(try read(hvcC: 14, pixi: 14), .declines("its primary image has 14-bit samples"))
        XCTAssertEqual(try read(hvcC: 10, pixi: 8), .declines("its image 1 has [8] bits per channel ('pixi'), its 'hvcC' 10"))
    }

    private func hevc(_ path: String) throws -> HEVCCodedImage {
        let coding = HEIFCoding.read(path: path)
        guard case .hevc(let coded) = coding else { throw Declined(coding: coding) }
        return coded
    }

    private struct Declined: Error {
        let coding: HEIFCoding
    }
}
