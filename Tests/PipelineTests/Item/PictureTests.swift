import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Pictures are planned from the header, in any stage order: each operation is recorded only
/// where it changes something, and every order of the pixel stages a pipeline may combine gives
/// the same outputs — checked on a Display P3 HEIC (the iPhone's, a third its size: `SmallerSamples`),
/// a CMYK JPEG and an orientation-6 JPEG.
final class PictureTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    /// Every order of `stripMetadata {keep: []}`, `downsample` and `transcode`, and of `variants`
    /// and `stripMetadata`, over the three photos: the same sizes, the same pixels within a mean
    /// of 0.5 of each other (here: identical, being rendered the same way), sRGB, upright.
    func testEveryAcceptedOrderGivesTheSameOutput() throws {
        let input = try Self.folder(of: ["jpeg/orientation/Landscape_6.jpg"])
        try FileManager.default.copyItem(atPath: SmallerSamples.iPhoneHEIC, toPath: input.appendingPathComponent("IMG_1034.heic").path)
        try FileManager.default.copyItem(at: Fixtures.fixtures.appendingPathComponent("colour/cmyk.jpg"), to: input.appendingPathComponent("cmyk.jpg"))
        let strip = #"{"stage": "stripMetadata", "keep": []}"#, downsample = #"{"stage": "downsample", "maxPixelSize": 480}"#
        let transcode = #"{"stage": "transcode", "to": "jpeg"}"#, variants = #"{"stage": "variants", "sizes": [480], "formats": ["jpeg"]}"#
        let orders = Self.permutations([strip, downsample, transcode]) + Self.permutations([strip, variants])
        var outputs: [String: [VImage]] = [:]
        for order in orders {
            let output = Fixtures.temporaryFolder()
            let stages = ([#"{"stage": "decode"}"#] + order + [#"{"stage": "write", "path": "{stem}.{ext}"}"#]).joined(separator: ", ")
            let report = try Self.run(try pipeline(stages), input: input, output: output)
            XCTAssertEqual(report.totals.ok, 3, "\(order): \(report.items.compactMap(\.error))")
            for item in report.items {
                let image = try VImage.open(output.appendingPathComponent(try XCTUnwrap(item.output)).path)
                XCTAssertEqual([image.orientation, image.bands], [1, 3], "upright sRGB: \(item.input) \(order)")
                outputs[item.input, default: []].append(image)
            }
        }
        for (input, images) in outputs {
            XCTAssertEqual(images.count, orders.count)
            for image in images.dropFirst() {
                XCTAssertEqual([image.width, image.height], [images[0].width, images[0].height], input)
                XCTAssertLessThanOrEqual(try image.meanAbsoluteDifference(from: images[0]), 0.5, input)
            }
        }
    }

    static func permutations(_ items: [String]) -> [[String]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            permutations(Array(items[..<index] + items[(index + 1)...])).map { [items[index]] + $0 }
        }
    }
}
