import Foundation
import MediaTestSupport
import TestSupport
import XCTest

/// `mediabatch duplicates` as a user runs it: over a folder, over a run's state database and its
/// manifest, as JSON and as text; files it cannot read named with why.
final class DuplicatesCommandTests: XCTestCase {
    private func mediabatch(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(Fixtures.executable.path, arguments, in: Fixtures.repositoryRoot)
    }

    /// A photo, its identical copy and a re-encode at half size; another photo; a file that is no image.
    private func library() throws -> URL {
        let folder = Fixtures.temporaryFolder("duplicates")
        let photo = folder.appendingPathComponent("a.jpg").path
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: photo)
        try FileManager.default.copyItem(atPath: photo, toPath: folder.appendingPathComponent("a copy.jpg").path)
        XCTAssertEqual(try runProcess("vips", ["resize", photo, folder.appendingPathComponent("a_small.webp").path + "[Q=60]", "0.5"]).exitCode, 0)
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"), toPath: folder.appendingPathComponent("b.jpg").path)
        try Data("not a photo".utf8).write(to: folder.appendingPathComponent("broken.jpg"))
        return folder
    }

    func testAFolderGivesItsGroupsAsJSON() throws {
        let folder = try library()
        let result = try mediabatch(["duplicates", folder.path, "--json"])
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let groups = try XCTUnwrap(document["groups"] as? [[String: Any]])
        XCTAssertEqual(groups.count, 1)
        XCTAssertEqual(groups.first?["tier"] as? String, "samePhoto")
        XCTAssertEqual(groups.first?["keeper"] as? String, "a copy.jpg", "the same bytes as a.jpg: the first by path")
        XCTAssertEqual(groups.first?["members"] as? [String], ["a copy.jpg", "a.jpg", "a_small.webp"])
        XCTAssertEqual(groups.first?["why"] as? String, "jpeg: the more original format over webp")
        let unread = try XCTUnwrap(document["unread"] as? [[String: String]])
        XCTAssertEqual(unread.map { $0["path"] }, ["broken.jpg"])
        XCTAssertTrue(unread.first?["reason"]?.contains("not a recognised image") == true, "\(unread)")
    }

    /// A camera's RAW (a DNG LibRaw develops, made from a real photo) beside its camera's JPEG of the same
    /// name: both are read (not paired away, as a run pairs them), grouped as one photo, the RAW kept.
    func testARawAndItsJpegAreOnePhotoTheRawKept() throws {
        let folder = Fixtures.temporaryFolder("raw-jpeg")
        try DevelopableDNG.write(to: folder.appendingPathComponent("IMG_1.dng"), width: 1200, preview: 1024)
        XCTAssertEqual(try runProcess("vips", ["thumbnail", DevelopableDNG.photo, folder.appendingPathComponent("IMG_1.jpg").path + "[Q=90]", "1200"]).exitCode, 0)
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"), toPath: folder.appendingPathComponent("other.jpg").path)
        let result = try mediabatch(["duplicates", folder.path])
        XCTAssertEqual(result.stdout, "samePhoto: keep IMG_1.dng (dng: a camera's RAW over jpeg)\n    IMG_1.jpg\n", result.stderr)
    }

    /// A run with a fingerprint stage keeps what `duplicates` reads, in its state database and its manifest.
    func testARunsStateDatabaseAndManifestGiveTheSameGroups() throws {
        let folder = try library(), output = Fixtures.temporaryFolder()
        let pipeline = output.appendingPathComponent("p.json")
        try Data(#"""
            {"version": 1, "input": {"root": "\#(folder.path)"}, "output": {"root": "\#(output.path)/out", "manifest": "manifest.json"},
             "stages": [{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 256}, {"stage": "fingerprint"}, {"stage": "write"}]}
            """#.utf8).write(to: pipeline)
        XCTAssertEqual(try mediabatch(["run", pipeline.path, "--quiet"]).exitCode, 1, "broken.jpg fails")
        let fromState = try mediabatch(["duplicates", "--state", output.appendingPathComponent("out/.mediabatch/state.sqlite").path])
        let fromManifest = try mediabatch(["duplicates", "--manifest", output.appendingPathComponent("out/manifest.json").path])
        XCTAssertEqual(fromState.stdout, "samePhoto: keep a copy.jpg (jpeg: the more original format over webp)\n    a.jpg\n    a_small.webp\n", fromState.stderr)
        XCTAssertEqual(fromManifest.stdout, fromState.stdout)
    }

    /// Each mistake on the command line exits 2 with what was expected.
    func testOneSourceExactly() throws {
        let folder = Fixtures.temporaryFolder().path
        for (arguments, message) in [
            (["duplicates"], "give folders, --state DB or --manifest M: one source"),
            (["duplicates", folder, "--manifest", "m.json"], "give folders, --state DB or --manifest M: one source"),
            (["duplicates", folder, folder, "--state", "s.sqlite"], "--state keeps one folder's fingerprints: give one folder with it"),
            (["duplicates", "--state", folder + "/none.sqlite"], "error: no state database at \(folder)/none.sqlite"),
        ] {
            let result = try mediabatch(arguments)
            XCTAssertEqual(result.exitCode, 2, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
