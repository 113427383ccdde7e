import Foundation

/// Finished items' results on disk instead of in memory, so that a run of a million items holds
/// only those in flight and the last few hundred results. Results arrive in whatever order items
/// finish; each `runLength` of them are sorted by input and written as one sorted run of JSON
/// lines in `folder` (the run's temporary folder, which the next run empties if this one is
/// killed). Every `fanIn` runs of one level are merged into one run of the next, so that reading
/// back merges a few dozen runs, never thousands of open files. Reading merges the runs in input
/// order, as the report lists items. A spool that cannot be written (a full disk) keeps counting
/// but fails the reading: a report is whole or not written.
final class ResultSpool: @unchecked Sendable {
    private let folder: URL
    private let runLength: Int
    private let fanIn: Int
    private let lock = NSLock()
    private let encoder = JSONEncoder()
    /// Encoded results not yet in a run, with their inputs to sort by.
    private var pending: [(input: String, line: Data)] = []
    /// Runs by level: a run of level n holds up to `runLength × fanInⁿ` results.
    private var levels: [[URL]] = []
    private var written = 0
    private var totals = RunSummary.Totals()
    private var failure: Error?

    init(folder: URL, runLength: Int = 512, fanIn: Int = 16) {
        self.folder = folder
        self.runLength = runLength
        self.fanIn = fanIn
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// What every result appended so far adds up to.
    var total: RunSummary.Totals {
        lock.lock()
        defer { lock.unlock() }
        return totals
    }

    func append(_ result: ItemResult) {
        lock.lock()
        defer { lock.unlock() }
        totals.count(result)
        guard failure == nil else { return }
        do {
            pending.append((result.input, try encoder.encode(result)))
            guard pending.count >= runLength else { return }
            try add(run: writeRun(pending.sorted { $0.input < $1.input }.lazy.map(\.line)), level: 0)
            pending.removeAll(keepingCapacity: true)
        } catch {
            failure = SpoolError(description: "the report's spool in \(folder.path) lost results: \(error)")
        }
    }

    /// Every result in input order; once everything is appended.
    func forEachInOrder(_ body: (ItemResult) throws -> Void) throws {
        if let failure { throw failure }
        let decoder = JSONDecoder()
        let memory = pending.sorted { $0.input < $1.input }.lazy.map(\.line)
        try InputOrderMerge.merge(levels.joined().map(JSONLinesReader.init) + [MemoryLines(memory.makeIterator())]) { _, line in
            try body(decoder.decode(ItemResult.self, from: line))
        }
    }

    /// Removes every run written.
    func remove() {
        levels.joined().forEach(Self.delete)
        levels.removeAll()
    }

    private static func delete(_ run: URL) {
        unlink(run.path)
        TemporaryFiles.shared.unregister(run.path)
    }

    private func add(run: URL, level: Int) throws {
        if levels.count == level { levels.append([]) }
        levels[level].append(run)
        guard levels[level].count == fanIn else { return }
        let runs = levels[level]
        levels[level].removeAll()
        let writer = try newRun()
        try InputOrderMerge.merge(runs.map(JSONLinesReader.init)) { try writer.1.append(line: $1) }
        try writer.1.close()
        runs.forEach(Self.delete)
        try add(run: writer.0, level: level + 1)
    }

    private func writeRun<Lines: Sequence<Data>>(_ lines: Lines) throws -> URL {
        let (url, writer) = try newRun()
        for line in lines { try writer.append(line: line) }
        try writer.close()
        return url
    }

    private func newRun() throws -> (URL, JSONLinesWriter) {
        written += 1
        let url = folder.appending(path: "spool-\(getpid())-\(written).jsonl")
        TemporaryFiles.shared.register(url.path)
        return (url, try JSONLinesWriter(url))
    }
}

/// The results not yet in a run, as a merge reads them.
private final class MemoryLines<Lines: IteratorProtocol<Data>>: LineSource {
    private var lines: Lines

    init(_ lines: Lines) {
        self.lines = lines
    }

    func next() throws -> Data? {
        lines.next()
    }
}

struct SpoolError: Error, CustomStringConvertible {
    let description: String
}
