@testable import VipsKit
import XCTest

/// The coefficients libheif 1.15 converts with (`nclx.cc`), as `YCbCrToRGB` derives them; the
/// samples themselves are checked against libheif's on real files (`HEIFPictureTests`).
final class YCbCrToRGBTests: XCTestCase {
    private func coefficients(_ matrix: Int, _ primaries: Int) -> [Float] {
        let c = YCbCrToRGB(matrix: matrix, primaries: primaries, fullRange: true).coefficients
        return [c.r_cr, c.g_cb, c.g_cr, c.b_cb]
    }

    /// BT.709 and BT.601 by their Kr and Kb; an unspecified matrix (2), or one libheif has no
    /// coefficients for, is BT.601's defaults, as libheif's.
    func testCoefficientsByMatrix() {
        let bt709 = coefficients(1, 1)
        for (value, expected) in zip(bt709, [1.5748, -0.187324, -0.468124, 1.8556] as [Float]) { XCTAssertEqual(value, expected, accuracy: 1e-5) }
        for unspecified in [2, 3, 11] { XCTAssertEqual(coefficients(unspecified, 2), [1.402, -0.344136, -0.714136, 1.772]) }
        let bt601 = coefficients(6, 6)
        XCTAssertEqual(bt601[0], 1.402, accuracy: 1e-6)
        XCTAssertEqual(bt601[3], 1.772, accuracy: 1e-6)
    }

    /// Matrices 12 and 13 derive Kr and Kb from the primaries: BT.709's give BT.709's coefficients,
    /// Display P3's (iPhones') their own; unspecified primaries none, so BT.601's defaults.
    func testChromaticityDerivedMatricesFromPrimaries() {
        for (value, expected) in zip(coefficients(12, 1), coefficients(1, 1)) { XCTAssertEqual(value, expected, accuracy: 5e-4) }
        let p3 = coefficients(13, 12)
        XCTAssertEqual(p3[0], 2 * (1 - 0.2290), accuracy: 2e-3, "Kr 0.2290")
        XCTAssertEqual(p3[3], 2 * (1 - 0.0793), accuracy: 2e-3, "Kb 0.0793")
        XCTAssertEqual(coefficients(12, 2), [1.402, -0.344136, -0.714136, 1.772])
    }
}
