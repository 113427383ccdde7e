import Foundation

/// One of `count` deterministic parts of the input, for running a library across machines.
/// An item belongs to the shard its anchor hashes to: its folder and lower-cased stem, or its
/// still's for a Live Photo movie. So adding files never moves others, a Live Photo's halves
/// stay together, and inputs that would collide on one output name (IMG_1.HEIC, IMG_1.JPG)
/// meet in one shard, where the collision is caught.
public struct Shard: Equatable, Sendable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws {
        guard count >= 1 else { throw ShardError("the shard count must be at least 1, found \(count)") }
        guard (0..<count).contains(index) else {
            throw ShardError("the shard index must be from 0 to \(count - 1), found \(index)")
        }
        self.index = index
        self.count = count
    }

    /// `INDEX/COUNT`, e.g. `0/4`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError("expected INDEX/COUNT (e.g. 0/4), found \"\(text)\"")
        }
        try self.init(index: index, count: count)
    }

    /// From the array-job variables of Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX`), Slurm
    /// (`SLURM_ARRAY_TASK_ID` less `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_COUNT`) or AWS
    /// Batch (`AWS_BATCH_JOB_ARRAY_INDEX`). Kubernetes and AWS do not say how many there are:
    /// `count` (`--shard-count`, else `MEDIABATCH_SHARD_COUNT`) does. Nil when none is set.
    public static func fromEnvironment(_ environment: [String: String], count: Int?) throws -> Shard? {
        let count = count ?? environment["MEDIABATCH_SHARD_COUNT"].flatMap(Int.init)
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text) else { throw ShardError("\(name) must be a number, found \"\(text)\"") }
            return value
        }
        if let task = try number("SLURM_ARRAY_TASK_ID") {
            guard let slurmCount = try number("SLURM_ARRAY_TASK_COUNT") ?? count else {
                throw ShardError("SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT; pass --shard-count")
            }
            return try Shard(index: task - (try number("SLURM_ARRAY_TASK_MIN") ?? 0), count: slurmCount)
        }
        for name in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            guard let index = try number(name) else { continue }
            guard let count else { throw ShardError("\(name) is set: pass --shard-count N (or set MEDIABATCH_SHARD_COUNT)") }
            return try Shard(index: index, count: count)
        }
        return nil
    }

    public var description: String { "\(index)/\(count)" }

    /// For file names: `shard-0-of-4`.
    public var tag: String { "shard-\(index)-of-\(count)" }

    public func contains(_ item: InputItem) -> Bool {
        count == 1 || Self.stableHash(Self.anchor(of: item)) % UInt64(count) == UInt64(index)
    }

    static func anchor(of item: InputItem) -> String {
        let named = item.livePhoto.flatMap { $0.role == .video ? InputItem(root: item.root, relativePath: $0.partner) : nil } ?? item
        return named.relativeFolder + "/" + named.stem.lowercased()
    }

    /// FNV-1a, 64 bits: the same on every machine and every run (Swift's `Hasher` is seeded per process).
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

public struct ShardError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
