import LibAVKit
import Foundation
import TestSupport
import XCTest

/// `LibAV.probe` on real movies, judged by what ffprobe (Debian's FFmpeg 5.1) and exiftool
/// report for the same files.
final class VideoProbeTests: XCTestCase {
    private let movies = ["iphone6_with-gps.mov", "loci_gps_issue515.mp4", "sample.3gp", "with-gps_xyz.mp4", "xmp480qt.mov"]
        .map { Fixtures.sample("video/\($0)") }
        + ["cinematic-rendered-keyonly.mov", "cinematic.mov", "highfps-120fps-fullrate.mov", "plain-30fps.mov",
           "screen-recording-ios.mp4", "slomo-120fps-intent0.mov", "slomo-240fps.mov", "slomo-exported-30fps.mov", "spatial.mov",
           "timelapse.mov"]
        .map { Fixtures.fixtures.appendingPathComponent("kinds/videos/\($0)").path }

    func testReadsWhatFFprobeReads() throws {
        for path in movies {
            let probe = try LibAV.probe(path: path)
            let report = try FFprobeReport(path)
            XCTAssertEqual(probe.container, report.format.formatName, path)
            XCTAssertEqual(probe.streams.map(\.kind), report.streams.map(\.codecType), path)
            // ffprobe leaves out the name of a codec libavcodec does not know (the data tracks of
            // an iPhone movie); avcodec_get_name calls it "none".
            XCTAssertEqual(probe.streams.map(\.codec), report.streams.map { $0.codecName ?? "none" }, path)
            XCTAssertEqual(try XCTUnwrap(probe.durationSeconds, path), try XCTUnwrap(Double(report.format.duration)), accuracy: 1e-6, path)
            let video = try XCTUnwrap(report.streams.first { $0.codecType == "video" }, path)
            XCTAssertEqual(probe.width, video.width, path)
            XCTAssertEqual(probe.height, video.height, path)
            let framesPerSecond = try XCTUnwrap(FFprobeReport.rate(video.avgFrameRate) ?? FFprobeReport.rate(video.rFrameRate), path)
            XCTAssertEqual(try XCTUnwrap(probe.framesPerSecond, path), framesPerSecond, accuracy: 1e-9, path)
            // ffprobe's `rotation` is the display matrix's angle, counterclockwise; VideoProbe's
            // counts clockwise, as exiftool's Rotation does. No matrix means no rotation.
            let counterclockwise = video.sideDataList?.compactMap(\.rotation).first ?? 0
            XCTAssertEqual(probe.rotationClockwise, (360 - counterclockwise % 360) % 360, path)
            XCTAssertEqual(probe.rotationClockwise, try exiftool(path, ["-Rotation"])["Composite:Rotation"] as? Int, path)
        }
    }

    func testReadsTheRotationOfAPortraitIPhoneMovie() throws {
        // Filmed upright, stored landscape: a player turns it 90° clockwise (ffprobe: -90).
        let probe = try LibAV.probe(path: Fixtures.sample("video/iphone6_with-gps.mov"))
        XCTAssertEqual(probe.rotationClockwise, 90)
        XCTAssertEqual([probe.width, probe.height], [568, 320])
    }

    func testTruncatedMovieThrowsWithAMessage() throws {
        let truncated = Fixtures.broken.appendingPathComponent("iphone6_with-gps_truncated_50pct.mov").path
        XCTAssertThrowsError(try LibAV.probe(path: truncated)) { error in
            // Cut in half, the movie lost its `moov` atom, which libavformat needs to open it.
            let failure = error as? LibAVError
            XCTAssertEqual(failure?.operation, "open")
            XCTAssertEqual(failure?.message, "Invalid data found when processing input")
        }
    }

    func testFileThatIsNoVideoThrowsWithAMessage() throws {
        // Text: libavformat opens a JPEG as a one-frame `image2` video.
        let text = Fixtures.fixtures.appendingPathComponent("no-roots.json").path
        XCTAssertThrowsError(try LibAV.probe(path: text)) { error in
            let failure = error as? LibAVError
            XCTAssertEqual(failure?.operation, "open")
            XCTAssertEqual(failure?.message, "Invalid data found when processing input")
        }
    }
}

/// The part of `ffprobe -of json` compared above.
private struct FFprobeReport: Decodable {
    struct Stream: Decodable {
        struct SideData: Decodable {
            let rotation: Int?
        }

        let codecType: String
        let codecName: String?
        let width: Int?
        let height: Int?
        let rFrameRate: String
        let avgFrameRate: String
        let sideDataList: [SideData]?
    }

    struct Format: Decodable {
        let formatName: String
        let duration: String
    }

    struct Failure: Error {
        let message: String
    }

    let streams: [Stream]
    let format: Format

    init(_ path: String) throws {
        let entries = "format=format_name,duration:stream=codec_type,codec_name,width,height,r_frame_rate,avg_frame_rate"
            + ":stream_side_data=rotation"
        let result = try runProcess("ffprobe", ["-v", "error", "-show_entries", entries, "-of", "json", path])
        guard result.exitCode == 0 else { throw Failure(message: result.stderr) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        self = try decoder.decode(Self.self, from: Data(result.stdout.utf8))
    }

    /// A rate as ffprobe prints it ("30000/1001"); nil for its unknown "0/0".
    static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        return parts[0] / parts[1]
    }
}
