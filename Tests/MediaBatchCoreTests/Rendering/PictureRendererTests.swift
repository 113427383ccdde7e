import Foundation
import MediaFormats
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Every pipeline in `pipelines/` decodes each item at most once, whatever it makes of it (every
/// variant from one decode), and an item whose outputs are copies not at all: VipsKit counts its
/// decodes (debug builds), one item at a time. A smart crop (attention, entropy) libvips decodes is
/// decoded at its own size, as libvips' thumbnail makes it: once more for each after the first.
final class PictureRendererTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    /// One photo of each kind the pipelines treat apart: upright and sideways JPEG, HEIC, PNG,
    /// WebP, a Live Photo's still, a movie.
    static let items = ["jpeg/orientation/Landscape_1.jpg", "jpeg/orientation/Landscape_6.jpg", "heic/IMG_1034.heic",
                        "png/macos_screenshot_exif.png", "webp/iphone_x_exif_gps.webp", "livephoto/train.jpg", "video/sample.3gp"]

    func testEveryShippedPipelineDecodesAnItemOnceAtMost() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.pipelines.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 5)
        for file in files {
            let pipeline = try Pipeline.load(contentsOf: Fixtures.pipelines.appendingPathComponent(file))
            let text = try String(contentsOf: Fixtures.pipelines.appendingPathComponent(file), encoding: .utf8)
            // At most one decode for each size where smartcrop cuts (`PictureRenderer`).
            let smartSizes = text.contains(#""attention""#) || text.contains(#""entropy""#) ? 4 : 1
            var encodedAny = false
            for sample in Self.items {
                let before = VImage.decodes
                guard let encoded = try Self.encoded(sample, by: pipeline) else { continue }
                let decodes = VImage.decodes - before
                // A movie's poster frame is decoded by libavcodec (`LibAV.poster`), not libvips: none counted here.
                let libvips = encoded && !sample.hasPrefix("video/")
                if libvips && smartSizes > 1 {
                    XCTAssert((1...smartSizes).contains(decodes), "\(file): \(sample) decoded \(decodes) times")
                } else {
                    XCTAssertEqual(decodes, libvips ? 1 : 0, "\(file): \(sample) \(encoded ? "encoded from one decode" : "copied, not decoded")")
                }
                encodedAny = encodedAny || encoded
            }
            // These copy every file, editing its metadata in place.
            XCTAssertEqual(encodedAny, !["videos-copy.json", "library-by-date.json"].contains(file), file)
        }
    }

    /// Cuts and pads decode once too: several boxes from one decode, a stretched (`fill`) largest
    /// picture from a decode of the file's shape that covers every other; smartcrop's region from
    /// the picture in memory, each of the three decoded at its own size (a HEIC libavcodec decodes: once).
    func testFitsDecodeAnItemOnce() throws {
        let fits = [#""fit": "cover", "position": "attention""#, #""fit": "contain""#, #""fit": "fill""#]
        for fit in fits {
            let pipeline = try self.pipeline(#"{"stage": "decode"}, {"stage": "variants", "sizes": [{"width": 900, "height": 200}, 300, "#
                                             + #"{"width": 120, "height": 400}], "formats": ["jpeg"], \#(fit)}, "#
                                             + #"{"stage": "write", "path": "{stem}-{size}.{ext}"}"#)
            for sample in ["jpeg/orientation/Landscape_6.jpg", "heic/IMG_1034.heic"] {
                let before = VImage.decodes
                XCTAssertEqual(try Self.encoded(sample, by: pipeline), true, "\(fit): \(sample)")
                let decodes = VImage.decodes - before
                let expected = fit.contains("attention") && !sample.hasSuffix(".heic") ? 3 : 1
                XCTAssertEqual(decodes, expected, "\(fit): \(sample)")
            }
        }
    }

    /// Runs `pipeline` over `sample` alone, in this process: whether an output of it was
    /// encoded; nil when the pipeline wrote none (it filtered the sample out).
    static func encoded(_ sample: String, by pipeline: Pipeline) throws -> Bool? {
        let input = try folder(of: [sample]), output = Fixtures.temporaryFolder("decodes")
        let report = try run(pipeline, input: input, output: output, concurrency: 1)
        guard let item = report.items.first, item.status == .ok else { return nil }
        return try encoded(item, input: input, output: output)
    }

    /// Whether an output was encoded: its format, pixel size or coded image differs from its input's
    /// (a movie's: it has a poster).
    static func encoded(_ item: ItemResult, input: URL, output: URL) throws -> Bool {
        let outputs = item.variants?.map(\.path) ?? [item.output].compactMap { $0 }
        let sourcePath = input.appendingPathComponent(item.input).path
        // A movie: encoded where it has a poster.
        guard let source = try? VImage.open(sourcePath) else { return item.variants?.contains { $0.role == .poster } ?? false }
        return try outputs.contains { path in
            let written = output.appendingPathComponent(path).path, image = try VImage.open(written)
            let recoded = try CodedImage.data(of: written) != CodedImage.data(of: sourcePath)
            return image.loader != source.loader || image.width != source.width || image.height != source.height || recoded
        }
    }

    // MARK: Animations

    /// A stage's own operation (`PictureEffect`) is applied to the pictures that name it, after they
    /// are sized and converted, and to no other: the renderer knows the stage by its name only.
    func testAPictureEffectIsAppliedToThePicturesThatNameIt() throws {
        let planned = try Self.planned("jpeg/orientation/Landscape_6.jpg", #"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 200}, {"stage": "write"}"#)
        let plain = try XCTUnwrap(planned.plan.outputs.first?.picture), negated = plain.applying(Negated.name)
        XCTAssertFalse(negated.isUntouched, "a picture with an effect is encoded, not copied")
        let renderer = PictureRenderer(path: planned.item.input.path, pictures: [plain, negated], effects: [Negated.name: Negated()])
        let (a, b) = (try renderer.image(for: plain).pixels(), try renderer.image(for: negated).pixels())
        XCTAssertEqual(a.count, b.count)
        XCTAssertEqual(Set(zip(a, b).map { Int($0) + Int($1) }), [255], "each sample and its negative add up to 255")
    }
}

/// An operation of the test's own: each sample's negative.
private struct Negated: PictureEffect {
    static let syntax = [StageSyntax(spelling: "negated", help: "", options: []) { _ in Negated() }]
    static let placement = StagePlacement()
    var fingerprint: String { "negated" }

    func fingerprint(_ fingerprint: inout ItemFingerprint, format: MediaFormat?) {}

    func apply(to image: VImage, for picture: Picture) throws -> VImage {
        try image.mapped(through: (0...255).map { UInt8(255 - $0) })
    }
}
