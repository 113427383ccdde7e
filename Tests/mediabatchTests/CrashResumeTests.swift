import Foundation
import RunState
import TestSupport
import VipsKit
import XCTest

/// A real run killed with SIGKILL at random moments, then started again, must end with exactly
/// the outputs of an uninterrupted run: no duplicate, missing or half-written file, no
/// temporary file, and a state database SQLite finds intact.
final class CrashResumeTests: XCTestCase {
    /// A mixed library: HEICs (an iPhone's, slow: ≈ 0.3 s each, with its gain map; a small one), JPEGs,
    /// a PNG and a Live Photo pair.
    static func library() throws -> URL {
        let input = Fixtures.temporaryFolder("crash-input")
        let sources = ["heic/L_exif_xmp_iptc.heic", "heic/pug.heic", "jpeg/apple_iphone_4.jpg", "png/macos_screenshot_exif.png",
                       "jpeg/orientation/Landscape_6.jpg", "jpeg/nikon_d5000_xmp_gps_only.jpg"]
        for copy in 0..<2 {
            for source in sources {
                let name = "\(copy)/\((source as NSString).lastPathComponent)"
                try FileManager.default.createDirectory(at: input.appendingPathComponent("\(copy)"), withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: Fixtures.sample(source), toPath: input.appendingPathComponent(name).path)
            }
        }
        try FileManager.default.createDirectory(at: input.appendingPathComponent("live"), withIntermediateDirectories: true)
        for name in ["train.jpg", "train.mov"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("livephoto/\(name)"), toPath: input.appendingPathComponent("live/\(name)").path)
        }
        return input
    }

    static func arguments(_ input: URL, _ output: URL) -> [String] {
        ["run", "pipelines/quickstart.json", "--input", input.path, "--output", output.path, "--jobs", "2", "--quiet"]
    }

    /// Every file under `folder` but mediabatch's own, with its bytes.
    static func outputs(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])!
        for case let url as URL in enumerator {
            let relative = String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
            guard !relative.hasPrefix(".mediabatch"), try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files[relative] = try Data(contentsOf: url)
        }
        return files
    }

    func testKilledRunsResumeToExactlyTheOutputsOfACleanRun() throws {
        let input = try Self.library()
        let clean = Fixtures.temporaryFolder("crash-clean")
        let started = Date()
        let reference = try runProcess(Fixtures.executable.path, Self.arguments(input, clean), in: Fixtures.repositoryRoot)
        XCTAssertEqual(reference.exitCode, 0, reference.stderr)
        let cleanSeconds = Date().timeIntervalSince(started)
        let expected = try Self.outputs(clean)
        XCTAssertEqual(expected.count, 14, "12 images, the Live Photo still and its movie")

        var generator = SplitMix(seed: 20261121)
        let resumed = Fixtures.temporaryFolder("crash-resumed")
        var kills: [String] = []
        for _ in 0..<4 {
            let process = Process()
            process.executableURL = Fixtures.executable
            process.arguments = Self.arguments(input, resumed)
            process.currentDirectoryURL = Fixtures.repositoryRoot
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = Double.random(in: 0.05...max(0.1, cleanSeconds * 0.6), using: &generator)
            usleep(useconds_t(delay * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            kills.append(String(format: "%.2fs: %d outputs", delay, try Self.outputs(resumed).count))
        }
        print("CrashResumeTests: clean run \(String(format: "%.1f", cleanSeconds)) s; SIGKILL at \(kills)")
        let finish = try runProcess(Fixtures.executable.path, Self.arguments(input, resumed) + ["--report", resumed.path + "/../resumed.json"],
                                    in: Fixtures.repositoryRoot)
        XCTAssertEqual(finish.exitCode, 0, finish.stderr)

        let actual = try Self.outputs(resumed)
        XCTAssertEqual(actual.keys.sorted(), expected.keys.sorted(), "killed at \(kills)")
        for (name, data) in expected where actual[name] != data {
            XCTFail("\(name) differs from the clean run's (killed at \(kills))")
        }
        let temporary = resumed.appendingPathComponent(".mediabatch/tmp/all").path
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [], [], "no temporary file is left")
        let store = try XCTUnwrap(try StateStore(readingExisting: resumed.appendingPathComponent(".mediabatch/state.sqlite").path))
        XCTAssertEqual(try store.integrityCheck(), "ok")
        XCTAssertEqual(try store.countsByStatus()[.ok], 14)

        // And the run after that does nothing.
        let again = try runProcess(Fixtures.executable.path, Self.arguments(input, resumed), in: Fixtures.repositoryRoot)
        XCTAssertTrue(again.stderr.contains("0 ok, 14 unchanged, 0 failed"), again.stderr)
    }

    /// Items are committed in batches, and reported once committed: killed just after it has
    /// named some failed items, the run has recorded every one of them.
    func testEveryItemReportedBeforeAKillIsRecorded() throws {
        let input = Fixtures.temporaryFolder("reported-input")
        for index in 0..<12 {
            try FileManager.default.copyItem(at: Fixtures.broken.appendingPathComponent("corrupted.heic"),
                                             to: input.appendingPathComponent(String(format: "%02d-bad.heic", index)))
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"),
                                             toPath: input.appendingPathComponent(String(format: "%02d-good.jpg", index)).path)
        }
        let output = Fixtures.temporaryFolder("reported-output")
        let process = Process()
        process.executableURL = Fixtures.executable
        process.arguments = ["run", "pipelines/quickstart.json", "--input", input.path, "--output", output.path, "--jobs", "2"]
        process.currentDirectoryURL = Fixtures.repositoryRoot
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        var reported: [String] = []
        var text = ""
        while reported.count < 3 {
            let data = errors.fileHandleForReading.availableData
            XCTAssertFalse(data.isEmpty, "the run ended before it reported three failures: \(text)")
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            reported = text.split(separator: "\n").compactMap { line in
                line.hasPrefix("error: ") ? line.dropFirst(7).split(separator: ":").first.map(String.init) : nil
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let store = try XCTUnwrap(try StateStore(readingExisting: output.appendingPathComponent(".mediabatch/state.sqlite").path))
        for name in reported {
            XCTAssertEqual(try store.item(name)?.status, .failed, "\(name) was reported failed before the kill")
        }
    }
}
