@testable import MediaBatchCore
import TestSupport
@testable import VipsKit
import XCTest

final class ICCProfileTests: XCTestCase {
    func profile(_ sample: String) throws -> [UInt8] {
        try Vips.start()
        return try XCTUnwrap(try VImage.open(Fixtures.sample(sample)).blob("icc-profile-data"), sample)
    }

    func testDescriptionsOfRealProfiles() throws {
        XCTAssertEqual(ICCProfile.description(try profile("jpeg/apple_iphone_4.jpg")), "sRGB IEC61966-2.1")
        XCTAssertEqual(ICCProfile.description(try profile("heic/IMG_1034.heic")), "Display P3")
        XCTAssertTrue(ICCProfile.isSRGB(try profile("jpeg/apple_iphone_4.jpg")))
        XCTAssertFalse(ICCProfile.isSRGB(try profile("heic/IMG_1034.heic")))
        XCTAssertFalse(ICCProfile.isSRGB(try profile("png/macos_screenshot_exif.png")))
    }

    func testGarbageHasNoDescription() {
        XCTAssertNil(ICCProfile.description([]))
        XCTAssertNil(ICCProfile.description([UInt8](repeating: 0xFF, count: 200)))
    }
}
