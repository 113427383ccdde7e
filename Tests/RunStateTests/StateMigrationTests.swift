import Foundation
import RunState
import TestSupport
import XCTest

/// Databases that earlier releases wrote (`Tests/Fixtures/state`: one per schema, each by the code
/// that had it) opened by this one: upgraded by its migrations to the schema a new database gets,
/// every row and value kept; or, read-only, read as they are or refused for what they lack. What
/// the next run then decides is `StateUpgradeTests`' (MediaBatchCoreTests).
final class StateMigrationTests: XCTestCase {
    /// A database's schema: the migrations it records (in any order: branches added some side by
    /// side), its tables' columns with their types, its indexes.
    private struct Schema: Equatable {
        let migrations: Set<String>
        let columns: [String: [String: String]]
        let indexes: Set<String>

        static let tables = ["items", "outputs", "runs"]

        /// Read in one query (a `sqlite3` process each costs more than the query).
        init(of database: URL) throws {
            let rows = try SQLiteShell.rows(database, """
                SELECT 'column' AS kind, m.name AS owner, p.name AS name, p.type AS type FROM sqlite_master m, pragma_table_info(m.name) p
                  WHERE m.type = 'table' AND m.name IN ('items', 'outputs', 'runs')
                UNION ALL SELECT 'index', tbl_name, name, '' FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
                UNION ALL SELECT 'migration', '', identifier, '' FROM grdb_migrations
                """)
            func named(_ kind: String) -> [[String: String?]] { rows.filter { $0["kind"] == kind } }
            migrations = Set(named("migration").map { $0["name"]!! })
            indexes = Set(named("index").map { $0["name"]!! })
            columns = Dictionary(grouping: named("column"), by: { $0["owner"]!! }).mapValues {
                Dictionary(uniqueKeysWithValues: $0.map { ($0["name"]!!, $0["type"]!!) })
            }
        }
    }

    /// The schema this release gives a new database, and its migrations in order.
    private static let (current, currentMigrations): (Schema, [String]) = {
        let path = Fixtures.temporaryFolder("state-new").appendingPathComponent("state.sqlite")
        _ = try! StateStore(path: path.path)
        return (try! Schema(of: path), try! SQLiteShell.migrations(path))
    }()

    /// Fixtures whose every migration is one this release registers (under the same name).
    private var lineage: [StateFixture] {
        StateFixture.all.filter { Set($0.migrations).isSubset(of: Self.current.migrations) }
    }

    /// Fixtures from the hour before 94922a6 renumbered the migrations: each records one that
    /// this release registers under another name (README.md beside the fixtures).
    private var renumbered: [StateFixture] {
        StateFixture.all.filter { !Set($0.migrations).isSubset(of: Self.current.migrations) }
    }

    /// Each fixture is what MANIFEST.tsv says, and together they cover every migration this
    /// release has: each but the first is run by the upgrade of some fixture, and one fixture has
    /// them all (nothing to migrate). A new migration needs a fixture of today's schema (the script makes it).
    func testTheFixturesCoverEveryMigration() throws {
        XCTAssertFalse(StateFixture.all.isEmpty)
        for fixture in StateFixture.all {
            XCTAssertEqual(try SQLiteShell.migrations(try fixture.copyOfDatabase()), fixture.migrations, "\(fixture)")
        }
        XCTAssertTrue(lineage.contains { $0.migrations == Self.currentMigrations }, "no fixture of today's schema")
        for migration in Self.currentMigrations.dropFirst() {
            XCTAssertTrue(lineage.contains { !$0.migrations.contains(migration) }, "no fixture is upgraded by \(migration)")
        }
    }

