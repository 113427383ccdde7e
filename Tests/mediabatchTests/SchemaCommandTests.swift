import Foundation
import MediaBatchCore
import TestSupport
import XCTest

/// `mediabatch schema` checked by a real validator: Python's `jsonschema` (from PyPI, in a venv
/// `scripts/test-python.sh` makes) validates every shipped pipeline and every invalid-pipeline
/// fixture, and must agree with `mediabatch validate` on each.
final class SchemaCommandTests: XCTestCase {
    /// Fixtures the schema accepts though `validate` refuses them, each for a reason JSON Schema
    /// cannot express: the order of stages and what they need, a day February lacks, or what one
    /// stage's options ask of another's.
    static let acceptedOnlyByTheSchema: [String: String] = [
        "downsample-before-decode.json": "stage order",
        "keep-list-before-decode.json": "stage order",
        "pixel-stage-without-write.json": "a stage another needs (write after downsample)",
        "capture-date-february-30.json": "a day the month lacks",
        "memory-budget-under-a-byte.json": "a size that rounds to 0 bytes",
        "variants-path-without-size.json": "a write path that must tell the variants apart",
        "transcode-effort-for-jpeg.json": "an option whose range depends on another's value (effort on to)",
        "variants-boxes-one-width.json": "a write path that must tell the variants apart",
        "poster-after-downsample.json": "stage order",
        "poster-before-decode.json": "stage order",
        "poster-path-without-size.json": "a write path that must tell the variants apart",
        "poster-movie-drop-with-video.json": "what one stage's options ask of another's (poster.movie drop beside video)",
        "raw-jpeg-pairs-both-one-name.json": "a write path that must tell a RAW+JPEG pair's files apart (input.rawJpegPairs with decode)",
        "video-before-decode.json": "stage order",
        "video-codecs-without-codec-placeholder.json": "a write path that must tell the renditions apart",
        "video-quality-number-with-two-codecs.json": "an option whose form depends on another's value (quality on codec)",
        "video-quality-out-of-range.json": "an option whose range depends on another's value (quality on codec)",
        "video-aac-in-webm.json": "an option whose values depend on another's value (audio on codec)",
        "video-hdr-keep-h264.json": "an option whose values depend on another's value (hdr on codec)",
    ]

    func mediabatch(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(Fixtures.executable.path, arguments, in: Fixtures.repositoryRoot)
    }

    func testSchemaAndValidateAgreeOnEveryPipelineAndFixture() throws {
        let schema = try mediabatch(["schema"])
        XCTAssertEqual(schema.exitCode, 0, schema.stderr)
        let schemaFile = Fixtures.temporaryFolder().appendingPathComponent("pipeline.schema.json")
        try Data(schema.stdout.utf8).write(to: schemaFile)

        let folders = ["pipelines", "Tests/Fixtures/invalid-pipelines"]
        let files = try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryRoot.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".json") }.sorted().map { "\(folder)/\($0)" }
        }
        XCTAssertGreaterThanOrEqual(files.count, 20)
        let check = try runProcess(try PythonReference.python(),
                                   ["scripts/check-against-schema.py", schemaFile.path] + files, in: Fixtures.repositoryRoot)
        XCTAssertEqual(check.exitCode, 0, check.stderr)
        let verdicts = check.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: String] }
        XCTAssertEqual(verdicts.map { $0["file"]! }, files)

        var acceptedOnlyByTheSchema: [String] = []
        for verdict in verdicts {
            let file = verdict["file"]!
            let valid = try mediabatch(["validate", file]).exitCode == 0
            let accepted = verdict["verdict"] == "accepted"
            XCTAssertFalse(valid && !accepted, "\(file): validate accepts what the schema refuses: \(verdict["reason"] ?? "")")
            if accepted && !valid { acceptedOnlyByTheSchema.append((file as NSString).lastPathComponent) }
            XCTAssertEqual(valid, file.hasPrefix("pipelines/"), file)
        }
        XCTAssertEqual(acceptedOnlyByTheSchema.sorted(), Self.acceptedOnlyByTheSchema.keys.sorted())
    }

    /// Editors fetch the schema by its dialect; what `schema` prints is what the package installs.
    func testSchemaNamesDraft2020AndDescribesEveryStage() throws {
        let result = try mediabatch(["schema"])
        let schema = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(schema["$schema"] as? String, "https://json-schema.org/draft/2020-12/schema")
        let stages = ((schema["$defs"] as! [String: Any])["stage"] as! [String: Any])["oneOf"] as! [[String: Any]]
        for stage in stages {
            let keys = stage["properties"] as! [String: [String: Any]]
            for (key, property) in keys {
                XCTAssertNotNil(property["description"], "\(keys["stage"]!["const"]!).\(key) has no description")
            }
        }
        let spellings = stages.compactMap { (($0["properties"] as? [String: [String: Any]])?["stage"])?["const"] as? String }
        XCTAssertEqual(spellings.sorted(), StageList.catalog.types.flatMap { $0.syntax.map(\.spelling) }.sorted(),
                       "every spelling, presets (stripLocation) included")
    }
}
