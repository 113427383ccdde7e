import LibAVKit
import Foundation
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// `LibAV.rendition` on the corpus' movies and on clips the ffmpeg CLI makes here (rotated HEVC,
/// 10-bit HDR in PQ and HLG, full-range, 120 fps, already-fitting H.264), each rendition read back
/// by ffprobe and decoded to its end by the ffmpeg CLI, its pictures compared with the CLI's.
final class RenditionTests: XCTestCase {
    static let movies = ["video/iphone6_with-gps.mov", "video/loci_gps_issue515.mp4", "video/sample.3gp", "video/with-gps_xyz.mp4",
                         "video/xmp480qt.mov", "livephoto/train.mov"].map(Fixtures.sample)

    override class func setUp() {
        try! Vips.start()
    }

    static func settings(_ codec: RenditionSettings.Codec = .h264, crf: Int = 23, maxPixelSize: Int? = nil, maxFps: Int = 60,
                         audio: RenditionSettings.Audio = .aac, keepHDR: Bool = false, copyWhereFits: Bool = true) -> RenditionSettings {
        RenditionSettings(codec: codec, crf: crf, maxPixelSize: maxPixelSize, maxFps: maxFps, audio: audio, keepHDR: keepHDR,
                          copyWhereFits: copyWhereFits)
    }

    func render(_ path: String, _ settings: RenditionSettings, name: String? = nil) throws -> (path: String, facts: RenditionFacts) {
        let ext = settings.codec == .vp9 ? "webm" : "mp4"
        let output = Fixtures.temporaryFolder("renditions").appendingPathComponent(name ?? "\(UUID().uuidString).\(ext)").path
        let facts = try LibAV.rendition(of: path, to: output, settings) { $0 == "creation_time" }
        return (output, facts)
    }

    func video(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(try Movies.probe(path).streams.first { $0["codec_type"] as? String == "video" }, path)
    }

    func seconds(_ value: Any?) -> Double { Double(value as? String ?? "") ?? -1 }

    /// The frame at `seconds` of `path` as the CLI shows it through `filters`, as an image.
    func frame(_ path: String, at seconds: Double, _ filters: String) throws -> VImage {
        let png = Fixtures.temporaryFolder("renditions").appendingPathComponent("\(UUID().uuidString).png").path
        let made = try runProcess("ffmpeg", ["-v", "error", "-y", "-ss", String(format: "%.3f", seconds), "-i", path, "-frames:v", "1",
                                             "-vf", filters, png])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        return try VImage.decode(png).inMemory()
    }

    /// What every H.264 rendition must be: High profile, 8-bit 4:2:0 limited range, `size`, no
    /// rotation left, moov before mdat, the source's length within a frame, decodable to the end.
    func assertWebH264(_ output: String, source: String, size: [Int], file: StaticString = #filePath, line: UInt = #line) throws {
        let stream = try video(output), original = try video(source)
        XCTAssertEqual(stream["codec_name"] as? String, "h264", output, file: file, line: line)
        XCTAssertEqual(stream["profile"] as? String, "High", output, file: file, line: line)
        XCTAssertEqual(stream["pix_fmt"] as? String, "yuv420p", output, file: file, line: line)
        XCTAssertEqual([stream["width"] as? Int ?? 0, stream["height"] as? Int ?? 0], size, output, file: file, line: line)
        XCTAssertNil(stream["side_data_list"], "\(output): no display matrix left", file: file, line: line)
        let boxes = try Movies.topLevelBoxes(output)
        XCTAssertLessThan(try XCTUnwrap(boxes.firstIndex(of: "moov")), try XCTUnwrap(boxes.firstIndex(of: "mdat")), "faststart", file: file, line: line)
        let frame = 1 / (Double(try XCTUnwrap(original["nb_frames"] as? String).flatMap(Double.init) ?? 30) / max(seconds(original["duration"]), 0.001))
        XCTAssertEqual(seconds(stream["duration"]), seconds(original["duration"]), accuracy: frame * 1.01, output, file: file, line: line)
        XCTAssertEqual(try Movies.decodingErrors(output), "", output, file: file, line: line)
    }

