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

    /// Three-band pixels convert 8 at a time (AVX2), four-band ones one by one: the same samples, for random
    /// planes of every sample value, both ranges, chroma halved across or not, and rows whose length leaves a tail.
    func testVectorRowsAreTheScalarOnes() {
        var state: UInt64 = 30
        func random() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let width = 77, height = 6
        let luma = (0..<width * height).map { _ in random() }, cb = (0..<width * height).map { _ in random() }
        let cr = (0..<width * height).map { _ in random() }
        for fullRange in [false, true] {
            for shiftX in [0, 1] {
                let conversion = YCbCrToRGB(matrix: 13, primaries: 12, fullRange: fullRange)
                var three = [UInt8](repeating: 0, count: width * height * 3), four = [UInt8](repeating: 0, count: width * height * 4)
                luma.withUnsafeBufferPointer { y in
                    cb.withUnsafeBufferPointer { cb in
                        cr.withUnsafeBufferPointer { cr in
                            let chroma = width >> shiftX
                            for (bands, pointer) in [(3, three.withUnsafeMutableBufferPointer { $0.baseAddress! }),
                                                     (4, four.withUnsafeMutableBufferPointer { $0.baseAddress! })] {
                                conversion.convert(luma: (y.baseAddress!, width), cb: (cb.baseAddress!, chroma), cr: (cr.baseAddress!, chroma),
                                                   shift: (shiftX, 0), bitDepth: 8, into: pointer, stride: width * bands, bands: bands, left: 0, top: 0,
                                                   width: width, height: height)
                            }
                        }
                    }
                }
                let fourAsThree = (0..<width * height).flatMap { four[$0 * 4..<$0 * 4 + 3] }
                XCTAssertEqual(three, fourAsThree, "full range \(fullRange), shift \(shiftX)")
                XCTAssertTrue(three.contains(0) && three.contains(255), "clamped at both ends")
                XCTAssertGreaterThan(Set(three).count, 240)
            }
        }
    }
}
