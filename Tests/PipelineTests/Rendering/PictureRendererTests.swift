import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// Animations through whole runs: a GIF's and a WebP's frames, delays and loop kept in either
/// format, a GIF's transparency kept, and every frame cut alike by `cover`.
final class PictureRendererTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    /// An animated GIF and WebP made by pyvips (5 frames, 100–500 ms, 3 loops), in a folder of their own.
    static let animations: URL = {
        let folder = Fixtures.temporaryFolder("animations")
        try! Animations.make(in: folder)
        return folder
    }()

    func testAnimatedGIFAndWebPKeepEveryFrameTheirDelaysAndLoopInWebPAndGIF() throws {
        let output = Fixtures.temporaryFolder()
        // GIF and WebP each kept in its own format, and each made a WebP: a GIF → WebP among them.
        let report = try Self.run(try pipeline(#"""
            {"stage": "decode"}, {"stage": "variants", "sizes": [120], "formats": ["webp"], "quality": {"webp": 90}},
            {"stage": "write", "path": "{stem}-{size}.{ext}"}
            """#), input: Self.animations, output: output)
        let kept = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 120}, {"stage": "write"}"#),
                                input: Self.animations, output: output)
        XCTAssertEqual(report.totals.failed + kept.totals.failed, 0, "\(report.items) \(kept.items)")
        for (input, written) in [("animation-gif.gif", "animation-gif-120.webp"), ("animation-webp.webp", "animation-webp-120.webp"),
                                 ("animation-gif.gif", "animation-gif.gif"), ("animation-webp.webp", "animation-webp.webp")] {
            let read = try Animations.read(output.appendingPathComponent(written), against: Self.animations.appendingPathComponent(input))
            XCTAssertEqual([read.frames, read.width, read.frameHeight], [5, 120, 80], written)
            XCTAssertEqual(read.delays, [100, 200, 300, 400, 500], written)
            XCTAssertEqual(read.loop, 3, written)
            // Each frame is that frame of the input, resized as libvips' thumbnail resizes it.
            let limit = written.hasSuffix(".gif") ? 2.0 : 1.0 // GIF's 256-colour palette moves a mean by a level or two
            XCTAssertLessThanOrEqual(read.meanDifferences.max() ?? .infinity, limit, "\(written): \(read.meanDifferences)")
        }
        for written in ["animation-gif-120.webp", "animation-webp-120.webp", "animation-webp.webp"] {
            let info = try Animations.webpmuxInfo(output.appendingPathComponent(written))
            XCTAssertEqual(info.frames, 5, written)
            XCTAssertEqual(info.loop, 3, written)
            XCTAssertEqual(info.durations, [100, 200, 300, 400, 500], written)
        }
    }

    /// A GIF whose frames are opaque is resized without its alpha band (mediabatch's own 8-bit reduce); one with
    /// transparent pixels keeps it, resized by libvips with its alpha premultiplied. Both match libvips' thumbnail.
    func testAGIFWithTransparencyKeepsItsAlpha() throws {
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 120}, {"stage": "write"}"#,
                                               input: #"{"include": ["*-clear.gif"]}"#), input: Self.animations, output: output)
        XCTAssertEqual(report.totals.ok, 1, "\(report.items)")
        let written = output.appendingPathComponent("animation-clear.gif")
        let read = try Animations.read(written, against: Self.animations.appendingPathComponent("animation-clear.gif"))
        XCTAssertEqual([read.frames, read.width, read.frameHeight], [5, 120, 80])
        XCTAssertLessThanOrEqual(read.meanDifferences.max() ?? .infinity, 2.0, "\(read.meanDifferences)")
        let frames = try VImage.decode(written.path, allFrames: true)
        XCTAssertTrue(frames.hasAlpha)
        XCTAssertEqual(try frames.cropped(left: 0, top: 0, width: 30, height: 400).bandMeans()[3], 0, accuracy: 1,
                       "the left third of every frame is still transparent")
    }

    func testCoverCutsEveryFrameOfAnAnimationAlike() throws {
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"""
            {"stage": "decode"}, {"stage": "downsample", "width": 90, "height": 90, "fit": "cover"}, {"stage": "transcode", "to": "webp", "quality": 90},
            {"stage": "write"}
            """#), input: Self.animations, output: output)
        XCTAssertEqual(report.totals.failed, 0, "\(report.items)")
        let read = try Animations.read(output.appendingPathComponent("animation-gif.webp"),
                                       against: Self.animations.appendingPathComponent("animation-gif.gif"), crop: "centre")
        XCTAssertEqual([read.frames, read.width, read.frameHeight], [5, 90, 90])
        XCTAssertEqual(read.delays, [100, 200, 300, 400, 500])
        // Against libvips' thumbnail of each frame cut at the centre: a cut of the whole strip would fail every frame.
        XCTAssertLessThanOrEqual(read.meanDifferences.max() ?? .infinity, 1.0, "\(read.meanDifferences)")
    }
}
