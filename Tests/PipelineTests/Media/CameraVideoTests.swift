import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// The videos a photo library holds beside phone movies, each made here by the ffmpeg CLI as the
/// camera writes it: every one is a video by its content, selected by `videos`, copied under its
/// own name (`.3g2` stays `.3g2`, `.AVI` stays `.AVI`), decodable to its end, and without location
/// where its container carries one. (A camera video is an `OriginalCopy`: no frame is decoded.)
final class CameraVideoTests: XCTestCase, RunsPipelines {
    /// name, ffmpeg's arguments after the test sources, the format sniffed, whether it is made with location.
    static let clips: [(name: String, arguments: [String], format: String, location: Bool)] = [
        ("MVI_0001.AVI", ["-c:v", "mjpeg", "-c:a", "pcm_s16le"], "avi", false),
        ("00001.MTS", ["-c:v", "libx264", "-c:a", "ac3", "-f", "mpegts", "-mpegts_m2ts_mode", "1"], "mts", false),
        ("broadcast.m2ts", ["-c:v", "libx264", "-c:a", "ac3", "-f", "mpegts"], "mts", false),
        ("MOV001.MPG", ["-c:v", "mpeg2video", "-c:a", "mp2", "-f", "mpeg"], "mpg", false),
        ("phone.3g2", ["-c:v", "mpeg4", "-c:a", "aac", "-f", "3g2"], "3g2", false),
        ("export.m4v", ["-c:v", "libx264", "-c:a", "aac", "-f", "ipod"], "m4v", true),
        ("remux.mkv", ["-c:v", "libx264", "-c:a", "aac"], "mkv", true),
        ("clip.webm", ["-c:v", "libvpx-vp9", "-c:a", "libopus", "-ar", "48000"], "webm", true),
        ("camera.wmv", ["-c:v", "wmv2", "-c:a", "wmav2"], "wmv", false),
    ]
    static let location = "+51.4169-000.0806/"
    static var input: URL!

    override class func setUp() {
        try! Vips.start()
        input = Fixtures.temporaryFolder("camera-videos")
        for clip in clips {
            let sources = ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-f", "lavfi", "-i", "sine=duration=1:sample_rate=48000"]
            let tagged = clip.location ? ["-metadata", "location=\(location)"] : []
            let made = try! runProcess("ffmpeg", ["-nostdin", "-v", "error"] + sources + clip.arguments + tagged
                                       + ["-shortest", input.appendingPathComponent(clip.name).path])
            precondition(made.exitCode == 0, "\(clip.name): \(made.stderr)")
        }
    }

    private func probe(_ path: String) throws -> String {
        try runProcess("ffprobe", ["-v", "error", "-show_entries", "stream=index,codec_type,codec_name", "-of", "compact", path]).stdout
    }

    private func formatTags(_ path: String) throws -> String {
        try runProcess("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "compact", path]).stdout
    }

    func testEveryCameraVideoIsCopiedUnderItsOwnNameDecodableWithoutLocation() throws {
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "filter", "match": "videos"}, {"stage": "stripLocation"}, {"stage": "write"}"#),
                                  input: Self.input, output: output)
        for clip in Self.clips {
            let item = try XCTUnwrap(result(report, clip.name))
            XCTAssertEqual(item.status, .ok, "\(clip.name): \(String(describing: item.error))")
            XCTAssertEqual(item.format, clip.format, clip.name)
            XCTAssertEqual(item.output, clip.name, "a copy keeps its own name and extension")
            let source = Self.input.appendingPathComponent(clip.name).path, written = output.appendingPathComponent(clip.name).path
            XCTAssertNotEqual(try probe(written), "", clip.name)
            XCTAssertEqual(try probe(written), try probe(source), "\(clip.name): every stream kept")
            let decode = try runProcess("ffmpeg", ["-nostdin", "-v", "error", "-i", written, "-f", "null", "-"])
            XCTAssertEqual(decode.exitCode, 0, clip.name)
            XCTAssertEqual(decode.stderr, "", clip.name)
            let sizes = try [source, written].map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
            XCTAssertEqual(sizes[0], sizes[1], "\(clip.name): edited in place")
            if clip.location {
                XCTAssertTrue(try formatTags(source).contains(Self.location), clip.name)
                XCTAssertFalse(try formatTags(written).contains(Self.location), clip.name)
                XCTAssertFalse(item.removedMetadata?.isEmpty ?? true, clip.name)
                XCTAssertEqual(try locationTags(written), [], clip.name)
            } else {
                XCTAssertEqual(FileManager.default.contents(atPath: written), FileManager.default.contents(atPath: source),
                               "\(clip.name): nothing to remove, copied byte for byte")
            }
        }
        XCTAssertEqual(report.items.count, Self.clips.count)
    }

    func testMatroskaKeepsEveryTagButItsLocation() throws {
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#), input: Self.input, output: output)
        XCTAssertEqual(result(report, "remux.mkv")?.removedMetadata, ["Tags/SimpleTag:LOCATION"])
        let source = try formatTags(Self.input.appendingPathComponent("remux.mkv").path)
        let written = try formatTags(output.appendingPathComponent("remux.mkv").path)
        XCTAssertEqual(written, source.replacingOccurrences(of: "|tag:LOCATION=\(Self.location)", with: ""))
        XCTAssertTrue(written.contains("tag:ENCODER=Lavf"), written)
    }

    /// `hasLocation` sees location where `stripLocation` removes it: QuickTime's and Matroska's.
    func testTheFilterSeesTheirLocation() throws {
        let report = try Self.run(try pipeline(#"{"stage": "filter", "match": {"hasLocation": true}}, {"stage": "write"}"#),
                                  input: Self.input, output: Fixtures.temporaryFolder(), dryRun: true)
        XCTAssertEqual(report.items.filter { $0.status == .planned }.map(\.input).sorted(), ["clip.webm", "export.m4v", "remux.mkv"])
    }

    func testPhotoPipelinesLeaveThemOut() throws {
        let report = try Self.run(try pipeline(#"{"stage": "filter", "match": "images"}, {"stage": "write"}"#),
                                  input: Self.input, output: Fixtures.temporaryFolder(), dryRun: true)
        XCTAssertEqual(report.items.filter { $0.status == .skipped }.count, Self.clips.count, "\(report.items.map(\.status))")
    }
}
