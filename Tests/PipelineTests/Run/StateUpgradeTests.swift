import Foundation
@testable import MediaBatchCore
import PipelineModel
import RunState
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// The run after an upgrade: over a state database an earlier release wrote (`Tests/Fixtures/state`,
/// one per schema) and the outputs its run left, the same pipeline over the same inputs decides as
/// docs/operations.md's "Incremental runs" says. An item's recipe is mediabatch's output version, the
/// libvips release and the stages' fingerprints (which keep their text across releases for a
/// pipeline that does not use a newer option): where the output version and libvips are those
/// that wrote the fixture, the recorded recipe stands, and the item is judged by its outputs; where
/// either differs, every item is `pipelineChanged` and redone. Failures are always tried again.
/// Nothing recorded is lost on the way. How the database itself is upgraded is `StateMigrationTests`'.
final class StateUpgradeTests: XCTestCase {
    private static let pipeline = try! Pipeline.decode(Data(contentsOf: StateFixture.pipeline), baseDirectory: StateFixture.folder)

    /// The image whose output is removed before the next run, and the one whose output is altered:
    /// if the recipe stands, the upgraded rows' paths, stamps and hashes are what says so.
    private static let removed = "jpeg/samsung_gt-i9000_gps00_rot90.jpg"
    private static let altered = "png/macos_screenshot_exif.png"

    private struct Folders {
        let input: URL
        let output: URL
        let state: URL
    }

    override func setUpWithError() throws {
        try Vips.start()
    }

    /// Fixtures whose every migration this release registers under the same name.
    private var lineage: [StateFixture] {
        let current = Set(try! SQLiteShell.migrations(Self.newDatabase()))
        return StateFixture.all.filter { Set($0.migrations).isSubset(of: current) }
    }

    func testTheRunAfterAnUpgradeRedoesWhatTheRecipeSaysAndLosesNothing() throws {
        for fixture in lineage {
            let folders = try Self.folders(fixture)
            let recorded = try Self.recordedOutputs(folders.state)
            let expected = Self.expectedChanges(fixture)
            try Self.damageOutputs(recorded, under: folders.output)
            let kept = try Data(contentsOf: folders.output.appendingPathComponent(recorded["heic/L_exif_xmp_iptc.heic"]![0]))

            let report = try Self.run(folders)
            XCTAssertEqual(report.items.map(\.input), StateFixture.inputs, "\(fixture)")
            XCTAssertEqual(Self.changes(report), expected, "\(fixture)")
            for item in report.items {
                let status: ItemResult.Status
                switch (item.input, expected[item.input]) {
                case (StateFixture.empty, _): status = .failed
                case (StateFixture.notMedia, _): status = .skipped
                case (_, .unchanged): status = .unchanged
                default: status = .ok
                }
                XCTAssertEqual(item.status, status, "\(fixture): \(item.input) \(item.error.map(\.message) ?? "")")
            }
            try assertNothingLost(fixture, folders, recorded: recorded, expected: expected)
            if expected["heic/L_exif_xmp_iptc.heic"] == .unchanged {
                XCTAssertEqual(try Data(contentsOf: folders.output.appendingPathComponent(recorded["heic/L_exif_xmp_iptc.heic"]![0])), kept,
                               "\(fixture): an output whose recipe stands is not written again")
            }

            // And the run after that one finds everything done.
            let again = try Self.run(folders)
            XCTAssertEqual(Self.changes(again), Dictionary(uniqueKeysWithValues: StateFixture.inputs.map {
                ($0, $0 == StateFixture.empty ? .failedBefore : .unchanged)
            }), "\(fixture)")
            XCTAssertEqual(again.totals.ok, 0, "\(fixture)")
        }
    }

    /// `--dry-run` reads the database as it is, without upgrading it: it lists what the run
    /// would decide, or, over a database without the columns it reads (v1's), stops before any
    /// item with the store's `anotherRelease` message.
    func testADryRunOverAnEarlierSchemaPredictsTheRunWithoutUpgradingIt() throws {
        for fixture in lineage {
            let folders = try Self.folders(fixture)
            let migrations = try SQLiteShell.migrations(folders.state)
            try Self.damageOutputs(try Self.recordedOutputs(folders.state), under: folders.output)
            if fixture.migrations.contains("v2: variants") {
                let report = try Self.run(folders, dryRun: true)
                XCTAssertEqual(Self.changes(report), Self.expectedChanges(fixture), "\(fixture)")
            } else {
                XCTAssertThrowsError(try Self.run(folders, dryRun: true), "\(fixture)") { error in
                    XCTAssertTrue(error is RunSetupError, "\(fixture): \(error)")
                    XCTAssertTrue("\(error)".contains("was written by another mediabatch release: a run without --dry-run upgrades it"),
                                  "\(fixture): \(error)")
                }
            }
            XCTAssertEqual(try SQLiteShell.migrations(folders.state), migrations, "\(fixture): not upgraded")
        }
    }

    // MARK: Expectations