    func testCorpusMoviesBecomeUprightH264ThatLooksLikeTheSource() throws {
        for source in Self.movies {
            let (output, facts) = try render(source, Self.settings(maxPixelSize: 480))
            let probe = try LibAV.probe(path: source)
            let turned = probe.rotationClockwise == 90 || probe.rotationClockwise == 270
            let shown = turned ? [probe.height ?? 0, probe.width ?? 0] : [probe.width ?? 0, probe.height ?? 0]
            let scale = min(1, 480 / Double(shown.max()!))
            let size = shown.map { Int((Double($0) * scale / 2).rounded()) * 2 }
            XCTAssertEqual([facts.width, facts.height], size, source)
            try assertWebH264(output, source: source, size: size)
            // The CLI turns the source upright itself; the same second, scaled alike, looks the same.
            let at = min(1, (probe.durationSeconds ?? 1) / 3)
            let mine = try frame(output, at: at, "format=rgb24")
            let theirs = try frame(source, at: at, "scale=\(size[0]):\(size[1]),format=rgb24")
            XCTAssertLessThanOrEqual(try mine.meanAbsoluteDifference(from: theirs), 4, "\(source) at \(at) s")
        }
    }

    /// A rotated HEVC clip as an iPhone films upright: turned in the pixels, no matrix left.
    func testARotatedHEVCClipIsTurnedInItsPixels() throws {
        let stored = try Movies.clip("stored.mov", "testsrc2=size=320x180:rate=30:duration=2",
                                     ["-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1"])
        let rotated = try Movies.rotated(stored, name: "rotated.mov")
        XCTAssertEqual(try LibAV.probe(path: rotated).rotationClockwise, 270)
        let (output, facts) = try render(rotated, Self.settings())
        XCTAssertFalse(facts.videoCopied)
        try assertWebH264(output, source: rotated, size: [180, 320])
        let theirs = try frame(rotated, at: 1, "format=rgb24")
        XCTAssertLessThanOrEqual(try frame(output, at: 1, "format=rgb24").meanAbsoluteDifference(from: theirs), 4)
    }

    /// PQ and HLG: tone-mapped to SDR BT.709 as the CLI's same chain does for H.264; kept as
    /// 10-bit with their transfer and BT.2020 for HEVC (tagged hvc1) and AV1.
    func testHDRIsToneMappedForH264AndKeptForHEVCAndAV1() throws {
        let toneMap = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
        for (name, transfer) in [("pq.mp4", "smpte2084"), ("hlg.mp4", "arib-std-b67")] {
            let hdr = try Movies.hdrClip(name, transfer: transfer)
            let (sdr, _) = try render(hdr, Self.settings())
            try assertWebH264(sdr, source: hdr, size: [320, 180])
            let tags = try video(sdr)
            XCTAssertEqual([tags["color_transfer"], tags["color_primaries"], tags["color_space"], tags["color_range"]].map { $0 as? String },
                           ["bt709", "bt709", "bt709", "tv"], name)
            let cli = try frame(hdr, at: 1, toneMap + ",format=rgb24")
            XCTAssertLessThanOrEqual(try frame(sdr, at: 1, "format=rgb24").meanAbsoluteDifference(from: cli), 4, name)
            XCTAssertGreaterThan(try frame(sdr, at: 1, "format=rgb24").meanAbsoluteDifference(from: try frame(hdr, at: 1, "format=rgb24")), 4,
                                 "\(name): tone mapping changed the picture")
            for codec in [RenditionSettings.Codec.hevc, .av1] {
                let (kept, facts) = try render(hdr, Self.settings(codec, crf: codec == .hevc ? 28 : 35, keepHDR: true, copyWhereFits: false))
                XCTAssertFalse(facts.videoCopied)
                let stream = try video(kept)
                XCTAssertEqual([stream["codec_name"], stream["pix_fmt"], stream["color_transfer"], stream["color_primaries"]].map { $0 as? String },
                               [codec.rawValue, "yuv420p10le", transfer, "bt2020"], "\(name) as \(codec)")
                if codec == .hevc { XCTAssertEqual(stream["codec_tag_string"] as? String, "hvc1") }
                XCTAssertEqual(try Movies.decodingErrors(kept), "", "\(name) as \(codec)")
            }
        }
    }

