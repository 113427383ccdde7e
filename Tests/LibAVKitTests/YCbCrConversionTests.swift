@testable import LibAVKit
import XCTest

/// The coefficients libheif 1.15 converts with (`nclx.cc`), as `YCbCrConversion` derives them; the
/// samples themselves are checked against libheif's on real files (`HEIFPictureTests`).
final class YCbCrConversionTests: XCTestCase {
    /// BT.709 and BT.601 by their Kr and Kb; an unspecified matrix (2) or one libheif has none for
    /// (0 is handled apart) is BT.601's defaults, as libheif's.
    func testCoefficientsByMatrix() {
        let bt709 = YCbCrConversion.coefficients(matrix: 1, primaries: 1)
        XCTAssertEqual(bt709.rCr, 1.5748, accuracy: 1e-6)
        XCTAssertEqual(bt709.bCb, 1.8556, accuracy: 1e-6)
        XCTAssertEqual(bt709.gCb, -0.187324, accuracy: 1e-5)
        XCTAssertEqual(bt709.gCr, -0.468124, accuracy: 1e-5)
        for unspecified in [2, 3, 11] {
            let defaults = YCbCrConversion.coefficients(matrix: unspecified, primaries: 2)
            XCTAssertEqual([defaults.rCr, defaults.gCb, defaults.gCr, defaults.bCb], [1.402, -0.344136, -0.714136, 1.772])
        }
        let bt601 = YCbCrConversion.coefficients(matrix: 6, primaries: 6)
        XCTAssertEqual(bt601.rCr, 1.402, accuracy: 1e-6)
        XCTAssertEqual(bt601.bCb, 1.772, accuracy: 1e-6)
    }

    /// Matrices 12 and 13 derive Kr and Kb from the primaries: BT.709's give BT.709's constants,
    /// Display P3's (12, as iPhones tag theirs) their own.
    func testChromaticityDerivedMatricesFromPrimaries() throws {
        let (kr, kb) = try XCTUnwrap(ColourPrimaries(1)).kRkB
        XCTAssertEqual(kr, 0.2126, accuracy: 2e-4)
        XCTAssertEqual(kb, 0.0722, accuracy: 2e-4)
        let p3 = YCbCrConversion.coefficients(matrix: 12, primaries: 12)
        let (p3Kr, p3Kb) = try XCTUnwrap(ColourPrimaries(12)).kRkB
        XCTAssertEqual(p3.rCr, 2 * (1 - p3Kr), accuracy: 1e-6)
        XCTAssertEqual(p3.bCb, 2 * (1 - p3Kb), accuracy: 1e-6)
        XCTAssertEqual(p3Kr, 0.2290, accuracy: 1e-3)
        XCTAssertEqual(p3Kb, 0.0793, accuracy: 1e-3)
        XCTAssertNil(ColourPrimaries(2), "unspecified primaries: no chromaticities, libheif's defaults")
    }
}
