import Foundation
import GRDB

/// What the last decision about one input was, and what it was decided on.
public struct ItemRecord: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "items"

    public enum Status: String, Codable, Sendable {
        /// Outputs written (listed in `outputs`).
        case ok
        case failed
        /// Not for this pipeline (filtered, not media): nothing written.
        case skipped
    }

    /// Relative to the input root.
    public var input: String
    public var size: Int64
    public var modified: Int64
    /// SHA-256 of the input's bytes.
    public var contentHash: String
    public var format: String?
    /// The Live Photo content identifier the item carries, so pairing needs no header read.
    public var contentIdentifier: String?
    /// Hash of what shapes this item's outputs: the applicable stages' options and
    /// mediabatch's output version.
    public var recipe: String
    /// Hash of the filter that selected (or skipped) it.
    public var selection: String
    public var status: Status
    /// Why it was skipped, or what failed.
    public var reason: String?
    public var errorCode: String?
    public var errorStage: String?
    public var milliseconds: Int
    /// The run that decided it, and the last run that listed it (to find vanished inputs).
    public var decidedRun: Int64
    public var seenRun: Int64
    /// An image's size as shown (orientation applied), for the manifest.
    public var width: Int?
    public var height: Int?
    /// Its placeholder (ThumbHash, base64), when the pipeline asked for one.
    public var placeholder: String?
    /// A photo's own caption (XMP dc:description or IPTC Caption-Abstract): a web page's alt text.
    public var caption: String?
    /// The other file of a camera's RAW+JPEG pair, for the manifest.
    public var pairedWith: String?
    /// What stages read of the item (a photo's fingerprint), one JSON object by key.
    public var readings: String?

    public init(input: String, stamp: FileStamp, contentHash: String, format: String?, contentIdentifier: String?,
                recipe: String, selection: String, status: Status, reason: String? = nil, errorCode: String? = nil,
                errorStage: String? = nil, milliseconds: Int, run: Int64) {
        self.input = input
        self.size = stamp.size
        self.modified = stamp.modifiedNanoseconds
        self.contentHash = contentHash
        self.format = format
        self.contentIdentifier = contentIdentifier
        self.recipe = recipe
        self.selection = selection
        self.status = status
        self.reason = reason
        self.errorCode = errorCode
        self.errorStage = errorStage
        self.milliseconds = milliseconds
        self.decidedRun = run
        self.seenRun = run
    }

    public var stamp: FileStamp { FileStamp(size: size, modifiedNanoseconds: modified) }
}

/// One file an item wrote, as it was when written: a changed or missing output is redone.
public struct OutputRecord: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "outputs"

    /// Relative to the output root.
    public var path: String
    public var input: String
    public var contentHash: String
    public var size: Int64
    public var modified: Int64
    /// No longer produced by its input (the filter or the template changed): left on disk until `--prune`.
    public var stale: Bool
    /// Hash of what shaped this output (the item's shared recipe and the output's own format,
    /// quality and size): an unchanged, intact output is kept when the item is redone.
    public var recipe: String?
    public var format: String?
    /// The variant's size as the pipeline lists it (a number; for a box, its width and height),
    /// and the output's pixels.
    public var variantSize: Int?
    public var variantBoxWidth: Int?
    public var variantBoxHeight: Int?
    public var width: Int?
    public var height: Int?
    /// True where the output carries an HDR gain map; nil otherwise.
    public var gainMap: Bool?
    /// A video item's "poster" or "video"; nil for a still's outputs.
    public var role: String?
    /// A movie output's video codec (libavcodec's name).
    public var codec: String?
    /// A rendition's RFC 6381 `codecs` parameter (`avc1.64001F`).
    public var codecs: String?
    /// An animation's frames and length in seconds; nil for a single frame.
    public var frames: Int?
    public var duration: Double?

    public init(path: String, input: String, contentHash: String, stamp: FileStamp, stale: Bool = false) {
        self.path = path
        self.input = input
        self.contentHash = contentHash
        self.size = stamp.size
        self.modified = stamp.modifiedNanoseconds
        self.stale = stale
    }

    public var stamp: FileStamp { FileStamp(size: size, modifiedNanoseconds: modified) }
}

