import ArgumentParser
import DuplicateKit
import Foundation
import MediaBatchCore
import PipelineModel
import RunState
import Scheduler

/// `mediabatch duplicates`: the copies of each photo among folders it fingerprints itself, or among
/// the items a run with a `fingerprint` stage recorded (its state database or its manifest).
struct DuplicatesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "Group the copies of each photo: identical files, one photo in several files, near shots.",
        discussion: """
            Tiers: identical (the same bytes); samePhoto (one capture: re-encoded, resized, another format, \
            metadata edited, turned by EXIF, cut by up to ~10%); similar (bursts and near shots, never merged \
            into samePhoto). Each group names the file kept and why. Folders are fingerprinted as `run` \
            would (worker processes, the memory budget); --state with one folder keeps their fingerprints \
            for the next time.
            """)

    @Argument(help: "Folders to read and fingerprint.")
    var folders: [String] = []

    @Option(help: "The state database of a run with a fingerprint stage; with one folder, where its fingerprints are kept.")
    var state: String?

    @Option(help: "The manifest of a run with a fingerprint stage.")
    var manifest: String?

    @Flag(help: "JSON: {\"groups\": [{\"tier\", \"keeper\", \"why\", \"members\"}], \"unread\": [{\"path\", \"reason\"}]}.")
    var json = false

    @Option(help: "Files read at once (default: usable CPUs).")
    var jobs: Int?

    @Option(help: "Memory the files read at once may use together, e.g. 600MiB.")
    var memoryBudget: ByteSize = ByteSize(bytes: 1 << 30)

    func validate() throws {
        let sources = (folders.isEmpty ? 0 : 1) + (manifest == nil ? 0 : 1) + (state != nil && folders.isEmpty ? 1 : 0)
        guard sources == 1 else { throw ValidationError("give folders, --state DB or --manifest M: one source") }
        if state != nil && folders.count > 1 { throw ValidationError("--state keeps one folder's fingerprints: give one folder with it") }
    }

    func run() throws {
        var found = Found()
        let groups: [DuplicateGroup]
        if !folders.isEmpty {
            for folder in folders { try scan(folder, into: &found) }
            groups = found.groups
        } else if let manifest {
            try read(manifest: commandLinePath(manifest), into: &found)
            groups = found.groups
        } else {
            groups = try grouped(state: commandLinePath(state!), into: &found)
        }
        if json { try printJSON(groups, found) } else { printText(groups, found) }
    }

    typealias Found = DuplicateScan.Found
}

extension DuplicatesCommand {
    /// Fingerprints `folder` as `run` would (`DuplicateScan`).
    private func scan(_ folder: String, into found: inout Found) throws {
        let scratch = FileManager.default.temporaryDirectory.appending(path: "mediabatch-duplicates-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let prefix = folders.count > 1 ? folder.hasSuffix("/") ? folder : folder + "/" : ""
        let scanned = try DuplicateScan.scan(.init(root: commandLinePath(folder), scratch: scratch, statePath: state.map(commandLinePath)),
                                             concurrency: jobs ?? AvailableCPUs.count, budget: memoryBudget,
                                             workers: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(), prefix: prefix)
        found.add(scanned)
    }

    /// The items a run's manifest holds.
    private func read(manifest: URL, into found: inout Found) throws {
        struct Document: Decodable { let items: [Manifest.Item] }
        let document = try JSONDecoder().decode(Document.self, from: Data(contentsOf: manifest))
        for item in document.items {
            if let reading = FingerprintReading(item.readings) { found.add(reading, path: item.input) }
        }
    }

    /// The groups among the items a run's state database holds; their pictures are read again
    /// where the hashes found a pair (a million items' would not fit in memory).
    private func grouped(state: URL, into found: inout Found) throws -> [DuplicateGroup] {
        guard let store = try StateStore(readingExisting: state.path) else {
            printError("error: no state database at \(state.path)")
            throw ExitCode(ExitStatus.invalid)
        }
        found.reserveCapacity(try store.countsByStatus().values.reduce(0, +))
        // Parsed a batch at a time on every CPU; only the hashes are kept: the pictures are read again for the pairs they find.
        var batch: [(input: String, text: String)] = []
        func parse() {
            let parsed = Self.inParallel(batch.count) { FingerprintReading(readingsText: batch[$0].text, .withoutPicture)?.candidate(path: batch[$0].input) }
            for candidate in parsed.compactMap({ $0 }) { found.add(candidate, fingerprint: nil) }
            batch.removeAll(keepingCapacity: true)
        }
        try store.forEachReadings { input, text in
            batch.append((input, text))
            if batch.count == 8192 { parse() }
        }
        parse()
        let candidates = found.candidates, lanes = AvailableCPUs.count
        return DuplicateSearch.groups(candidates) { indices in
            // A share of the indices a CPU, each read on its own connection and parsed there.
            let shares = Self.inParallel(lanes) { lane -> [(Int, PhotoFingerprint)] in
                let share = indices[indices.count * lane / lanes..<indices.count * (lane + 1) / lanes]
                let texts = (try? store.readings(of: share.map { candidates[$0].path })) ?? [:]
                return share.compactMap { index in texts[candidates[index].path].flatMap { FingerprintReading(readingsText: $0)?.print }.map { (index, $0) } }
            }
            return Dictionary(uniqueKeysWithValues: shares.compactMap { $0 }.joined())
        }
    }

    /// `body` of each of `0..<count`, on every CPU.
    private static func inParallel<T>(_ count: Int, _ body: (Int) -> T?) -> [T?] {
        var results = [T?](repeating: nil, count: count)
        results.withUnsafeMutableBufferPointer { buffer in
            let results = buffer, lanes = AvailableCPUs.count
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                for index in stride(from: lane, to: count, by: lanes) { results[index] = body(index) }
            }
        }
        return results
    }

    /// One group a line, each printed as it is encoded: a million photos' groups are never one document in memory.
    private func printJSON(_ groups: [DuplicateGroup], _ found: Found) throws {
        let candidates = found.candidates
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func printArray<T>(_ key: String, _ items: [T], last: Bool, _ value: (T) -> JSONValue) throws {
            print("  \"\(key)\": [")
            for (index, item) in items.enumerated() {
                let line = String(decoding: try encoder.encode(value(item)), as: UTF8.self)
                print("    \(line)\(index == items.count - 1 ? "" : ",")")
            }
            print(last ? "  ]" : "  ],")
        }
        print("{")
        try printArray("groups", groups, last: false) { group in
            ["tier": .string(group.tier.rawValue), "keeper": .string(candidates[group.keeper].path), "why": .string(group.why),
             "members": .array(group.members.map { .string(candidates[$0].path) })]
        }
        try printArray("unread", found.unread, last: true) { ["path": .string($0.path), "reason": .string($0.reason)] }
        print("}")
    }

    private func printText(_ groups: [DuplicateGroup], _ found: Found) {
        let candidates = found.candidates
        for group in groups {
            print("\(group.tier.rawValue): keep \(candidates[group.keeper].path) (\(group.why))")
            for member in group.members where member != group.keeper { print("    \(candidates[member].path)") }
        }
        for file in found.unread { print("unread: \(file.path): \(file.reason)") }
        let copies = groups.filter { $0.tier != .similar }.reduce(0) { $0 + $1.members.count - 1 }
        printError("mediabatch: \(candidates.count) files, \(groups.count) groups, \(copies) copies beside their keepers, \(found.unread.count) unread")
    }
}
