@testable import MediaBatchCore
import MediaFormats
import PipelineModel
import XCTest

final class CostEstimatorTests: XCTestCase {
    let mebibyte = 1 << 20

    func estimate(_ format: MediaFormat, _ width: Int, _ height: Int, bits: Int = 8, to size: Int? = 2048) -> Int {
        CostEstimator.estimate(image: .init(format: format, width: width, height: height, bitsPerSample: bits), maxPixelSize: size)
    }

    /// Measured extra peak RSS per item here (../shared/notes): the estimate must cover it
    /// without being wildly above it, or the budget would admit too little.
    func testCalibrationPointsAreCoveredAndClose() {
        let cases: [(MediaFormat, Int, Int, Double)] = [
            (.jpeg, 4032, 3024, 12), (.jpeg, 8064, 6048, 27), (.png, 4032, 3024, 11),
            (.heic, 4032, 3024, 90), (.heic, 8064, 6048, 307),
        ]
        for (format, width, height, measuredMiB) in cases {
            let estimated = Double(estimate(format, width, height)) / Double(mebibyte)
            XCTAssertGreaterThanOrEqual(estimated, measuredMiB, "\(format) \(width)x\(height)")
            XCTAssertLessThanOrEqual(estimated, measuredMiB * 1.6, "\(format) \(width)x\(height)")
        }
    }

    /// A 27 MP DNG (6000×4500, a full-size preview) to 2048 px, measured here as extra peak RSS
    /// over an idle run (docs/operations.md, "Memory budget and scheduling"): LibRaw's full develop, its half-size develop, the
    /// preview decoded at half size by libjpeg.
    func testRawCalibrationPointsAreCoveredAndClose() {
        let developed = PixelSize(width: 6000, height: 4500)
        func estimate(_ mode: DecodeStage.RawSource, to size: Int?) -> Int {
            var header = CostEstimator.ImageHeader(format: .dng, width: 6000, height: 4500, bitsPerSample: 8)
            header.raw = RawDecoding(mode: mode, developed: developed, preview: developed, orientation: 1)
            return CostEstimator.estimate(image: header, maxPixelSize: size)
        }
        let cases: [(DecodeStage.RawSource, Int?, Double)] = [(.develop, nil, 329), (.develop, 2048, 116), (.auto, 2048, 43)]
        for (mode, size, measuredMiB) in cases {
            let estimated = Double(estimate(mode, to: size)) / Double(mebibyte)
            XCTAssertGreaterThanOrEqual(estimated, measuredMiB, "\(mode) to \(size ?? 0)")
            XCTAssertLessThanOrEqual(estimated, measuredMiB * 1.2, "\(mode) to \(size ?? 0)")
        }
        XCTAssertGreaterThan(estimate(.develop, to: nil), 300 << 20, "a 45 MP RAW is not admitted as a JPEG would be")
    }

    func testJPEGShrinkOnLoadLowersTheEstimate() {
        XCTAssertLessThan(estimate(.jpeg, 8064, 6048, to: 512), estimate(.jpeg, 8064, 6048, to: 2048))
        XCTAssertEqual(estimate(.heic, 8064, 6048, to: 512), estimate(.heic, 8064, 6048, to: 2048), "libheif decodes whole frames")
        XCTAssertGreaterThan(estimate(.png, 4000, 3000, bits: 16), estimate(.png, 4000, 3000))
    }

    /// `variants` to [640, 1280, 2048], one item, measured here as peak RSS over an idle run.
    func testVariantCalibrationPointsAreCoveredAndClose() {
        let cases: [(MediaFormat, Int, Int, Set<MediaFormat>, Double)] = [
            (.jpeg, 4032, 3024, [.webp, .jpeg], 42), (.jpeg, 4032, 3024, [.avif], 99), (.jpeg, 4032, 3024, [.heic], 83),
            (.jpeg, 8064, 6048, [.webp, .jpeg], 63), (.jpeg, 8064, 6048, [.avif], 112),
            (.heic, 4032, 3024, [.webp, .jpeg], 78), (.heic, 4032, 3024, [.avif], 101), (.heic, 8064, 6048, [.avif], 281),
        ]
        for (format, width, height, formats, measuredMiB) in cases {
            let source = Picture(source: .init(stored: PixelSize(width: width, height: height), orientation: 1, needsConversion: false, hasProfile: false))
            let pixels = VariantsStage.variants(of: source, sizes: [640, 1280, 2048], fit: Fit()).map(\.picture.size)
            let header = CostEstimator.ImageHeader(format: format, width: width, height: height, bitsPerSample: 8)
            let estimated = Double(CostEstimator.estimate(variantsOf: header, pixels: pixels, formats: formats)) / Double(mebibyte)
            XCTAssertGreaterThanOrEqual(estimated, measuredMiB, "\(format) \(width)x\(height) \(formats)")
            XCTAssertLessThanOrEqual(estimated, measuredMiB * 1.4, "\(format) \(width)x\(height) \(formats)")
        }
    }
}