/// One run, for `mediabatch status`.
public struct RunRecord: Codable, Equatable, Sendable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "runs"

    public var id: Int64?
    public var startedAt: Date
    public var finishedAt: Date?
    public var pipeline: String
    public var shard: String?
    public var toolVersion: String
    public var interrupted: Bool
    /// The run's report totals, as JSON.
    public var totals: String?
}

/// The state database of one output root (or one shard of it): SQLite in WAL mode, an item's
/// decision and outputs in one transaction (with those of the items that finished with it), so a
/// run killed at any moment leaves every item either recorded with its outputs or not at all.
public final class StateStore: @unchecked Sendable {
    public let path: String
    private let database: any DatabaseWriter

    /// Opens (creating it and its folder) the database at `path`.
    public init(path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL's NORMAL is crash-safe for the process (SIGKILL loses nothing committed); only
            // a power loss can roll back the last transactions, which only redoes those items.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        database = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    /// Opens an existing database without writing to it (`--dry-run`, `status`); nil when there is none.
    public init?(readingExisting path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        self.path = path
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        database = try DatabasePool(path: path, configuration: configuration)
        // Read-only, it cannot migrate: the columns it reads must be there (later indexes only speed it up).
        let applied = try database.read { db in try Self.migrator.appliedIdentifiers(db) }
        guard Self.readableMigrations.isSubset(of: applied) else {
            throw StateStoreError(code: .anotherRelease,
                                  message: "\(path) was written by another mediabatch release: a run without --dry-run upgrades it")
        }
    }

    /// The migrations that made the columns reads need.
    private static let readableMigrations: Set<String> = ["v1", "v2: variants"]

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "items") { table in
                table.primaryKey("input", .text)
                table.column("size", .integer).notNull()
                table.column("modified", .integer).notNull()
                table.column("contentHash", .text).notNull()
                table.column("format", .text)
                table.column("contentIdentifier", .text)
                table.column("recipe", .text).notNull()
                table.column("selection", .text).notNull()
                table.column("status", .text).notNull()
                table.column("reason", .text)
                table.column("errorCode", .text)
                table.column("errorStage", .text)
                table.column("milliseconds", .integer).notNull()
                table.column("decidedRun", .integer).notNull()
                table.column("seenRun", .integer).notNull().indexed()
            }
            try db.create(table: "outputs") { table in
                table.primaryKey("path", .text)
                table.column("input", .text).notNull().indexed()
                table.column("contentHash", .text).notNull()
                table.column("size", .integer).notNull()
                table.column("modified", .integer).notNull()
                table.column("stale", .boolean).notNull()
            }
            try db.create(table: "runs") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("startedAt", .datetime).notNull()
                table.column("finishedAt", .datetime)
                table.column("pipeline", .text).notNull()
                table.column("shard", .text)
                table.column("toolVersion", .text).notNull()
                table.column("interrupted", .boolean).notNull()
                table.column("totals", .text)
            }
        }
        migrator.registerMigration("v2: variants") { db in
            try db.alter(table: "items") { table in
                table.add(column: "width", .integer)
                table.add(column: "height", .integer)
                table.add(column: "placeholder", .text)
            }
            try db.alter(table: "outputs") { table in
                table.add(column: "recipe", .text)
                table.add(column: "format", .text)
                table.add(column: "variantSize", .integer)
                table.add(column: "width", .integer)
                table.add(column: "height", .integer)
            }
        }
        migrator.registerMigration("v3: indexes for status") { db in
            // `status` on a million items: counts and failures by status, stale outputs, without a scan.
            try db.create(index: "itemsByStatus", on: "items", columns: ["status", "input"])
            try db.create(index: "outputsByStaleness", on: "outputs", columns: ["stale", "path"])
        }
        migrator.registerMigration("v4: gain maps") { db in
            try db.alter(table: "outputs") { table in table.add(column: "gainMap", .boolean) }
        }
        migrator.registerMigration("v5: variant boxes") { db in
            try db.alter(table: "outputs") { table in
                table.add(column: "variantBoxWidth", .integer)
                table.add(column: "variantBoxHeight", .integer)
            }
        }
        migrator.registerMigration("v6: captions") { db in
            try db.alter(table: "items") { table in table.add(column: "caption", .text) }
        }
        migrator.registerMigration("v7: animations") { db in
            try db.alter(table: "outputs") { table in
                table.add(column: "frames", .integer)
                table.add(column: "duration", .double)
            }
        }
        // Some databases added these columns under other migrations' names ("v7: raw+jpeg partners",
        // "v8"/"v9: output roles"): where one of those was applied, the columns are there already.
        migrator.registerMigration("v8: raw+jpeg partners", merging: ["v7: raw+jpeg partners"]) { db, applied in
            guard applied.isEmpty else { return }
            try db.alter(table: "items") { table in table.add(column: "pairedWith", .text) }
        }
        migrator.registerMigration("v9: video outputs", merging: ["v8: output roles", "v9: output roles"]) { db, applied in
            try db.alter(table: "outputs") { table in
                if applied.isEmpty { table.add(column: "role", .text) }
                table.add(column: "codec", .text)
            }
        }
        migrator.registerMigration("v10: rendition codecs") { db in
            try db.alter(table: "outputs") { table in table.add(column: "codecs", .text) }
        }
        migrator.registerMigration("v11: readings") { db in
            try db.alter(table: "items") { table in table.add(column: "readings", .text) }
        }
        migrator.registerMigration("v12: bulk readings") { db in
            try db.create(table: "bulkReadings") { table in
                table.primaryKey("input", .text)
                table.column("readings", .text).notNull()
            }
            let rows = try Row.fetchAll(db, sql: "SELECT input, readings FROM items WHERE length(readings) >= ?", arguments: [BulkReadings.threshold])
            for row in rows {
                let kept = try Self.keep((row[1] as String?).map(BulkReadings.split), of: row[0], in: db)
                try db.execute(sql: "UPDATE items SET readings = ? WHERE input = ?", arguments: [kept, row[0] as String])
            }
        }
        return migrator
    }

    /// Every write goes through here: SQLite's errors that the run acts on become typed errors.
    private func write<T>(_ updates: (Database) throws -> T) throws -> T {
        do {
            return try database.write(updates)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw StateStoreError(code: .volumeFull, message: "the state database's volume is full (\(error.message ?? "SQLITE_FULL"))")
        }
    }

    // MARK: Runs

    public func beginRun(pipeline: String, shard: String?, toolVersion: String) throws -> Int64 {
        try write { db in
            let run = RunRecord(id: nil, startedAt: Date(), finishedAt: nil, pipeline: pipeline, shard: shard,
                                toolVersion: toolVersion, interrupted: false, totals: nil)
            try run.insert(db)
            return db.lastInsertedRowID
        }
    }

    public func finishRun(_ id: Int64, interrupted: Bool, totals: String) throws {
        try write { db in
            try db.execute(sql: "UPDATE runs SET finishedAt = ?, interrupted = ?, totals = ? WHERE id = ?",
                           arguments: [Date(), interrupted, totals, id])
        }
    }

    public func lastRun() throws -> RunRecord? {
        try database.read { db in try RunRecord.order(Column("id").desc).fetchOne(db) }
    }

    // MARK: Items

    public func item(_ input: String) throws -> ItemRecord? {
        try database.read { db in
            try Self.whole(ItemRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM items WHERE input = ?"), arguments: [input]), in: db)
        }
    }

    public func outputs(of input: String) throws -> [OutputRecord] {
        try database.read { db in
            try OutputRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM outputs WHERE input = ? AND NOT stale ORDER BY path"), arguments: [input])
        }
    }

    public func output(_ path: String) throws -> OutputRecord? {
        try outputs(atPaths: [path])[path]
    }

    /// The outputs recorded at `paths`, stale ones included (they still occupy the name), by path:
    /// an item's outputs in one read.
    public func outputs(atPaths paths: [String]) throws -> [String: OutputRecord] {
        try database.read { db in
            let statement = try db.cachedStatement(sql: "SELECT * FROM outputs WHERE path = ?")
            var found: [String: OutputRecord] = [:]
            for path in paths { found[path] = try OutputRecord.fetchOne(statement, arguments: [path]) }
            return found
        }
    }

    /// Records an item's decision and its outputs in one transaction. Outputs it had before and
    /// no longer produces are kept as stale and returned. Nil outputs: those recorded stand.
    @discardableResult
    public func record(_ item: ItemRecord, outputs: [OutputRecord]?) throws -> [OutputRecord] {
        try record([(item, outputs)])[0]
    }

    /// Records several items' decisions in one transaction (a run commits what finished in the
    /// last tenth of a second together: a commit per item costs more than the item); each one's
    /// stale outputs, in order.
    public func record(_ batch: [(item: ItemRecord, outputs: [OutputRecord]?)]) throws -> [[OutputRecord]] {
        // Readings are split before the transaction: the writer holds it for SQLite's work only.
        let splits = batch.map { $0.item.readings.map(BulkReadings.split) }
        return try write { db in try zip(batch, splits).map { try Self.record($0.item, outputs: $0.outputs, readings: $1, in: db) } }
    }

    private static func record(_ item: ItemRecord, outputs: [OutputRecord]?, readings: (kept: String, bulk: String?)?,
                               in db: Database) throws -> [OutputRecord] {
        var item = item
        item.readings = try keep(readings, of: item.input, in: db)
        try item.insert(db, onConflict: .replace)
        guard let outputs else { return [] }
        let produced = Set(outputs.map(\.path))
        var stale: [OutputRecord] = []
        for var previous in try OutputRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM outputs WHERE input = ?"), arguments: [item.input])
        where !produced.contains(previous.path) {
            previous.stale = true
            try previous.update(db)
            stale.append(previous)
        }
        for output in outputs { try output.insert(db, onConflict: .replace) }
        return stale
    }

    /// Puts the long strings of an item's readings (`BulkReadings.split`) in `bulkReadings`; returns
    /// the rest, to keep in `items`. An item without readings never had any (a run keeps the last
    /// ones), so it has nothing there to remove.
    private static func keep(_ split: (kept: String, bulk: String?)?, of input: String, in db: Database) throws -> String? {
        guard let split else { return nil }
        if let bulk = split.bulk {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO bulkReadings (input, readings) VALUES (?, ?)").execute(arguments: [input, bulk])
        } else {
            try db.cachedStatement(sql: "DELETE FROM bulkReadings WHERE input = ?").execute(arguments: [input])
        }
        return split.kept
    }

    /// `item` as recorded, its readings whole again.
    private static func whole(_ item: ItemRecord?, in db: Database) throws -> ItemRecord? {
        guard var item, let readings = item.readings else { return item }
        let bulk = try String.fetchOne(db.cachedStatement(sql: "SELECT readings FROM bulkReadings WHERE input = ?"), arguments: [item.input])
        item.readings = BulkReadings.merged(readings, bulk)
        return item
    }

    /// Marks inputs listed by this run whose decision stands (unchanged), with their current
    /// stamp (a touched but identical file is not hashed again), in one transaction.
    public func markSeen(_ inputs: [(input: String, stamp: FileStamp)], run: Int64) throws {
        guard !inputs.isEmpty else { return }
        try write { db in
            let statement = try db.makeStatement(sql: "UPDATE items SET seenRun = ?, size = ?, modified = ? WHERE input = ?")
            for (input, stamp) in inputs {
                try statement.execute(arguments: [run, stamp.size, stamp.modifiedNanoseconds, input])
            }
        }
    }

    /// Items the given run did not list: their inputs vanished (or left this shard or the
    /// include globs).
    /// Inputs the given run did not list, with their outputs, in two queries (not one per item:
    /// a library that moved leaves a million of them).
    public func unseen(by run: Int64) throws -> [(input: String, outputs: [String])] {
        try database.read { db in
            let inputs = try String.fetchAll(db, sql: "SELECT input FROM items WHERE seenRun < ? ORDER BY input", arguments: [run])
            let rows = try Row.fetchAll(db, sql: """
                SELECT outputs.input, outputs.path FROM outputs JOIN items ON items.input = outputs.input
                WHERE items.seenRun < ? AND outputs.stale = 0 ORDER BY outputs.path
                """, arguments: [run])
            let outputs = Dictionary(grouping: rows, by: { $0["input"] as String }).mapValues { $0.map { $0["path"] as String } }
            return inputs.map { ($0, outputs[$0] ?? []) }
        }
    }

    /// Forgets items and every output they had, in one transaction.
    public func forget(inputs: [String]) throws {
        try write { db in
            for input in inputs {
                _ = try ItemRecord.deleteOne(db, key: input)
                try db.execute(sql: "DELETE FROM bulkReadings WHERE input = ?", arguments: [input])
                _ = try OutputRecord.filter(Column("input") == input).deleteAll(db)
            }
        }
    }

    public func staleOutputs() throws -> [OutputRecord] {
        try database.read { db in try OutputRecord.filter(Column("stale") == true).order(Column("path")).fetchAll(db) }
    }

    public func forget(output path: String) throws {
        try write { db in _ = try OutputRecord.deleteOne(db, key: path) }
    }

    /// Every item whose outputs stand, with them, in input order (the manifest), one at a time:
    /// two cursors walked together, so a million items are never in memory at once.
    public func forEachProducedOutput(_ body: (ItemRecord, [OutputRecord]) throws -> Void) throws {
        try database.read { db in
            let items = try ItemRecord.filter(Column("status") == ItemRecord.Status.ok.rawValue).order(Column("input")).fetchCursor(db)
            let outputs = try OutputRecord.filter(Column("stale") == false).order(Column("input"), Column("path")).fetchCursor(db)
            var output = try outputs.next()
            while let recorded = try items.next() {
                var own: [OutputRecord] = []
                let item = try Self.whole(recorded, in: db)!
                // Both cursors are in SQLite's order of `input`; outputs of items not listed (failed since) are passed over.
                while let current = output, Self.precedes(current.input, item.input) || current.input == item.input {
                    if current.input == item.input { own.append(current) }
                    output = try outputs.next()
                }
                if !own.isEmpty { try body(item, own) }
            }
        }
    }

    /// Every item's readings (`ItemRecord.readings`, where it has any), in the order of its input,
    /// without their long strings (`BulkReadings`: a fingerprint's picture): what reads a million
    /// items' hashes reads a tenth of the bytes.
    public func forEachReadings(_ body: (_ input: String, _ readings: String) throws -> Void) throws {
        try database.read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT input, readings FROM items WHERE readings IS NOT NULL ORDER BY input")
            while let row = try rows.next() { try body(row[0], row[1]) }
        }
    }

    /// The readings of the items of `inputs` that have any, whole, by input.
    public func readings(of inputs: [String]) throws -> [String: String] {
        try database.read { db in
            var found: [String: String] = [:]
            // A statement's parameters are limited (999 before SQLite 3.32).
            for start in stride(from: 0, to: inputs.count, by: 900) {
                let some = Array(inputs[start..<min(start + 900, inputs.count)])
                let sql = """
                    SELECT items.input, items.readings, bulkReadings.readings FROM items LEFT JOIN bulkReadings USING (input)
                    WHERE items.readings IS NOT NULL AND items.input IN (\(databaseQuestionMarks(count: some.count)))
                    """
                for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(some)) { found[row[0]] = BulkReadings.merged(row[1], row[2]) }
            }
            return found
        }
    }

    /// SQLite's default (BINARY) order of text: by UTF-8 bytes.
    private static func precedes(_ left: String, _ right: String) -> Bool {
        left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    // MARK: Status

    public func countsByStatus() throws -> [ItemRecord.Status: Int] {
        try database.read { db in
            var counts: [ItemRecord.Status: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS count FROM items GROUP BY status") {
                if let status = ItemRecord.Status(rawValue: row["status"]) { counts[status] = row["count"] }
            }
            return counts
        }
    }

    /// The first `limit` failed items by input.
    public func failures(limit: Int) throws -> [ItemRecord] {
        try database.read { db in
            try ItemRecord.filter(Column("status") == ItemRecord.Status.failed.rawValue).order(Column("input")).limit(limit).fetchAll(db)
        }
    }

    public func staleOutputCount() throws -> Int {
        try database.read { db in try OutputRecord.filter(Column("stale") == true).fetchCount(db) }
    }

    /// SQLite's own consistency check: "ok" or the problems it found.
    public func integrityCheck() throws -> String {
        try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }
}

public struct StateStoreError: Error, CustomStringConvertible {
    public enum Code: Sendable {
        /// Written by a release whose migrations this one does not know.
        case anotherRelease
        /// The database's volume has no room for the write (SQLITE_FULL).
        case volumeFull
    }

    public let code: Code
    public let message: String
    public var description: String { message }
}
