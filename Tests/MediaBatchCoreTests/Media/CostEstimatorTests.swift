@testable import MediaBatchCore
import MediaFormats
import PipelineModel
import XCTest

final class CostEstimatorTests: XCTestCase {
    let mebibyte = 1 << 20

    func estimate(_ format: MediaFormat, _ width: Int, _ height: Int, bits: Int = 8, to size: Int? = 2048) -> Int {
        CostEstimator.estimate(image: .init(format: format, width: width, height: height, bitsPerSample: bits), maxPixelSize: size)
    }

    /// Each path's measured peak from 12 MP to a gigapixel, to 2048 px: the worker's peak RSS less an idle item's
    /// (bench/README.md, "Huge pictures": `SETS=huge bench/run.sh`, 2026-11-29). Every estimate within 25% of it
    /// (issue 47), so that the budget neither admits too much nor runs alone what would fit beside another.
    func testStreamedAndTiledPicturesAreEstimatedWithinAQuarterOfTheirPeak() {
        let tiles = PixelSize(width: 512, height: 512)
        let cases: [(MediaFormat, Int, Int, PixelSize?, Double)] = [
            (.jpeg, 4032, 3024, nil, 16.2), (.jpeg, 8064, 6048, nil, 29.8), (.jpeg, 5773, 8660, nil, 11.3),
            (.jpeg, 11547, 17320, nil, 11.4), (.jpeg, 25820, 38730, nil, 12.5),
            (.png, 4032, 3024, nil, 15.6), (.png, 8064, 6048, nil, 29.1), (.png, 5773, 8660, nil, 28.5),
            (.png, 11547, 17320, nil, 54.9), (.png, 25820, 38730, nil, 121.7),
            (.tiff, 5773, 8660, nil, 27.9), (.tiff, 11547, 17320, nil, 54.8), (.tiff, 25820, 38730, nil, 121.5),
            (.heic, 4032, 3024, tiles, 52.0), (.heic, 5773, 8660, tiles, 56.4), (.heic, 12240, 16320, tiles, 102.5),
            (.heic, 21694, 10847, tiles, 63.2),
        ]
        for (format, width, height, tile, measuredMiB) in cases {
            var header = CostEstimator.ImageHeader(format: format, width: width, height: height, bitsPerSample: 8)
            header.heifTile = tile
            let estimated = Double(CostEstimator.estimate(image: header, maxPixelSize: 2048)) / Double(mebibyte)
            XCTAssertEqual(estimated, measuredMiB, accuracy: measuredMiB / 4, "\(format) \(width)x\(height)")
        }
    }

    /// libheif's whole frames (a HEIC the loader declines), measured as extra peak RSS per item (../shared/notes): the
    /// estimate must cover it without being wildly above it, or the budget would admit too little.
    func testCalibrationPointsAreCoveredAndClose() {
        let cases: [(MediaFormat, Int, Int, Double)] = [(.heic, 4032, 3024, 90), (.heic, 8064, 6048, 307)]
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
