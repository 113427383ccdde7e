import LibAVKit
import Foundation
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// `LibAV.poster` on real movies and on clips the ffmpeg CLI makes here (rotated HEVC, 10-bit
/// HDR in PQ and HLG, black openings, blurred frames), each poster judged against the frame the
/// ffmpeg CLI gives at the same time through the same filters.
final class PosterTests: XCTestCase {
    static let movies = ["video/iphone6_with-gps.mov", "video/loci_gps_issue515.mp4", "video/sample.3gp", "video/with-gps_xyz.mp4",
                         "video/xmp480qt.mov", "livephoto/train.mov"].map(Fixtures.sample)
    /// The tone mapping of `LibAV.toneMapping`, as the CLI spells it.
    static let toneMap = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,zscale=t=iec61966-2-1:m=bt709:r=pc"

    override class func setUp() {
        try! Vips.start()
    }

    static func clip(_ name: String, _ input: String, _ options: [String]) throws -> String {
        try Movies.clip(name, input, options, folder: "posters")
    }

    /// The CLI's frame at `seconds` (a quarter frame early, so rounding cannot skip it) through
    /// `filters`, as an image (the CLI turns the picture upright itself).
    func cliFrame(_ path: String, _ seconds: Double, _ filters: String) throws -> VImage {
        let png = Fixtures.temporaryFolder("posters").appendingPathComponent("cli.png").path
        let start = String(format: "%.6f", max(0, seconds - 0.25 / 30))
        let made = try runProcess("ffmpeg", ["-v", "error", "-y", "-ss", start, "-i", path, "-frames:v", "1", "-vf", filters, png])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
        return try VImage.decode(png).inMemory()
    }

    func image(_ poster: PosterFrame) throws -> VImage {
        try VImage.fromPixels(poster.rgb, width: poster.width, height: poster.height, bands: 3)
    }

    func assertMatchesTheCLI(_ path: String, _ poster: PosterFrame, filters: String = "format=rgb24",
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let cli = try cliFrame(path, poster.seconds, filters)
        XCTAssertEqual([poster.width, poster.height], [cli.width, cli.height], path, file: file, line: line)
        let difference = try image(poster).meanAbsoluteDifference(from: cli)
        XCTAssertLessThanOrEqual(difference, 4, "\(path) at \(poster.seconds) s", file: file, line: line)
    }

    func testCorpusMoviesPostersAreUprightShowSomethingAndAreTheCLIsFrame() throws {
        for path in Self.movies {
            let poster = try LibAV.poster(path: path, at: .auto)
            let probe = try LibAV.probe(path: path)
            let turned = probe.rotationClockwise == 90 || probe.rotationClockwise == 270
            XCTAssertEqual([poster.width, poster.height], turned ? [probe.height, probe.width] : [probe.width, probe.height], path)
            // Neither black nor washed out: sample.3gp opens on two seconds of white, its poster is later.
            let mean = try image(poster).bandMeans().reduce(0, +) / 3
            XCTAssertTrue((24...240).contains(mean), "\(path): mean \(mean) at \(poster.seconds) s")
            XCTAssertFalse(poster.toneMapped, path)
            try assertMatchesTheCLI(path, poster)
        }
    }

    /// A rotated HEVC clip (an iPhone's, filmed upright), and 10-bit HDR in PQ and HLG: upright,
    /// tone-mapped as the CLI tone-maps them.
    func testRotatedAndHDRClipsAreUprightAndToneMappedAsTheCLIDoes() throws {
        let stored = try Self.clip("stored.mov", "testsrc2=size=320x180:rate=30:duration=3",
                                   ["-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1"])
        let rotated = try Movies.rotated(stored, name: "rotated.mov")
        XCTAssertEqual(try LibAV.probe(path: rotated).rotationClockwise, 270)
        let poster = try LibAV.poster(path: rotated, at: .seconds(1))
        XCTAssertEqual([poster.width, poster.height], [180, 320], "turned a quarter")
        try assertMatchesTheCLI(rotated, poster)
        for (name, transfer) in [("pq.mp4", "smpte2084"), ("hlg.mp4", "arib-std-b67")] {
            let hdr = try Movies.hdrClip(name, transfer: transfer)
            let poster = try LibAV.poster(path: hdr, at: .auto)
            XCTAssertTrue(poster.toneMapped, name)
            try assertMatchesTheCLI(hdr, poster, filters: Self.toneMap + ",format=rgb24")
            let untoned = try cliFrame(hdr, poster.seconds, "format=rgb24")
            XCTAssertGreaterThan(try image(poster).meanAbsoluteDifference(from: untoned), 4, "\(name): tone mapping changed the picture")
        }
    }