    /// `reencode: needed`: an H.264 MP4 that already fits is copied packet for packet (its sound
    /// too, AAC already); the same file with `always`, or with a smaller `maxPixelSize`, is encoded.
    func testAFittingH264MovieIsCopiedPacketForPacket() throws {
        let fitting = try Movies.clip("fitting.mp4", "testsrc2=size=320x180:rate=30:duration=2",
                                      ["-f", "lavfi", "-i", "sine=duration=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        let (copied, facts) = try render(fitting, Self.settings())
        XCTAssertTrue(facts.videoCopied)
        XCTAssertTrue(facts.audioCopied)
        XCTAssertEqual(try Movies.packetDigests(copied, stream: "v"), try Movies.packetDigests(fitting, stream: "v"))
        XCTAssertEqual(try Movies.packetDigests(copied, stream: "a"), try Movies.packetDigests(fitting, stream: "a"))
        let boxes = try Movies.topLevelBoxes(copied)
        XCTAssertLessThan(try XCTUnwrap(boxes.firstIndex(of: "moov")), try XCTUnwrap(boxes.firstIndex(of: "mdat")), "faststart")
        let (encoded, always) = try render(fitting, Self.settings(copyWhereFits: false))
        XCTAssertFalse(always.videoCopied)
        XCTAssertNotEqual(try Movies.packetDigests(encoded, stream: "v"), try Movies.packetDigests(fitting, stream: "v"))
        XCTAssertFalse(try render(fitting, Self.settings(maxPixelSize: 160)).facts.videoCopied, "smaller than the source: encoded")
    }

    /// Full-range 4:2:0 (`yuvj420p`, a camera's MJPEG-born H.264) does not fit: it is encoded to
    /// limited range with the same colours; 120 fps is dropped to `maxFps`.
    func testFullRangeAndFastMoviesAreEncodedToFit() throws {
        let full = try Movies.clip("full.mp4", "testsrc2=size=320x180:rate=30:duration=2", ["-c:v", "libx264", "-pix_fmt", "yuvj420p"])
        XCTAssertEqual(try video(full)["pix_fmt"] as? String, "yuvj420p")
        let (limited, facts) = try render(full, Self.settings())
        XCTAssertFalse(facts.videoCopied)
        try assertWebH264(limited, source: full, size: [320, 180])
        XCTAssertNotEqual(try video(limited)["color_range"] as? String, "pc", "limited range (x264 states none where it is limited)")
        XCTAssertLessThanOrEqual(try frame(limited, at: 1, "format=rgb24").meanAbsoluteDifference(from: try frame(full, at: 1, "format=rgb24")), 4)
        let fast = try Movies.clip("fast.mp4", "testsrc2=size=320x180:rate=120:duration=2", ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let (capped, cappedFacts) = try render(fast, Self.settings(maxFps: 60))
        XCTAssertEqual(try video(capped)["avg_frame_rate"] as? String, "60/1")
        XCTAssertEqual(cappedFacts.frames, 120, accuracy: 1)
        XCTAssertEqual(try Movies.decodingErrors(capped), "")
    }

    /// A movie whose timestamps run on a 600 Hz clock of their own, no two frames the same distance
    /// apart (a FLIR thermal camera's): the CLI's own decode of it rounds frames onto one instant
    /// ("non monotonically increasing dts"). Its rendition is retimed to its average rate, as the
    /// CLI's MP4 output is, decodes clean and keeps the source's length within a frame.
    func testAMovieOnAClockOfItsOwnIsRetimedToPlayEverywhere() throws {
        let source = try Movies.clip("own-clock.mp4", "testsrc2=size=160x120:rate=30", [
            "-frames:v", "84", "-vf", "settb=1/600,setpts='(N*0.135+0.04*sin(N*1.7))/TB'", "-fps_mode", "passthrough",
            // The encoder's clock and the stream's stated rate at 600 Hz (FFmpeg 7.1 refuses `-r` beside passthrough).
            "-enc_time_base", "1/600", "-x264-params", "fps=600", "-video_track_timescale", "600", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        XCTAssertEqual(try video(source)["r_frame_rate"] as? String, "600/1")
        XCTAssertNotEqual(try Movies.decodingErrors(source), "", "the source itself trips the CLI")
        let (output, facts) = try render(source, Self.settings())
        try assertWebH264(output, source: source, size: [160, 120])
        let stream = try video(output)
        XCTAssertEqual(stream["r_frame_rate"] as? String, stream["avg_frame_rate"] as? String, "a constant rate")
        XCTAssertEqual(facts.frames, 84, accuracy: 2)
    }

    /// Sound as asked: AAC, Opus (VP9's WebM too), none, or copied where the container holds it.
    /// Pictures 160 px: the sound is the point.
    func testSoundIsEncodedCopiedOrLeftOutAsAsked() throws {
        let source = Fixtures.sample("video/iphone6_with-gps.mov")
        func audio(_ path: String) throws -> String? {
            try Movies.probe(path).streams.first { $0["codec_type"] as? String == "audio" }?["codec_name"] as? String
        }
        XCTAssertEqual(try audio(render(source, Self.settings(maxPixelSize: 160, audio: .opus)).path), "opus")
        XCTAssertNil(try audio(render(source, Self.settings(maxPixelSize: 160, audio: .none)).path))
        let copied = try render(source, Self.settings(maxPixelSize: 160, audio: .copy))
        XCTAssertEqual([try audio(copied.path), copied.facts.audioCodec], ["aac", "aac"])
        XCTAssertTrue(copied.facts.audioCopied)
        let webm = try render(source, Self.settings(.vp9, crf: 33, maxPixelSize: 160, audio: .opus))
        let stream = try video(webm.path)
        XCTAssertEqual([stream["codec_name"] as? String, try audio(webm.path)], ["vp9", "opus"])
        XCTAssertEqual(try Movies.probe(webm.path).format["format_name"] as? String, "matroska,webm")
        XCTAssertEqual(try Movies.decodingErrors(webm.path), "")
        // 3GP's AMR has no place in MP4: copy becomes AAC.
        let amr = try render(Fixtures.sample("video/sample.3gp"), Self.settings(maxPixelSize: 160, audio: .copy))
        XCTAssertEqual([try audio(amr.path), amr.facts.audioCodec], ["aac", "aac"])
        XCTAssertFalse(amr.facts.audioCopied)
    }

    /// No video stream, a movie cut off mid-stream, a file that is no movie: clear failures.
    func testMoviesThatCannotBeRenderedFailClearly() throws {
        let audio = try Movies.clip("audio-only.m4a", "sine=duration=1", ["-c:a", "aac"])
        XCTAssertThrowsError(try render(audio, Self.settings())) { error in
            XCTAssertEqual((error as? LibAVError)?.code, .noPicture, "\(error)")
        }
        let whole = try Movies.clip("whole.mp4", "testsrc2=size=320x180:rate=30:duration=6",
                                    ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"])
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = Fixtures.temporaryFolder("renditions").appendingPathComponent("cut.mp4")
        try data.prefix(data.count / 3).write(to: cut)
        XCTAssertThrowsError(try render(cut.path, Self.settings(copyWhereFits: false))) { error in
            XCTAssertEqual((error as? LibAVError)?.code, .failed, "\(error)")
            XCTAssertTrue("\(error)".contains("cut off"), "\(error)")
        }
    }

    /// The RFC 6381 `codecs` parameter agrees with the profile and level ffprobe reads from the
    /// same file (H.264 `avc1.PPCCLL`, HEVC `hvc1.P.C.Lnn.B`, AV1 `av01.P.LLT.DD`).
    func testCodecsParametersNameTheProfileAndLevelWritten() throws {
        let source = Fixtures.sample("livephoto/train.mov")
        for (codec, crf) in [(RenditionSettings.Codec.h264, 23), (.hevc, 28), (.av1, 35)] {
            let (output, _) = try render(source, Self.settings(codec, crf: crf, maxPixelSize: 640))
            let codecs = try XCTUnwrap(LibAV.codecsParameter(of: output), "\(codec)")
            let stream = try video(output)
            let level = try XCTUnwrap(stream["level"] as? Int)
            switch codec {
            case .h264: XCTAssertEqual(codecs, String(format: "avc1.64%02X%02X", 0, level), "High profile, level \(level)")
            case .hevc: XCTAssertTrue(codecs.hasPrefix("hvc1.1.6.L\(level)."), "\(codecs): Main profile, level \(level)")
            default: XCTAssertEqual(codecs, String(format: "av01.0.%02dM.08", level), "Main profile, level \(level)")
            }
        }
        let hdr = try Movies.hdrClip("pq-codecs.mp4", transfer: "smpte2084")
        let (main10, _) = try render(hdr, Self.settings(.hevc, crf: 28, keepHDR: true))
        XCTAssertTrue(try XCTUnwrap(LibAV.codecsParameter(of: main10)).hasPrefix("hvc1.2.4.L"), "Main 10")
    }
}