    /// v12 keeps the long strings of readings (a fingerprint's picture) apart: a v11 database's are moved
    /// there by the upgrade, and read back whole.
    func testTheUpgradeToV12MovesLongReadingsApart() throws {
        let database = try XCTUnwrap(StateFixture.all.first { $0.name == "v11" }).copyOfDatabase()
        let picture = String(repeating: "Q", count: 5464)
        let whole = #"{"fingerprint":{"hashes":["0f"],"picture":"\#(picture)","width":640}}"#
        let input = try XCTUnwrap(SQLiteShell.rows(database, "SELECT input FROM items WHERE status = 'ok' LIMIT 1").first?["input"] ?? nil)
        let set = try runProcess("sqlite3", [database.path, "UPDATE items SET readings = '\(whole)' WHERE input = '\(input)'"])
        XCTAssertEqual(set.exitCode, 0, set.stderr)
        let store = try StateStore(path: database.path)
        XCTAssertEqual(try SQLiteShell.rows(database, "SELECT readings FROM items WHERE input = '\(input)'").first?["readings"],
                       #"{"fingerprint":{"hashes":["0f"],"width":640}}"#)
        XCTAssertEqual(try SQLiteShell.rows(database, "SELECT readings FROM bulkReadings").map { $0["readings"] },
                       [#"{"fingerprint":{"picture":"\#(picture)"}}"#])
        XCTAssertEqual(try store.item(input)?.readings, #"{"fingerprint":{"picture":"\#(picture)","hashes":["0f"],"width":640}}"#)
    }

    func testEachEarlierSchemaIsUpgradedToTheCurrentOneKeepingEveryRow() throws {
        for fixture in lineage { try assertUpgraded(fixture) }
    }

    /// A database that records a migration this release knows under another name (the same
    /// columns: "v7: raw+jpeg partners" is "v8: raw+jpeg partners", "v8/v9: output roles" the first
    /// half of "v9: video outputs") is one this release must upgrade like the others, or, per
    /// `StateStoreError.Code.anotherRelease` ("written by a release whose migrations this one does
    /// not know"), refuse untouched: the store merges the earlier names into today's migrations,
    /// which add only the columns that are not there.
    func testADatabaseFromBeforeTheRenumberingIsUpgradedLikeTheOthers() throws {
        XCTAssertFalse(renumbered.isEmpty)
        for fixture in renumbered { try assertUpgraded(fixture) }
    }

    /// `--dry-run` and `status` open the database read-only, so they cannot migrate it: they read
    /// what is there where it has the columns they read (`StateStore.readableMigrations`, v1 and
    /// v2; later columns read as absent), and refuse the rest with `anotherRelease`. Either way the
    /// file is left as it was.
    func testAReadOnlyOpenReadsAnEarlierSchemaWithTheColumnsItNeedsAndRefusesTheRest() throws {
        let readable: Set<String> = ["v1", "v2: variants"]
        for fixture in StateFixture.all {
            let database = try fixture.copyOfDatabase()
            let before = try Self.dump(database)
            let migrations = try SQLiteShell.migrations(database)
            if readable.isSubset(of: fixture.migrations) {
                let store = try XCTUnwrap(try StateStore(readingExisting: database.path), "\(fixture)")
                try Self.assertStoreReads(before, store, fixture: fixture)
            } else {
                XCTAssertThrowsError(try StateStore(readingExisting: database.path), "\(fixture)") { error in
                    XCTAssertEqual((error as? StateStoreError)?.code, .anotherRelease, "\(fixture): \(error)")
                    XCTAssertTrue("\(error)".contains("a run without --dry-run upgrades it"), "\(error)")
                }
            }
            XCTAssertEqual(try SQLiteShell.migrations(database), migrations, "\(fixture): not migrated")
            XCTAssertEqual(try Self.dump(database), before, "\(fixture): not written")
        }
    }

    // MARK: Helpers

    /// Opened by this release, the fixture's database gets today's schema, keeps the migrations it
    /// recorded, every row with every value, and reads back through the store as SQLite holds it.
    private func assertUpgraded(_ fixture: StateFixture, file: StaticString = #filePath, line: UInt = #line) throws {
        let database = try fixture.copyOfDatabase()
        let before = try Self.dump(database)
        XCTAssertFalse(before["items"]!.isEmpty, "\(fixture) has items", file: file, line: line)
        XCTAssertFalse(before["outputs"]!.isEmpty, "\(fixture) has outputs", file: file, line: line)

        let store = try StateStore(path: database.path)
        let schema = try Schema(of: database)
        XCTAssertEqual(schema.columns, Self.current.columns, "\(fixture): the columns a new database gets", file: file, line: line)
        XCTAssertEqual(schema.indexes, Self.current.indexes, "\(fixture): the indexes a new database gets", file: file, line: line)
        // A migration recorded under an earlier name is merged into today's (GRDB's merged migrations): its name goes.
        XCTAssertEqual(schema.migrations, Self.current.migrations, "\(fixture): every migration applied, under today's names",
                       file: file, line: line)
        let known = fixture.migrations.filter(Self.current.migrations.contains)
        XCTAssertEqual(try SQLiteShell.migrations(database).prefix(known.count), known[...],
                       "\(fixture): the migrations it had stay recorded first", file: file, line: line)
        let after = try Self.dump(database)
        for table in Schema.tables {
            Self.assertRowsKept(before[table]!, after[table]!, table: table, fixture: fixture, file: file, line: line)
        }
        XCTAssertEqual(try store.integrityCheck(), "ok", "\(fixture)", file: file, line: line)
        try Self.assertStoreReads(after, store, fixture: fixture, file: file, line: line)

        // Opened again, nothing is left to migrate.
        _ = try StateStore(path: database.path)
        XCTAssertEqual(try Self.dump(database), after, "\(fixture): a second open changes nothing", file: file, line: line)
    }

    /// Every table's rows, in their key's order.
    private static func dump(_ database: URL) throws -> [String: [[String: String?]]] {
        let rows = try SQLiteShell.rows(database, Schema.tables.map { table in
            "SELECT * FROM \(table) ORDER BY \(["items": "input", "outputs": "path", "runs": "id"][table]!)"
        })
        return Dictionary(uniqueKeysWithValues: zip(Schema.tables, rows))
    }

    /// The same rows, each with every value it had; the columns the migrations added are NULL.
    private static func assertRowsKept(_ before: [[String: String?]], _ after: [[String: String?]], table: String,
                                       fixture: StateFixture, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(after.count, before.count, "\(fixture): \(table) rows", file: file, line: line)
        for (old, new) in zip(before, after) {
            XCTAssertEqual(new.filter { old.keys.contains($0.key) }, old, "\(fixture): \(table) values kept", file: file, line: line)
            let added = new.filter { !old.keys.contains($0.key) }
            XCTAssertTrue(added.values.allSatisfy { $0 == nil }, "\(fixture): \(table) added columns \(added)", file: file, line: line)
        }
    }

    /// What the store's reads give for each item and output is what the tables hold.
    private static func assertStoreReads(_ tables: [String: [[String: String?]]], _ store: StateStore, fixture: StateFixture,
                                         file: StaticString = #filePath, line: UInt = #line) throws {
        for row in tables["items"]! {
            let input = row["input"]!!
            let item = try XCTUnwrap(try store.item(input), "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.contentHash, row["contentHash"]!, "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.recipe, row["recipe"]!, "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.selection, row["selection"]!, "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.status.rawValue, row["status"]!, "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.format, row["format"]!, "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.errorCode, row["errorCode"]!, "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.stamp, FileStamp(size: Int64(row["size"]!!)!, modifiedNanoseconds: Int64(row["modified"]!!)!),
                           "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.width.map(String.init), row["width"] ?? nil, "\(fixture): \(input)", file: file, line: line)
            XCTAssertEqual(item.caption, row["caption"] ?? nil, "\(fixture): \(input)", file: file, line: line)
            let outputs = tables["outputs"]!.filter { $0["input"]!! == input && $0["stale"]!! == "0" }
            XCTAssertEqual(try store.outputs(of: input).map(\.path), outputs.map { $0["path"]!! }, "\(fixture): \(input)",
                           file: file, line: line)
            for output in outputs {
                let record = try XCTUnwrap(try store.output(output["path"]!!), file: file, line: line)
                XCTAssertEqual(record.contentHash, output["contentHash"]!, "\(fixture): \(record.path)", file: file, line: line)
                XCTAssertEqual(record.stamp, FileStamp(size: Int64(output["size"]!!)!, modifiedNanoseconds: Int64(output["modified"]!!)!),
                               "\(fixture): \(record.path)", file: file, line: line)
                XCTAssertEqual(record.recipe, output["recipe"] ?? nil, "\(fixture): \(record.path)", file: file, line: line)
                XCTAssertEqual(record.format, output["format"] ?? nil, "\(fixture): \(record.path)", file: file, line: line)
            }
        }
        let counts = Dictionary(grouping: tables["items"]!, by: { ItemRecord.Status(rawValue: $0["status"]!!)! }).mapValues(\.count)
        XCTAssertEqual(try store.countsByStatus(), counts, "\(fixture)", file: file, line: line)
        XCTAssertEqual(try store.lastRun()?.id.map(String.init), tables["runs"]!.last?["id"] ?? nil, "\(fixture)", file: file, line: line)
    }
}
