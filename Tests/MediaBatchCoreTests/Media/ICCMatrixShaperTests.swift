@testable import MediaBatchCore
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Matrix-shaper profiles converted to sRGB by mediabatch's tables against libvips' icc_transform (Little CMS
/// through its generic loop) on real photos, sample for sample: an iPhone's Display P3 (v4, parametric curves), a
/// Canon's Adobe RGB (v2, a gamma) and a Mac screenshot's display profile (v2, 16-bit tables; RGBA).
final class ICCMatrixShaperTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    func testConversionIsLittleCMSsOwn() throws {
        for (sample, bands) in [("heic/IMG_1034.heic", 3), ("jpeg/canon_eos_7d_iptc_city.jpg", 3), ("png/macos_screenshot_exif.png", 4)] {
            let image = try VImage.thumbnail(of: Fixtures.sample(sample), width: 640, height: 640).inMemory()
            XCTAssertEqual(image.bands, bands, sample)
            let tables = try XCTUnwrap(SRGB.tables(for: image), sample)
            let theirs = try image.convertedToSRGB(), before = try image.pixels()
            // In memory and lazy: either is converted region by region into a buffer of the pool's; by the
            // vector loop and by the scalar one.
            for source in [image, try image.resized(width: 640, height: image.height * 640 / image.width)] {
                for scalar in [false, true] {
                    VImage.forceScalarColourLoop(scalar)
                    defer { VImage.forceScalarColourLoop(false) }
                    let ours = try source.convertedToSRGB(using: tables)
                    XCTAssertEqual(ours.iccProfile, theirs.iccProfile, sample)
                    XCTAssertTrue(try ours.pixels() == theirs.pixels(), "\(sample), scalar \(scalar): every sample Little CMS's")
                }
            }
            XCTAssertTrue(try image.pixels() == before, "\(sample): the source is left as it was")
            XCTAssertGreaterThan(try image.meanAbsoluteDifference(from: theirs), 0.5, "\(sample): the conversion changes pixels")
        }
    }

    /// Profiles Little CMS converts through a lookup table, CMYK, and sRGB's own need no tables of these.
    func testOnlyMatrixShaperRGBGetsTables() throws {
        let cmyk = try VImage.decode(Fixtures.fixtures.appendingPathComponent("colour/cmyk.jpg").path)
        XCTAssertNil(SRGB.tables(for: cmyk))
        XCTAssertNotNil(ICCMatrixShaper(VImage.sRGBProfile))
        var profile = try XCTUnwrap(try VImage.decode(Fixtures.sample("heic/IMG_1034.heic")).iccProfile)
        XCTAssertNotNil(ICCMatrixShaper(profile))
        let rXYZ = try XCTUnwrap(profile.firstOffset(of: Array("rXYZ".utf8)))
        profile.replaceSubrange(rXYZ..<rXYZ + 4, with: Array("A2B0".utf8))
        XCTAssertNil(ICCMatrixShaper(profile), "a lookup table Little CMS would take instead")
    }
}
