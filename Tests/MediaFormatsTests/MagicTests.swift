import MediaFormats
import TestSupport
import XCTest

/// Files are recognised by their first bytes, through each row's magic.
final class MagicTests: XCTestCase {
    func testCommittedFilesAreRecognisedByContent() throws {
        let expected: [String: MediaFormat] = [
            "samples/heic/IMG_1034.heic": .heic, "samples/jpeg/apple_iphone_4.jpg": .jpeg,
            "samples/png/macos_screenshot_exif.png": .png, "samples/webp/iphone_x_exif_gps.webp": .webp,
            "samples/video/iphone6_with-gps.mov": .mov, "samples/video/sample.3gp": .threeGP,
            "Tests/Fixtures/kinds/images/animated_3frames.gif": .gif, "Tests/Fixtures/kinds/images/spatial_stereo_pair.avif": .avif,
            "Tests/Fixtures/kinds/videos/screen-recording-ios.mp4": .mp4, "Tests/Fixtures/metadata/tiff-location-everywhere.tif": .tiff,
        ]
        for (path, format) in expected {
            let handle = try XCTUnwrap(FileHandle(forReadingAtPath: Fixtures.repositoryRoot.appendingPathComponent(path).path), path)
            let prefix = [UInt8](try handle.read(upToCount: Magic.prefixLength) ?? Data())
            XCTAssertEqual(MediaFormat.sniffing(prefix: prefix), format, path)
        }
    }

    func testBrandsDecideTheISOBaseMediaFormat() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let brands = ([major, "\0\0\0\0"] + compatible).flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + brands.count)] + Array("ftyp".utf8) + brands
        }
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("mif1", ["heic", "mif1"])), .heic)
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("avif", ["avif", "mif1"])), .avif, "before HEIC: AVIF lists mif1 too")
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("qt  ", ["qt  "])), .mov)
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("isom", ["isom", "mp42"])), .mp4)
        XCTAssertEqual(MediaFormat.sniffing(prefix: ftyp("3gp4", ["3gp4"])), .threeGP)
        XCTAssertNil(MediaFormat.sniffing(prefix: Array("hello, world".utf8)))
        // Classic QuickTime without ftyp (a Motion-JPEG MOV opens with a `free` atom).
        XCTAssertEqual(MediaFormat.sniffing(prefix: [0, 3, 3, 0xDB] + Array("free".utf8) + [0, 0, 0, 0x6C]), .mov)
    }

    /// JPEG XL is written, not yet read: its files are not taken for any input format.
    func testFormatsThatAreNotInputsAreNotSniffed() {
        XCTAssertNil(MediaFormat.sniffing(prefix: [0xFF, 0x0A, 0xFA, 0x1F]))
        XCTAssertNil(MediaFormat.sniffing(prefix: [0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]))
    }
}