    /// A movie that opens on two seconds of black: its poster is a frame after them; one whose
    /// only keyframe is black: a frame of its first third after the fade; a 1.5 s movie whose
    /// first half is blurred: a sharp frame of the second half.
    func testAutoNeverTakesABlackOrBlurredFrame() throws {
        let opening = try Self.clip("black-opening.mp4", "testsrc2=size=320x180:rate=30:duration=6",
                                    ["-vf", "fade=in:st=2:d=0.1", "-g", "30", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let poster = try LibAV.poster(path: opening, at: .auto)
        XCTAssertGreaterThanOrEqual(poster.seconds, 2.1)
        XCTAssertGreaterThan(try image(poster).bandMeans().reduce(0, +) / 3, 24)
        try assertMatchesTheCLI(opening, poster)
        // One keyframe, black, opening a fade: frames spread over the first third are looked at.
        let fade = try Self.clip("one-black-keyframe.mp4", "testsrc2=size=320x180:rate=30:duration=6",
                                 ["-vf", "fade=in:st=0:d=1", "-g", "1000", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let faded = try LibAV.poster(path: fade, at: .auto)
        XCTAssertGreaterThan(faded.seconds, 0.2)
        XCTAssertLessThanOrEqual(faded.seconds, 2.05, "within the first third")
        XCTAssertGreaterThan(try image(faded).bandMeans().reduce(0, +) / 3, 24)
        try assertMatchesTheCLI(fade, faded)
        let blurred = try Self.clip("blurred-start.mp4", "testsrc2=size=320x180:rate=30:duration=1.5",
                                    ["-vf", "boxblur=8:enable='lt(t,0.75)'", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let sharp = try LibAV.poster(path: blurred, at: .auto)
        XCTAssertGreaterThanOrEqual(sharp.seconds, 0.75)
        try assertMatchesTheCLI(blurred, sharp)
    }

    func testAChosenTimeGivesTheFrameThereAndPastTheEndTheLast() throws {
        let path = try Self.clip("three-seconds.mp4", "testsrc2=size=320x180:rate=30:duration=3", ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        XCTAssertEqual(try LibAV.poster(path: path, at: .seconds(1)).seconds, 1, accuracy: 0.5 / 30)
        let half = try LibAV.poster(path: path, at: .fraction(0.5))
        XCTAssertEqual(half.seconds, 1.5, accuracy: 0.5 / 30)
        try assertMatchesTheCLI(path, half)
        XCTAssertEqual(try LibAV.poster(path: path, at: .seconds(60)).seconds, 3 - 1.0 / 30, accuracy: 0.5 / 30, "the last frame")
    }

    /// A one-frame movie has a poster; a file without video, or one cut short, fails clearly.
    func testMoviesWithNothingToShowFailClearly() throws {
        let one = try Self.clip("one-frame.mp4", "testsrc2=size=320x180:rate=30", ["-frames:v", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        XCTAssertEqual(try LibAV.poster(path: one, at: .auto).seconds, 0, accuracy: 1e-6)
        let audio = try Self.clip("audio-only.m4a", "sine=duration=1", ["-c:a", "aac"])
        XCTAssertThrowsError(try LibAV.poster(path: audio, at: .auto)) { error in
            XCTAssertEqual((error as? LibAVError)?.code, .noPicture, "\(error)")
        }
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.movies[0]))
        let cut = Fixtures.temporaryFolder("posters").appendingPathComponent("cut.mov")
        try whole.prefix(whole.count / 3).write(to: cut)
        XCTAssertThrowsError(try LibAV.poster(path: cut.path, at: .auto))
    }
}
