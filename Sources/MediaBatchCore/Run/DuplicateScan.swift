import DuplicateKit
import Foundation
import MediaFormats
import PipelineModel

/// Fingerprints the files of a folder with a pipeline of `decode` and `fingerprint`, run as any
/// pipeline is (worker processes, the memory budget, a state database that keeps the fingerprints
/// of unchanged files): what `mediabatch duplicates DIR` groups, and what `input.duplicates: keeper`
/// skips copies by.
public enum DuplicateScan {
    /// The files with a fingerprint reading and their fingerprints, and those that could not be read, with why.
    public struct Found {
        public private(set) var candidates: [DuplicateCandidate] = []
        /// By candidate; sparse: those grouped from a state database are read again when asked for.
        public private(set) var fingerprints: [Int: PhotoFingerprint] = [:]
        public var unread: [(path: String, reason: String)] = []

        public init() {}

        public mutating func add(_ reading: FingerprintReading, path: String) {
            add(reading.candidate(path: path), fingerprint: reading.print)
        }

        /// Room for `count` files: a million candidates grown by doubling would be copied, the old beside the new.
        public mutating func reserveCapacity(_ count: Int) {
            candidates.reserveCapacity(count)
        }

        /// `fingerprint`: nil where it is to be read again when asked for (`DuplicateSearch.groups`).
        public mutating func add(_ candidate: DuplicateCandidate, fingerprint: PhotoFingerprint?) {
            fingerprints[candidates.count] = fingerprint
            candidates.append(candidate)
        }

        public mutating func add(_ other: Found) {
            for (index, fingerprint) in other.fingerprints { fingerprints[candidates.count + index] = fingerprint }
            candidates += other.candidates
            unread += other.unread
        }

        public var groups: [DuplicateGroup] {
            DuplicateSearch.groups(candidates) { indices in
                Dictionary(uniqueKeysWithValues: indices.compactMap { index in fingerprints[index].map { (index, $0) } })
            }
        }
    }

    /// What to read: `root`'s files matching `include` and not `exclude`. `scratch` is the run's
    /// output root (nothing is written there but its temporary files and, without `statePath`, its
    /// state database); `workers`: the executable whose `worker` command decodes (nil: this process).
    public struct Folder {
        public var root: URL
        public var include = Defaults.include
        public var exclude = Defaults.exclude
        public var followSymlinks = Defaults.followSymlinks
        public var formats = Defaults.formats
        /// Which files of a RAW+JPEG pair are read: `both` lists a RAW beside its JPEG (`mediabatch
        /// duplicates`); a pipeline's keeper scan reads those its run processes.
        public var rawJpegPairs = Pipeline.RawJpegPairs.both
        public var scratch: URL
        public var statePath: URL?

        public init(root: URL, scratch: URL, statePath: URL? = nil) {
            self.root = root
            self.scratch = scratch
            self.statePath = statePath
        }
    }

    /// Every file's reading, its path relative to the root after `prefix`.
    public static func scan(_ folder: Folder, concurrency: Int, budget: ByteSize, workers: URL?, prefix: String = "") throws -> Found {
        let document: JSONValue = [
            "version": 1,
            "input": ["root": .string(folder.root.path), "include": .array(folder.include.map { .string($0) }),
                      "exclude": .array(folder.exclude.map { .string($0) }), "followSymlinks": .bool(folder.followSymlinks),
                      "formats": .array(folder.formats.map(\.rawValue).sorted().map(JSONValue.string)),
                      "rawJpegPairs": .string(folder.rawJpegPairs.rawValue),
                      "trusted": .bool(workers == nil)],
            "output": ["root": .string(folder.scratch.path)],
            "stages": [["stage": "decode"], ["stage": "fingerprint"]],
        ]
        let data = try JSONEncoder().encode(document)
        var options = RunOptions(inputRoot: folder.root, outputRoot: folder.scratch, concurrency: concurrency, memoryBudget: budget,
                                 pipelineName: "duplicates", dryRun: false)
        options.statePath = folder.statePath
        options.durability = .none
        options.isolation = workers.map { .init(executable: $0, pipelineDocument: data, pipelineFolder: folder.scratch) }
        let collected = Collected(prefix: prefix)
        _ = try PipelineRunner(pipeline: try Pipeline.decode(data, baseDirectory: folder.scratch), options: options, onItemFinished: collected.add).run()
        return collected.found
    }

    /// For `input.duplicates: keeper`: each copy's path (relative to the root) and why it is skipped,
    /// "duplicateOf: KEEPER (tier)", for the identical and samePhoto groups among `found`.
    public static func copies(in found: Found) -> [String: String] {
        var copies: [String: String] = [:]
        for group in found.groups where group.tier != .similar {
            let keeper = found.candidates[group.keeper].path
            for member in group.members where member != group.keeper {
                copies[found.candidates[member].path] = "duplicateOf: \(keeper) (\(group.tier.rawValue))"
            }
        }
        return copies
    }

    /// The scan's items, as the runner's threads finish them.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private let prefix: String
        private(set) var found = Found()

        init(prefix: String) {
            self.prefix = prefix
        }

        func add(_ result: ItemResult) {
            lock.lock()
            defer { lock.unlock() }
            let path = prefix + result.input
            if let error = result.error {
                found.unread.append((path, "\(error.stage): \(error.message)"))
            } else if let reading = FingerprintReading(result.readings) {
                found.add(reading, path: path)
            }
        }
    }
}
