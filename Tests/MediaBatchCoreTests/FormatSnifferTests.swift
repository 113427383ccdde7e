@testable import MediaBatchCore
import PipelineModel
import TestSupport
import XCTest

final class FormatSnifferTests: XCTestCase {
    func testSamplesAreRecognisedByContent() throws {
        let expected: [String: MediaFormat] = [
            "heic/IMG_1034.heic": .heic, "heic/iphone_xr_issue263.heic": .heic,
            "jpeg/apple_iphone_4.jpg": .jpeg, "jpeg/orientation/Landscape_5.jpg": .jpeg,
            "png/macos_screenshot_exif.png": .png, "webp/iphone_x_exif_gps.webp": .webp,
            "video/iphone6_with-gps.mov": .mov,
        ]
        for (path, format) in expected {
            XCTAssertEqual(try FormatSniffer.format(of: Fixtures.sample(path)), format, path)
        }
    }

    func testBrokenFilesAreRecognisedOrNot() throws {
        let expected: [String: MediaFormat?] = [
            "empty.heic": nil, "truncated.heic": .heic, "corrupted.heic": .heic,
            "corrupt-header.jpg": .jpeg, "iphone6_with-gps_truncated_50pct.mov": .mov,
        ]
        for (name, format) in expected {
            XCTAssertEqual(try FormatSniffer.format(of: Fixtures.broken.appendingPathComponent(name).path), format, name)
        }
    }

    func testBrandsDecideTheISOBaseMediaFormat() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let brands = ([major, "\0\0\0\0"] + compatible).flatMap { Array($0.utf8) }
            let size = 8 + brands.count
            return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + brands
        }
        XCTAssertEqual(FormatSniffer.format(ofPrefix: ftyp("mif1", ["heic", "mif1"])), .heic)
        XCTAssertEqual(FormatSniffer.format(ofPrefix: ftyp("avif", ["avif", "mif1"])), .avif)
        XCTAssertEqual(FormatSniffer.format(ofPrefix: ftyp("qt  ", ["qt  "])), .mov)
        XCTAssertEqual(FormatSniffer.format(ofPrefix: ftyp("isom", ["isom", "mp42"])), .mp4)
        XCTAssertEqual(FormatSniffer.format(ofPrefix: ftyp("3gp4", ["3gp4"])), .threeGP)
        XCTAssertNil(FormatSniffer.format(ofPrefix: Array("hello, world".utf8)))
        // Classic QuickTime without ftyp (the corpus' Motion-JPEG MOV opens with a `free` atom).
        XCTAssertEqual(FormatSniffer.format(ofPrefix: [0, 3, 3, 0xDB] + Array("free".utf8) + [0, 0, 0, 0x6C]), .mov)
    }
}
