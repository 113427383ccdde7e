import Foundation
import TestSupport
import XCTest

/// The publish order under strace (`-y` names each descriptor's file): for every output, its
/// data is synced (the output volume's `syncfs`, after the last write to its temporary file)
/// before the rename that publishes it, its folder after the rename, and the state database's
/// commit that records it (the WAL write that holds its path) after both. With `--durability
/// none`, mediabatch syncs nothing (SQLite's own `fdatasync`s stay SQLite's).
final class DurabilityTests: XCTestCase {
    struct Call {
        let index: Int
        let text: String
    }

    /// The run's syscalls, in order, each line as strace prints it; the outputs' relative paths.
    func traced(durability: String) throws -> (calls: [Call], output: URL, outputs: [String]) {
        let input = Fixtures.temporaryFolder("durability-in"), output = Fixtures.temporaryFolder("durability-out")
        for (sample, name) in [("jpeg/apple_iphone_4.jpg", "a/one.jpg"), ("heic/IMG_1034.heic", "a/b/two.heic"), ("livephoto/train.jpg", "three.jpg")] {
            let target = input.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: target.path)
        }
        let pipeline = Fixtures.temporaryFolder("durability-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 200}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}]}"#.utf8).write(to: pipeline)
        let log = Fixtures.temporaryFolder("durability-trace").appendingPathComponent("trace.txt")
        let result = try runProcess("strace", ["-f", "-y", "-s", "65536", "-o", log.path,
                                               "-e", "trace=openat,fsync,fdatasync,syncfs,rename,renameat,renameat2,pwrite64,write",
                                               Fixtures.executable.path, "run", pipeline.path, "--input", input.path, "--output", output.path,
                                               "--quiet", "--durability", durability])
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        // With threads, strace may split a call: `fsync(7</out/a> <unfinished ...>`, then its result
        // on a line of its own. Each call's arguments stay on its first line, which is all we match.
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        return (lines.enumerated().map { Call(index: $0, text: $1) }, output, ["a/one.jpg", "a/b/two.jpg", "three.jpg"])
    }

    func testEveryOutputIsSyncedRenamedItsFolderSyncedThenRecorded() throws {
        let (calls, output, outputs) = try traced(durability: "full")
        for relative in outputs {
            let destination = output.appendingPathComponent(relative).path
            let folder = (destination as NSString).deletingLastPathComponent
            let renamed = try XCTUnwrap(calls.first { $0.text.contains("renameat(") && $0.text.contains("<\(folder)>, \"\((relative as NSString).lastPathComponent)\"") },
                                        "the rename of \(relative)")
            // renameat(3</out/.mediabatch/tmp/all>, "123-4-one.jpg", 5</out/a>, "one.jpg")
            let match = try XCTUnwrap(renamed.text.firstMatch(of: try Regex(#"renameat2?\(\d+<([^>]+)>, "([^"]+)""#)))
            let source = "\(match.output[1].substring ?? "")/\(match.output[2].substring ?? "")"
            let written = try XCTUnwrap(calls.last { $0.index < renamed.index && $0.text.contains(source) }, "\(relative): written")
            let temporaries = (source as NSString).deletingLastPathComponent
            let dataSync = calls.first { $0.index > written.index && $0.text.contains("syncfs(") && $0.text.contains("<\(temporaries)>") }
            XCTAssertLessThan(dataSync?.index ?? .max, renamed.index, "\(relative): its data synced after it was written, before its rename")
            let folderSync = calls.first { $0.index > renamed.index && $0.text.contains("fsync(") && $0.text.contains("<\(folder)>") }
            XCTAssertNotNil(folderSync, "\(relative): its folder synced after its rename")
            let recorded = calls.first { $0.index > renamed.index && $0.text.contains("pwrite64(") && $0.text.contains("state.sqlite-wal>")
                && $0.text.contains(relative) }
            XCTAssertNotNil(recorded, "\(relative): the commit that records it")
            XCTAssertGreaterThan(recorded?.index ?? 0, folderSync?.index ?? .max, "\(relative): recorded after its folder is synced")
        }
    }

    func testNoneSyncsNothing() throws {
        let (calls, output, outputs) = try traced(durability: "none")
        XCTAssertEqual(calls.filter { $0.text.contains(" fsync(") || $0.text.contains(" syncfs(") }.map(\.text), [])
        for relative in outputs { XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(relative).path), relative) }
    }
}