    /// What the project promises for each input of `fixture` on the next run, with `removed`'s
    /// output gone and `altered`'s changed.
    private static func expectedChanges(_ fixture: StateFixture) -> [String: ItemChange] {
        let recipeStands = fixture.outputVersion == OutputVersion.current && fixture.libvips == Vips.version
        return [
            "heic/L_exif_xmp_iptc.heic": recipeStands ? .unchanged : .pipelineChanged,
            removed: recipeStands ? .outputMissing : .pipelineChanged,
            altered: recipeStands ? .outputAltered : .pipelineChanged,
            // Skipped, not media: its recipe (output version and libvips alone) decides as an image's.
            StateFixture.notMedia: recipeStands ? .unchanged : .pipelineChanged,
            StateFixture.empty: .failedBefore,
        ]
    }

    /// After the run, the database has every input, each image `ok` with the outputs the fixture
    /// recorded (same paths), each on disk with the hash recorded for it; those written again are
    /// recorded with this release's columns, and every image with one recipe (a recorded one that
    /// stood is today's).
    private func assertNothingLost(_ fixture: StateFixture, _ folders: Folders, recorded: [String: [String]],
                                   expected: [String: ItemChange], file: StaticString = #filePath, line: UInt = #line) throws {
        let store = try XCTUnwrap(try StateStore(readingExisting: folders.state.path), file: file, line: line)
        var recipes: Set<String> = []
        for input in StateFixture.inputs {
            let item = try XCTUnwrap(try store.item(input), "\(fixture): \(input)", file: file, line: line)
            guard StateFixture.samples.contains(input) else {
                XCTAssertEqual(item.status, input == StateFixture.empty ? .failed : .skipped, "\(fixture): \(input)", file: file, line: line)
                continue
            }
            XCTAssertEqual(item.status, .ok, "\(fixture): \(input)", file: file, line: line)
            recipes.insert(item.recipe)
            let outputs = try store.outputs(of: input)
            XCTAssertEqual(outputs.map(\.path), recorded[input], "\(fixture): \(input)", file: file, line: line)
            for output in outputs {
                let path = folders.output.appendingPathComponent(output.path).path
                XCTAssertEqual(try? ContentHash.ofFile(atPath: path), output.contentHash, "\(fixture): \(output.path)", file: file, line: line)
                guard expected[input] != .unchanged else { continue }
                XCTAssertEqual(output.format, "jpeg", "\(fixture): \(output.path)", file: file, line: line)
                XCTAssertNotNil(output.recipe, "\(fixture): \(output.path)", file: file, line: line)
                XCTAssertNotNil(output.width, "\(fixture): \(output.path)", file: file, line: line)
            }
        }
        XCTAssertEqual(recipes.count, 1, "\(fixture): one recipe for the three images", file: file, line: line)
        XCTAssertEqual(try store.staleOutputCount(), 0, "\(fixture)", file: file, line: line)
    }

    // MARK: Helpers

    private static func newDatabase() throws -> URL {
        let path = Fixtures.temporaryFolder("state-new").appendingPathComponent("state.sqlite")
        _ = try StateStore(path: path.path)
        return path
    }

    /// The fixture's folders made again: its inputs (same bytes, new times), the outputs its run
    /// left, a copy of its database.
    private static func folders(_ fixture: StateFixture) throws -> Folders {
        let root = Fixtures.temporaryFolder("upgrade-\(fixture.name)")
        let folders = Folders(input: root.appendingPathComponent("input"), output: root.appendingPathComponent("output"),
                              state: root.appendingPathComponent("state.sqlite"))
        try StateFixture.makeInputs(in: folders.input)
        try fixture.copyOutputs(to: folders.output)
        try FileManager.default.copyItem(at: fixture.database, to: folders.state)
        return folders
    }

    /// The outputs the fixture's database records for each input, as SQLite holds them.
    private static func recordedOutputs(_ database: URL) throws -> [String: [String]] {
        let rows = try SQLiteShell.rows(database, "SELECT input, path FROM outputs WHERE stale = 0 ORDER BY path")
        return Dictionary(grouping: rows, by: { $0["input"]!! }).mapValues { $0.map { $0["path"]!! } }
    }

    private static func damageOutputs(_ recorded: [String: [String]], under output: URL) throws {
        try FileManager.default.removeItem(at: output.appendingPathComponent(recorded[removed]![0]))
        let handle = try FileHandle(forWritingTo: output.appendingPathComponent(recorded[altered]![0]))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
    }

    private static func run(_ folders: Folders, dryRun: Bool = false) throws -> RunReport {
        var options = RunOptions(inputRoot: folders.input, outputRoot: folders.output, concurrency: 2,
                                 memoryBudget: ByteSize(bytes: 1 << 30), pipelineName: "pipeline.json", dryRun: dryRun)
        options.statePath = folders.state
        options.durability = .none
        return try RunReport(PipelineRunner(pipeline: pipeline, options: options).run())
    }

    private static func changes(_ report: RunReport) -> [String: ItemChange] {
        Dictionary(uniqueKeysWithValues: report.items.compactMap { item in item.change.map { (item.input, $0) } })
    }
}
