@testable import MediaBatchCore
import PipelineModel
import XCTest

/// Fit boxes as computed from a picture's upright size: nothing is ever upscaled, and boxes that
/// fit a picture alike collapse into one output.
final class FitGeometryTests: XCTestCase {
    /// A box the image cannot fill at its own scale shrinks to a box of the same shape it can.
    func testNothingIsUpscaled() {
        let upright = PixelSize(width: 800, height: 400)
        func geometry(_ width: Int?, _ height: Int?, _ mode: Fit.Mode) -> FitGeometry {
            FitGeometry(upright: upright, box: Box(width: width, height: height), fit: Fit(mode: mode))
        }
        XCTAssertEqual(geometry(1200, 630, .cover).size, PixelSize(width: 762, height: 400))
        XCTAssertEqual(geometry(1200, 630, .cover).scaled, upright)
        XCTAssertEqual(geometry(2000, 2000, .contain).size, PixelSize(width: 800, height: 800))
        XCTAssertEqual(geometry(2000, 2000, .contain).scaled, upright)
        XCTAssertEqual(geometry(1600, 200, .fill).size, PixelSize(width: 800, height: 100))
        XCTAssertEqual(geometry(2000, 2000, .outside).size, upright)
        XCTAssertEqual(geometry(400, nil, .cover).size, PixelSize(width: 400, height: 200), "one side: scaled to it")
        XCTAssertEqual(geometry(nil, 1000, .fill).size, upright)
        XCTAssertNil(geometry(400, 200, .cover).framing, "the same shape: nothing to cut")
        for side in [100, 399, 400, 799, 800, 5000] {
            XCTAssertEqual(geometry(side, side, .inside).size, side >= 800 ? upright : upright.fitting(longestSide: side), "maxPixelSize \(side)")
        }
    }

    /// Sizes whose boxes give an image the same output collapse into the smallest box.
    func testBoxesThatFitAPictureAlikeCollapse() {
        let picture = Picture(source: .init(stored: PixelSize(width: 1200, height: 1800), orientation: 6, needsConversion: false, hasProfile: false))
        let variants = VariantsStage.variants(of: picture, sizes: [.box(width: 4000, height: 2000), 300, .box(width: 3600, height: 1800)],
                                              fit: Fit(mode: .cover))
        XCTAssertEqual(variants.map(\.size), [300, .box(width: 3600, height: 1800)])
        XCTAssertEqual(variants.map(\.picture.size), [PixelSize(width: 300, height: 300), PixelSize(width: 1800, height: 900)])
    }
}
