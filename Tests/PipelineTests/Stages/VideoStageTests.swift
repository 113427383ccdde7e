import Foundation
import LibAVKit
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// `video` in runs over real movies: each movie becomes one rendition per codec (named by
/// `{codec}`) beside its poster, location gone and date, camera and Live Photo identifier kept as
/// exiftool reads them; stills pass through; a rendition's settings redo renditions only, a
/// poster's the poster only; the movie limits and movies with nothing to render fail the item.
final class VideoStageTests: XCTestCase, RunsPipelines {
    static let movies = ["video/iphone6_with-gps.mov", "video/sample.3gp", "livephoto/train.mov"]

    override func setUpWithError() throws {
        try Vips.start()
    }

    func stages(codec: String = #"["av1", "h264"]"#, quality: String = "", at: String = "\"auto\"") -> String {
        #"""
        {"stage": "decode"}, {"stage": "poster", "at": \#(at)},
        {"stage": "video", "codec": \#(codec), "maxPixelSize": 480\#(quality)},
        {"stage": "downsample", "maxPixelSize": 320}, {"stage": "write", "path": "{stem}.{codec}.{ext}"}
        """#
    }

    func testEachMovieGetsARenditionPerCodecBesideItsPoster() throws {
        let input = try Self.folder(of: Self.movies + ["jpeg/orientation/Landscape_6.jpg"]), output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(stages()), input: input, output: output)
        for movie in Self.movies.map({ ($0 as NSString).lastPathComponent }) {
            let item = try XCTUnwrap(result(report, movie))
            XCTAssertEqual(item.status, .ok, "\(movie): \(String(describing: item.error))")
            let outputs = try XCTUnwrap(item.variants, movie)
            XCTAssertEqual(outputs.map(\.role), [.video, .video, .poster], movie)
            XCTAssertEqual(outputs.map(\.codec), ["av1", "h264", nil], movie)
            let stem = (movie as NSString).deletingPathExtension
            XCTAssertEqual(outputs.map(\.path), ["\(stem).av1.mp4", "\(stem).h264.mp4", "\(stem).poster.jpg"], movie)
            for rendition in outputs.prefix(2) {
                let path = output.appendingPathComponent(rendition.path).path
                let stream = try XCTUnwrap(try Movies.probe(path).streams.first { $0["codec_type"] as? String == "video" })
                XCTAssertEqual(stream["codec_name"] as? String, rendition.codec, rendition.path)
                XCTAssertEqual([stream["width"] as? Int, stream["height"] as? Int], [rendition.width, rendition.height], rendition.path)
                XCTAssertLessThanOrEqual(max(rendition.width, rendition.height), 480, rendition.path)
                XCTAssertEqual(try locationTags(path), [], rendition.path)
                XCTAssertEqual(try Movies.decodingErrors(path), "", rendition.path)
                let source = try exiftool(input.appendingPathComponent(movie).path), written = try exiftool(path)
                for tag in ["QuickTime:CreateDate", "Keys:Make", "Keys:Model", "Keys:CreationDate", "Keys:ContentIdentifier"] {
                    XCTAssertEqual(written[tag] as? String, source[tag] as? String, "\(rendition.path): \(tag)")
                }
            }
        }
        XCTAssertEqual(try exiftool(output.appendingPathComponent("train.h264.mp4").path)["Keys:ContentIdentifier"] as? String,
                       "E905E6C6-C747-4805-942F-9904A0281F02", "the Live Photo's movie keeps its identifier")
        XCTAssertEqual(result(report, "iphone6_with-gps.mov")?.removedMetadata, ["QuickTime location (com.apple.quicktime.location.ISO6709)"],
                       "named once for both renditions")
        XCTAssertEqual(result(report, "Landscape_6.jpg")?.output, "Landscape_6.jpg", "a still passes through")
    }

    /// Incremental per output: a rendition's quality redoes the renditions and leaves the poster;
    /// the poster's time redoes the poster and leaves the renditions.
    func testRenditionsAndPostersAreRedoneApart() throws {
        let input = try Self.folder(of: ["video/iphone6_with-gps.mov"]), output = Fixtures.temporaryFolder()
        let state = Fixtures.temporaryFolder().appendingPathComponent("state.sqlite")
        func run(_ stages: String) throws -> [Bool] {
            let item = try XCTUnwrap(Self.run(try pipeline(stages), input: input, output: output, statePath: state).items.first)
            return try XCTUnwrap(item.variants, "\(String(describing: item.error))").map(\.reused)
        }
        XCTAssertEqual(try run(stages(codec: "\"h264\"")), [false, false])
        XCTAssertEqual(try run(stages(codec: "\"h264\"", quality: #", "quality": 30"#)), [false, true])
        XCTAssertEqual(try run(stages(codec: "\"h264\"", quality: #", "quality": 30"#, at: "1")), [true, false])
    }

    /// The movie limits, from the header; a file with sound only, or cut off: failed, nothing published.
    func testMoviesOverTheLimitsOrWithoutPicturesFail() throws {
        let input = try Self.folder(of: ["video/iphone6_with-gps.mov", "video/sample.3gp"]), output = Fixtures.temporaryFolder()
        let short = try Self.run(try pipeline(stages(codec: "\"h264\""), limits: #"{"maxVideoDuration": "4s"}"#), input: input, output: output)
        XCTAssertEqual(short.items.map { $0.error?.code }, [.tooLong, .tooLong], "4.0017 s and 4.93 s")
        let few = try Self.run(try pipeline(stages(codec: "\"h264\""), limits: #"{"maxVideoFrames": 100}"#), input: input, output: output)
        XCTAssertEqual(result(few, "iphone6_with-gps.mov")?.error?.code, .tooManyFrames, "120 frames")
        XCTAssertEqual(result(few, "sample.3gp")?.status, .ok, "74 frames")
        let small = try Self.run(try pipeline(stages(codec: "\"h264\""), limits: #"{"maxPixels": 30000}"#), input: input, output: output)
        XCTAssertEqual(result(small, "iphone6_with-gps.mov")?.error?.code, .tooManyPixels, "568×320")
        XCTAssertNil(result(small, "sample.3gp")?.error, "176×144")
        let sound = try Movies.clip("sound.mp4", "sine=duration=1", ["-c:a", "aac"])
        let whole = try Movies.clip("whole.mp4", "testsrc2=size=320x180:rate=30:duration=6",
                                    ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let movies = Fixtures.temporaryFolder()
        try FileManager.default.copyItem(atPath: sound, toPath: movies.appendingPathComponent("sound.mp4").path)
        try bytes.prefix(bytes.count * 2 / 5).write(to: movies.appendingPathComponent("cut.mp4"))
        let empty = Fixtures.temporaryFolder()
        let failed = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "video", "reencode": "always"}, {"stage": "write"}"#),
                                  input: movies, output: empty)
        XCTAssertEqual(result(failed, "sound.mp4")?.error?.code, .decodeFailed)
        XCTAssertTrue(result(failed, "sound.mp4")?.error?.message.contains("no video stream") == true)
        XCTAssertEqual(result(failed, "cut.mp4")?.error?.code, .decodeFailed)
        XCTAssertTrue(result(failed, "cut.mp4")?.error?.message.contains("cut off") == true, "\(String(describing: result(failed, "cut.mp4")?.error))")
        let left = try FileManager.default.subpathsOfDirectory(atPath: empty.path).filter { !$0.hasPrefix(".mediabatch") }
        XCTAssertEqual(left, [], "nothing partial published")
    }
}
