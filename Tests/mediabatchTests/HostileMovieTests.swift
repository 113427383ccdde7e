import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// Movies damaged the ways real ones are (cut short, bytes flipped in the coded frames or the
/// header, zeroed runs) through `poster` in worker processes, as untrusted input runs: every item
/// ends reported (a poster, or a clear failure: the decoder's, or the location editor refusing a
/// broken box tree), the run ends, nothing half-written is left. The damage is seeded (SplitMix):
/// the same files on every run. FFmpeg's demuxers and decoders are fuzzed upstream (OSS-Fuzz);
/// this checks what mediabatch does around them.
final class HostileMovieTests: XCTestCase {
    static let sources = ["video/iphone6_with-gps.mov", "video/with-gps_xyz.mp4", "video/sample.3gp", "livephoto/train.mov"]

    /// `count` damaged copies of the sources, each one kind of damage (`HostileFiles.damaged`).
    func damagedMovies(_ count: Int, into folder: URL) throws -> [String] {
        var random = SplitMix(seed: 0x5EED_0F_F11E5)
        var names: [String] = []
        for index in 0..<count {
            let source = Self.sources[index % Self.sources.count]
            let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample(source))))
            let bytes = HostileFiles.damaged(whole, kind: index, head: 4096, using: &random)
            let name = "damaged-\(index).\((source as NSString).pathExtension)"
            try Data(bytes).write(to: folder.appendingPathComponent(name))
            names.append(name)
        }
        return names
    }

    /// 16 damaged movies and an intact one through `stages` in workers: every movie reported, the
    /// intact one ok, each ok item passed to `check`, each failed one with a known code and a
    /// message and nothing of it published; no temporary file left.
    func runDamaged(_ stages: String, failures: [ItemError.Code], check: (ItemResult, URL) throws -> Void) throws {
        let input = Fixtures.temporaryFolder("hostile-movies"), output = Fixtures.temporaryFolder("hostile-movies-out")
        let names = try damagedMovies(16, into: input)
        try FileManager.default.copyItem(atPath: Fixtures.sample("video/with-gps_xyz.mp4"), toPath: input.appendingPathComponent("intact.mp4").path)
        let pipeline = Fixtures.temporaryFolder("hostile-movies-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "limits": {"timeout": "60s"}, "stages": [\#(stages)]}"#.utf8).write(to: pipeline)
        let reportFile = output.appendingPathComponent("../\(output.lastPathComponent).json").standardizedFileURL
        let result = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                               "--report", reportFile.path, "--quiet"])
        XCTAssertTrue([0, 1].contains(result.exitCode), result.stderr)
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: reportFile))
        XCTAssertEqual(report.items.map(\.input).sorted(), (names + ["intact.mp4"]).sorted(), "every movie reported")
        XCTAssertEqual(report.items.first { $0.input == "intact.mp4" }?.status, .ok)
        for item in report.items {
            switch item.status {
            case .ok:
                try check(item, output)
            case .failed:
                let error = try XCTUnwrap(item.error, item.input)
                XCTAssertTrue(failures.contains(error.code), "\(item.input): \(error)")
                XCTAssertFalse(error.message.isEmpty, item.input)
                let stem = (item.input as NSString).deletingPathExtension
                let published = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix(stem + ".") }
                XCTAssertEqual(published, [], "\(item.input): nothing of a failed item is published")
            default: XCTFail("\(item.input): \(item.status)")
            }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".mediabatch/tmp").path)
        XCTAssertEqual(leftovers.filter { !$0.hasPrefix(".") }.flatMap { (try? FileManager.default.contentsOfDirectory(
            atPath: output.appendingPathComponent(".mediabatch/tmp/\($0)").path)) ?? [] }, [], "no temporary file left")
    }

    func testDamagedMoviesFailOneByOneAndTheRunEnds() throws {
        try runDamaged(#"{"stage": "decode"}, {"stage": "poster"}, {"stage": "downsample", "maxPixelSize": 320}, {"stage": "stripLocation"}, {"stage": "write"}"#,
                       failures: [.decodeFailed, .workerCrashed, .unsupportedMetadata]) { item, output in
            let poster = try XCTUnwrap(item.variants?.first { $0.role == .poster }, item.input)
            let image = try VImage.decode(output.appendingPathComponent(poster.path).path)
            XCTAssertEqual(max(image.width, image.height), max(poster.width, poster.height), item.input)
        }
    }

    /// The same movies made into H.264 renditions: each one made decodes to its end.
    func testDamagedMoviesRenderOrFailOneByOne() throws {
        try runDamaged(#"{"stage": "decode"}, {"stage": "video", "maxPixelSize": 160, "reencode": "always"}, {"stage": "write"}"#,
                       failures: [.decodeFailed, .encodeFailed, .workerCrashed]) { item, output in
            let path = try XCTUnwrap(item.output, item.input)
            XCTAssertEqual(try Movies.decodingErrors(output.appendingPathComponent(path).path), "", item.input)
        }
    }
}
