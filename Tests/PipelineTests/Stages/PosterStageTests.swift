import LibAVKit
import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// `poster` in runs over real movies: each movie keeps its own output (location stripped) and
/// gains a poster that the image stages after `poster` shape as a still's picture; stills pass
/// through; changing only the poster's time redoes only the poster.
final class PosterStageTests: XCTestCase, RunsPipelines {
    static let movies = ["video/iphone6_with-gps.mov", "video/with-gps_xyz.mp4", "video/sample.3gp", "livephoto/train.mov"]

    override func setUpWithError() throws {
        try Vips.start()
    }

    func testAPosterGoesThroughTheImageStagesBesideItsMovie() throws {
        let input = try Self.folder(of: Self.movies + ["jpeg/orientation/Landscape_6.jpg"]), output = Fixtures.temporaryFolder()
        let stages = #"""
            {"stage": "decode"}, {"stage": "poster"}, {"stage": "downsample", "maxPixelSize": 320},
            {"stage": "transcode", "to": "webp"}, {"stage": "stripLocation"}, {"stage": "write"}
            """#
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        for movie in Self.movies.map({ ($0 as NSString).lastPathComponent }) {
            let item = try XCTUnwrap(result(report, movie))
            XCTAssertEqual(item.status, .ok, "\(movie): \(String(describing: item.error))")
            let outputs = try XCTUnwrap(item.variants, movie)
            XCTAssertEqual(outputs.map(\.role), [.video, .poster], movie)
            XCTAssertEqual(outputs.first?.path, movie, "the movie's own output, as before")
            XCTAssertEqual(try locationTags(output.appendingPathComponent(movie).path), [], movie)
            let stem = (movie as NSString).deletingPathExtension
            let poster = try VImage.decode(output.appendingPathComponent("\(stem).poster.webp").path)
            let probe = try LibAV.probe(path: input.appendingPathComponent(movie).path)
            let frame = try XCTUnwrap(try LibAV.probe(path: input.appendingPathComponent(movie).path).shownFrame, movie)
            XCTAssertEqual(max(poster.width, poster.height), min(320, frame.longestSide), movie)
            XCTAssertEqual(poster.width > poster.height, frame.width > frame.height, "\(movie): upright (rotation \(probe.rotationClockwise ?? 0))")
        }
        let still = try XCTUnwrap(result(report, "Landscape_6.jpg"))
        XCTAssertEqual(still.output, "Landscape_6.webp")
        XCTAssertNil(still.variants, "a still has one output, as before")
    }

    /// `movie: drop`: each movie gives its poster alone (nothing else in the output folder but the
    /// still's), sized and upright as with the movie kept.
    func testDroppingTheMovieWritesThePosterAlone() throws {
        let input = try Self.folder(of: Self.movies + ["jpeg/orientation/Landscape_6.jpg"]), output = Fixtures.temporaryFolder()
        let stages = #"""
            {"stage": "decode"}, {"stage": "poster", "movie": "drop"}, {"stage": "downsample", "maxPixelSize": 320},
            {"stage": "write", "path": "{stem}.{ext}"}
            """#
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        var expected = ["Landscape_6.jpg"]
        for movie in Self.movies.map({ ($0 as NSString).lastPathComponent }) {
            let item = try XCTUnwrap(result(report, movie))
            XCTAssertEqual(item.status, .ok, "\(movie): \(String(describing: item.error))")
            let stem = (movie as NSString).deletingPathExtension
            XCTAssertEqual(item.output, "\(stem).poster.jpg", movie)
            XCTAssertNil(item.variants, "\(movie): one output, as a still's")
            let poster = try VImage.decode(output.appendingPathComponent("\(stem).poster.jpg").path)
            let frame = try XCTUnwrap(try LibAV.probe(path: input.appendingPathComponent(movie).path).shownFrame, movie)
            XCTAssertEqual(max(poster.width, poster.height), min(320, frame.longestSide), movie)
            XCTAssertEqual(poster.width > poster.height, frame.width > frame.height, "\(movie): upright")
            expected.append("\(stem).poster.jpg")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(written.sorted(), expected.sorted(), "no movie written")
    }

    /// `movie: drop` on a file with sound alone: it has no picture to give a poster, so it keeps its own output,
    /// the file as it is, and nothing else is written for it.
    func testDroppingTheMovieOfASoundOnlyFileKeepsTheFile() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        let sound = input.appendingPathComponent("sound.mp4")
        try FileManager.default.copyItem(atPath: try Movies.clip("sound.mp4", "sine=duration=1", ["-c:a", "aac"]), toPath: sound.path)
        let stages = #"""
            {"stage": "decode"}, {"stage": "poster", "movie": "drop"}, {"stage": "downsample", "maxPixelSize": 320},
            {"stage": "write", "path": "{stem}.{ext}"}
            """#
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        let item = try XCTUnwrap(result(report, "sound.mp4"))
        XCTAssertEqual(item.status, .ok, String(describing: item.error))
        XCTAssertEqual(item.output, "sound.mp4")
        XCTAssertNil(item.variants)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }, ["sound.mp4"])
        XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent("sound.mp4")), try Data(contentsOf: sound))
        XCTAssertEqual(try LibAV.probe(path: output.appendingPathComponent("sound.mp4").path).streams.map(\.kind), ["audio"])
    }

    /// Dropping the movie after a run that kept it: the poster stands as written, the movie is
    /// named stale, and `--prune` removes it.
    func testDroppingTheMovieLaterLeavesThePosterAndPrunesTheMovie() throws {
        let input = try Self.folder(of: ["video/with-gps_xyz.mp4"]), output = Fixtures.temporaryFolder()
        let state = Fixtures.temporaryFolder().appendingPathComponent("state.sqlite")
        func run(_ movie: String, prune: Bool = false) throws -> RunReport {
            try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "poster", "movie": "\#(movie)"}, {"stage": "write"}"#),
                         input: input, output: output, statePath: state, prune: prune)
        }
        XCTAssertEqual(try run("keep").items.first?.variants?.map(\.reused), [false, false])
        let poster = try Data(contentsOf: output.appendingPathComponent("with-gps_xyz.poster.jpg"))
        let dropped = try run("drop")
        XCTAssertEqual(dropped.items.first?.output, "with-gps_xyz.poster.jpg")
        XCTAssertEqual(dropped.summary.staleOutputs, ["with-gps_xyz.mp4"])
        XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent("with-gps_xyz.poster.jpg")), poster, "not made again")
        XCTAssertEqual(try run("drop", prune: true).summary.staleOutputs, [])
        let left = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(left, ["with-gps_xyz.poster.jpg"])
    }

    /// Every variant of a poster, sized as a still's; the manifest says which output is which.
    func testAPostersVariantsAreItsOwn() throws {
        let input = try Self.folder(of: ["video/iphone6_with-gps.mov"]), output = Fixtures.temporaryFolder()
        let stages = #"""
            {"stage": "decode"}, {"stage": "poster", "at": "50%"},
            {"stage": "variants", "sizes": [160, {"width": 200, "height": 200}], "formats": ["jpeg", "webp"], "fit": "cover"},
            {"stage": "write", "path": "{stem}-{size}.{ext}", "posterPath": "posters/{stem}-{size}.{ext}"}
            """#
        let report = try Self.run(try pipeline(stages), input: input, output: output)
        let outputs = try XCTUnwrap(result(report, "iphone6_with-gps.mov")?.variants)
        XCTAssertEqual(outputs.dropFirst().map(\.path), ["posters/iphone6_with-gps-160.jpg", "posters/iphone6_with-gps-160.webp",
                                                         "posters/iphone6_with-gps-200x200.jpg", "posters/iphone6_with-gps-200x200.webp"])
        XCTAssertEqual(outputs.map(\.role), [.video, .poster, .poster, .poster, .poster])
        for variant in outputs.dropFirst() {
            let image = try VImage.decode(output.appendingPathComponent(variant.path).path)
            XCTAssertEqual([image.width, image.height], [variant.width, variant.height], variant.path)
        }
        XCTAssertEqual(outputs.dropFirst().map { [$0.width, $0.height] }, [[160, 160], [160, 160], [200, 200], [200, 200]], "cut to the boxes")
        XCTAssertEqual([outputs[0].width, outputs[0].height], [320, 568], "the movie as shown, turned upright")
    }

    /// An incremental run after only the poster's time changed: the poster is made again, the
    /// movie's output stands as written.
    func testChangingThePostersTimeRedoesThePosterOnly() throws {
        let input = try Self.folder(of: ["video/with-gps_xyz.mp4"]), output = Fixtures.temporaryFolder()
        let state = Fixtures.temporaryFolder().appendingPathComponent("state.sqlite")
        func run(_ at: String) throws -> [ItemResult.Variant] {
            let stages = #"{"stage": "decode"}, {"stage": "poster", "at": \#(at)}, {"stage": "stripLocation"}, {"stage": "write"}"#
            return try XCTUnwrap(Self.run(try pipeline(stages), input: input, output: output, statePath: state).items.first?.variants)
        }
        XCTAssertEqual(try run("\"auto\"").map(\.reused), [false, false])
        let movie = try Data(contentsOf: output.appendingPathComponent("with-gps_xyz.mp4"))
        XCTAssertEqual(try run("0.5").map(\.reused), [true, false])
        XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent("with-gps_xyz.mp4")), movie)
    }
}
