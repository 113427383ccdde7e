import Foundation
import XCTest

/// A state database an earlier release wrote (`Tests/Fixtures/state`, made by
/// `scripts/fixtures/make-state-fixtures.sh`; its README says which commit wrote which), with the
/// outputs its run left beside it.
public struct StateFixture: CustomStringConvertible, Sendable {
    public let name: String
    public let commit: String
    /// The migrations the database records, in the order they were applied.
    public let migrations: [String]
    /// The output version of the code that wrote it (`OutputVersion.current` then).
    public let outputVersion: String
    /// The libvips release it ran with, as `Vips.version` gives it ("8.14").
    public let libvips: String

    public var description: String { "\(name) (\(commit))" }

    public static let folder = Fixtures.fixtures.appendingPathComponent("state")
    /// The pipeline every fixture's run was given.
    public static let pipeline = folder.appendingPathComponent("pipeline.json")
    /// The samples every run was given, under their own relative paths.
    public static let samples = ["heic/L_exif_xmp_iptc.heic", "jpeg/samsung_gt-i9000_gps00_rot90.jpg", "png/macos_screenshot_exif.png"]
    /// Beside them: an empty `.jpg` (a failed item) and a text file (a skipped one).
    public static let empty = "empty.jpg"
    public static let notMedia = "notes.txt"
    public static let notMediaBytes = Data("not media\n".utf8)
    public static let inputs = (samples + [empty, notMedia]).sorted()

    /// Every fixture, in the order of MANIFEST.tsv (the schemas' order).
    public static let all: [StateFixture] = {
        let text = try! String(contentsOf: folder.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return StateFixture(name: fields[0], commit: fields[1], migrations: fields[2].split(separator: ";").map(String.init),
                                outputVersion: fields[3], libvips: fields[4])
        }
    }()

    public var database: URL { Self.folder.appendingPathComponent("\(name).sqlite") }
    public var outputs: URL { Self.folder.appendingPathComponent("\(name)-output") }

    /// A copy of the database in a fresh folder (the fixture itself is never opened: a migration
    /// would change it).
    public func copyOfDatabase() throws -> URL {
        let copy = Fixtures.temporaryFolder("state-\(name)").appendingPathComponent("state.sqlite")
        try FileManager.default.copyItem(at: database, to: copy)
        return copy
    }

    /// The outputs the fixture's run left, copied to `root` (which must not exist yet).
    public func copyOutputs(to root: URL) throws {
        try FileManager.default.copyItem(at: outputs, to: root)
    }

    /// The input folder the fixture's run had, made again under `root`: the same bytes, new times.
    public static func makeInputs(in root: URL) throws {
        for sample in samples {
            let destination = root.appendingPathComponent(sample)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: destination.path)
        }
        try Data().write(to: root.appendingPathComponent(empty))
        try notMediaBytes.write(to: root.appendingPathComponent(notMedia))
    }
}

/// A database as SQLite itself shows it (through the `sqlite3` shell, not GRDB): for checking what
/// a migration did to the tables, beneath what the store reads back.
public enum SQLiteShell {
    /// Each row as column → value in SQLite's text form; nil for NULL.
    public static func rows(_ database: URL, _ sql: String) throws -> [[String: String?]] {
        try rows(database, [sql])[0]
    }

    /// Each statement's rows, from one `sqlite3` process (starting one costs more than the queries).
    public static func rows(_ database: URL, _ statements: [String]) throws -> [[[String: String?]]] {
        // A statement with no rows prints nothing: each is preceded by one that prints its number.
        let script = statements.enumerated().map { "SELECT \($0.offset) AS statement; \($0.element);" }.joined(separator: "\n")
        let result = try runProcess("sqlite3", ["-json", "-readonly", database.path, script])
        guard result.exitCode == 0 else { throw ShellError(message: "sqlite3 \(script): \(result.stderr)") }
        // Every result is one JSON array, which starts a line; its rows' newlines are escaped.
        var results = Array(repeating: [[String: String?]](), count: statements.count)
        var current = 0
        for array in result.stdout.components(separatedBy: "\n[").map({ $0.hasPrefix("[") ? $0 : "[" + $0 }) {
            let decoded = try JSONSerialization.jsonObject(with: Data(array.utf8)) as? [[String: Any]] ?? []
            if decoded.count == 1, decoded[0].count == 1, let number = decoded[0]["statement"] as? Int {
                current = number
                continue
            }
            results[current] = decoded.map { row in row.mapValues { value -> String? in value is NSNull ? nil : "\(value)" } }
        }
        return results
    }

    /// The migrations GRDB recorded, in the order they were applied.
    public static func migrations(_ database: URL) throws -> [String] {
        try rows(database, "SELECT identifier FROM grdb_migrations ORDER BY rowid").map { $0["identifier"]!! }
    }

    public struct ShellError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
