import Foundation
@testable import MediaBatchCore
import MediaFormats
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The variants stage's plan: every size in every format, each with its format's settings and
/// its exact pixels, known before any pixel is decoded.
final class VariantsStageTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    func testPlansEveryOutputBeforeAnyPixelIsDecoded() throws {
        let stages = #"{"stage": "decode"}, {"stage": "variants", "sizes": [640, 5000], "formats": ["avif", "jpeg"]}, "#
            + #"{"stage": "stripLocation"}, {"stage": "write", "path": "{stem}-{width}x{height}.{ext}"}"#
        let plan = try Self.planned("heic/IMG_1034.heic", stages).plan
        XCTAssertEqual(plan.paths, ["IMG_1034-640x480.avif", "IMG_1034-640x480.jpg", "IMG_1034-4032x3024.avif", "IMG_1034-4032x3024.jpg"])
        XCTAssertEqual(plan.outputs.map(\.quality), [62, 80, 62, 80], "each format's default quality")
        XCTAssertEqual(plan.outputs.map(\.effort), [2, nil, 2, nil], "AVIF's default effort; JPEG takes none")
        XCTAssertGreaterThan(plan.estimatedBytes, CostEstimator.estimate(image: .init(format: .heic, width: 4032, height: 3024, bitsPerSample: 8),
                                                                         maxPixelSize: nil), "the kept variants and the AVIF encoder on top")
    }
}
