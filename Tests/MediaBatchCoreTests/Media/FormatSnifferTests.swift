@testable import MediaBatchCore
import MediaFormats
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
}
