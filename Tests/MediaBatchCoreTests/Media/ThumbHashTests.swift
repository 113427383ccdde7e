import Foundation
@testable import MediaBatchCore
import TestSupport
import VipsKit
import XCTest

/// mediabatch's ThumbHash against the reference encoder (PyPI `thumbhash`, a port of Evan
/// Wallace's), on real photos with and without alpha: the same bytes from the same pixels.
final class ThumbHashTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    /// The pixels a placeholder is made from: the image fitted in 100 × 100, as RGBA.
    func smallRGBA(_ sample: String) throws -> (width: Int, height: Int, rgba: [UInt8]) {
        let image = try VImage.open(Fixtures.sample(sample))
        let fitted = PixelSize(width: image.width, height: image.height).fitting(longestSide: ThumbHash.maxSide)
        let small = try image.resized(width: fitted.width, height: fitted.height)
        return (small.width, small.height, try ThumbHash.RGBA(small).samples)
    }

    func reference(_ width: Int, _ height: Int, _ rgba: [UInt8]) throws -> [UInt8] {
        let file = Fixtures.temporaryFolder().appendingPathComponent("rgba")
        try Data(rgba).write(to: file)
        let script = "import sys, thumbhash; print(' '.join(map(str, thumbhash.rgba_to_thumb_hash("
            + "int(sys.argv[1]), int(sys.argv[2]), list(open(sys.argv[3], 'rb').read())))))"
        let printed = try PythonReference.run(script, ["\(width)", "\(height)", file.path])
        return printed.split(separator: " ").compactMap { UInt8($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    func testTheSameBytesAsTheReferenceEncoder() throws {
        let samples = ["heic/IMG_1034.heic", "jpeg/orientation/Landscape_1.jpg", "png/macos_screenshot_exif.png",
                       "webp/iphone_x_exif_gps.webp", "heic/iphone_xr_issue263.heic"]
        for sample in samples {
            let (width, height, rgba) = try smallRGBA(sample)
            XCTAssertEqual(max(width, height), 100, sample)
            let ours = ThumbHash.encode(width: width, height: height, rgba: rgba)
            XCTAssertEqual(ours, try reference(width, height, rgba), sample)
            XCTAssertGreaterThanOrEqual(ours.count, 20, sample)
            XCTAssertEqual(ours[2] & 0x80, 0, "\(sample) is opaque: no alpha in its hash")
        }
    }

    /// Alpha, which the PyPI port cannot encode (it fails on a tuple): a generated gradient whose
    /// hash the reference JavaScript encoder (evanw/thumbhash, js/thumbhash.js) gave, and the
    /// average alpha the PyPI decoder reads back from a photo fading out.
    func testTranslucentPixelsEncodeAlpha() throws {
        let (width, height) = (32, 24)
        let gradient: [UInt8] = (0..<width * height).flatMap { pixel -> [UInt8] in
            let (x, y) = (pixel % width, pixel / width)
            return [UInt8(x * 8 & 255), UInt8(y * 10 & 255), UInt8((x + y) * 5 & 255), UInt8(255 - 255 * x / width)]
        }
        let hex = ThumbHash.encode(width: width, height: height, rgba: gradient).map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(hex, "99c7890c8c38326750788777f77d8842aff887878878878807")

        var (photoWidth, photoHeight, rgba) = try smallRGBA("jpeg/orientation/Landscape_1.jpg")
        for pixel in 0..<photoWidth * photoHeight { rgba[pixel * 4 + 3] = UInt8(255 - 255 * (pixel % photoWidth) / photoWidth) }
        let ours = ThumbHash.encode(width: photoWidth, height: photoHeight, rgba: rgba)
        XCTAssertEqual(ours[2] & 0x80, 0x80, "alpha flag")
        let file = Fixtures.temporaryFolder().appendingPathComponent("hash")
        try Data(ours).write(to: file)
        let script = "import sys, thumbhash; print(float(thumbhash.thumb_hash_to_average_rgba(list(open(sys.argv[1], 'rb').read()))[3]))"
        let printed = try PythonReference.run(script, [file.path])
        let decoded = try XCTUnwrap(Double(printed.trimmingCharacters(in: .whitespacesAndNewlines)), printed)
        let averageAlpha = (0..<photoWidth * photoHeight).reduce(0.0) { $0 + Double(rgba[$1 * 4 + 3]) } / Double(photoWidth * photoHeight) / 255
        XCTAssertEqual(decoded, averageAlpha, accuracy: 1.0 / 15, "average alpha, in 4 bits")
    }

    func testAPlainColourEncodesItsAverage() throws {
        let grey: [UInt8] = (0..<16 * 8 * 4).map { $0 % 4 == 3 ? 255 : 128 }
        let hash = ThumbHash.encode(width: 16, height: 8, rgba: grey)
        XCTAssertEqual(hash, try reference(16, 8, grey))
        XCTAssertEqual(Int(hash[0] & 63), Int((63.0 * 128 / 255).rounded()), "luminance DC is the grey level")
    }

    /// A placeholder stands for the photo: made from the smallest picture that shows all of it
    /// (here the 64 px square of a square photo, not its 64 × 36 cut), whichever order the
    /// pictures were planned in — it once followed a dictionary's order, seeded per process.
    func testThePlaceholderIsOfTheWholePhotoWhateverTheCrops() throws {
        func placeholder(_ sizes: String) throws -> String? {
            let stages = #"{"stage": "decode"}, {"stage": "variants", "sizes": \#(sizes), "fit": "cover", "formats": ["jpeg"], "#
                + #""placeholder": "thumbhash"}, {"stage": "write", "path": "{stem}-{size}.{ext}"}"#
            let input = Fixtures.temporaryFolder("placeholder-in")
            try FileManager.default.copyItem(atPath: Fixtures.sample("heic/L_exif_xmp_iptc.heic"), toPath: input.appendingPathComponent("square.heic").path)
            let report = try InProcessExecutorTests.run(try InProcessExecutorTests.pipeline(stages), input: input, output: Fixtures.temporaryFolder())
            return report.items.first?.placeholder
        }
        let whole = try XCTUnwrap(try placeholder("[320]"))
        for sizes in [#"[320, {"width": 640, "height": 360}]"#, #"[{"width": 640, "height": 360}, 320]"#, #"[{"width": 48, "height": 27}, 320]"#] {
            XCTAssertEqual(try placeholder(sizes), whole, sizes)
        }
    }
}
