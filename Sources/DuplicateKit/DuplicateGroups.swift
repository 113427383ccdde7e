/// One file as the duplicate search sees it: its bytes' hash, what its photo looks like (nil:
/// flat, grouped by its bytes alone) and what decides the keeper.
public struct DuplicateCandidate: Sendable {
    public let path: String
    /// The first 128 bits of the file's SHA-256: as good a name for its bytes, in 16 bytes a file.
    public let content: ContentKey
    public let fingerprint: PhotoFingerprint?
    public let keeper: KeeperFacts

    /// `contentHash`: the SHA-256, hexadecimal.
    public init(path: String, contentHash: String, fingerprint: PhotoFingerprint?, keeper: KeeperFacts) {
        self.path = path
        content = ContentKey(contentHash)
        self.fingerprint = fingerprint
        self.keeper = keeper
    }
}

public struct ContentKey: Hashable, Sendable {
    let high: UInt64, low: UInt64

    init(_ hex: String) {
        let digits = Array(hex.utf8.prefix(32))
        high = UInt64(String(decoding: digits.prefix(16), as: UTF8.self), radix: 16) ?? 0
        low = UInt64(String(decoding: digits.dropFirst(16), as: UTF8.self), radix: 16) ?? 0
    }
}

/// Files that are one photo, or nearly: `identical` (the same bytes), `samePhoto` (one capture in
/// several files: re-encoded, resized, in another format, metadata edited, cut by up to ~10%)
/// or `similar` (bursts, near shots: listed, never merged into `samePhoto`).
public struct DuplicateGroup: Equatable, Sendable {
    public enum Tier: String, Sendable, CaseIterable {
        case identical, samePhoto, similar
    }

    public let tier: Tier
    /// Indices into the candidates, by path; `keeper` is one of them.
    public let members: [Int]
    public let keeper: Int
    /// Why the keeper is the one kept, in words.
    public let why: String
}

/// The search: the hash index finds candidate pairs, the aligned grids decide each. Movies are
/// compared with movies, stills with stills (a Live Photo's movie is not a copy of its photo).
public enum DuplicateSearch {
    /// One photo, as far apart as `FingerprintDistance` measures (bench/README.md: a labelled set of 440
    /// files). Of one size, compared whole: re-encoded, another format, turned by EXIF lie ≤ 0.0056, burst
    /// frames ≥ 0.0061.
    public static let samePhotoSameSize = 0.006
    /// Of other sizes, where no crop explains the difference (a resize): ≤ this.
    public static let samePhotoResized = 0.015
    /// Where a crop does (aligned, the distance falls below `cropGain` of the whole's): ≤ this. A video
    /// frame against its Live Photo's still lies 0.0265 apart, and aligns at 0.6 of the whole's.
    public static let samePhotoCut = 0.033
    static let cropGain = 0.6
    /// At most this far apart: a near shot.
    public static let similar = 0.12
    /// A copy's hash lies within this many bits of its photo's, or of the hash of the window it was cut from
    /// (`PhotoFingerprint.windows`); the most `HammingIndex` finds every match within.
    public static let candidateRadius = 8

    public static func groups(_ candidates: [DuplicateCandidate]) -> [DuplicateGroup] {
        var copies: [ContentKey: [Int]] = [:]
        for (index, candidate) in candidates.enumerated() { copies[candidate.content, default: []].append(index) }
        // One representative a content: the first file with it, in the order given.
        let representatives = copies.values.map { $0[0] }.sorted()
        let pictured = representatives.filter { candidates[$0].fingerprint != nil }
        let prints = pictured.map { candidates[$0].fingerprint! }
        var same = UnionFind(count: pictured.count)
        var near: [(Int, Int)] = []
        let movies = pictured.map { candidates[$0].keeper.format?.isVideo == true }
        for (a, b) in candidatePairs(prints) where movies[a] == movies[b] && FingerprintDistance.shapesMatch(prints[a], prints[b]) {
            switch tier(prints[a], prints[b]) {
            case .samePhoto?: same.union(a, b)
            case .similar?: near.append((a, b))
            default: break
            }
        }
        let files = { (contents: [Int]) in contents.flatMap { copies[candidates[$0].content]! } }
        var groups: [DuplicateGroup] = []
        var photos: [Int: [Int]] = [:]
        for index in pictured.indices { photos[same.root(index), default: []].append(pictured[index]) }
        for contents in photos.values where contents.count > 1 {
            groups.append(group(.samePhoto, files(contents), candidates))
        }
        let grouped = Set(photos.values.filter { $0.count > 1 }.joined())
        for representative in representatives where !grouped.contains(representative) {
            let same = copies[candidates[representative].content]!
            if same.count > 1 { groups.append(group(.identical, same, candidates)) }
        }
        groups += similarGroups(near, same: &same, photos: photos, files: files, candidates)
        return groups.sorted { ($0.tier.order, candidates[$0.keeper].path) < ($1.tier.order, candidates[$1.keeper].path) }
    }

    /// Each pair (a < b) whose hashes lie within `candidateRadius`, one's whole against a window of the other's, once.
    static func candidatePairs(_ prints: [PhotoFingerprint]) -> [(Int, Int)] {
        let windows = PhotoFingerprint.windows.count
        let index = HammingIndex(Self.windowHashes(prints))
        var pairs = index.pairs(of: prints.map(\.hash), within: candidateRadius).compactMap { found -> UInt64? in
            let other = found.match / windows
            guard other != found.query else { return nil }
            return UInt64(min(other, found.query)) << 32 | UInt64(max(other, found.query))
        }
        pairs.sort()
        var unique: [(Int, Int)] = []
        for (position, pair) in pairs.enumerated() where position == 0 || pairs[position - 1] != pair {
            unique.append((Int(pair >> 32), Int(pair & 0xffff_ffff)))
        }
        return unique
    }

    /// What two fingerprints are to each other: one photo, near shots, or nothing.
    static func tier(_ a: PhotoFingerprint, _ b: PhotoFingerprint) -> DuplicateGroup.Tier? {
        let sameSize = FingerprintDistance.sameSize(a, b)
        let comparison = FingerprintDistance.between(a, b, enough: sameSize ? samePhotoSameSize : samePhotoResized)
        let cut = comparison.aligned <= cropGain * comparison.whole
        let limit = sameSize ? samePhotoSameSize : cut ? samePhotoCut : samePhotoResized
        if comparison.aligned <= limit { return .samePhoto }
        return comparison.aligned <= similar ? .similar : nil
    }

    /// Every print's `windowHashes`, in order, computed by both CPUs' worth of threads.
    static func windowHashes(_ prints: [PhotoFingerprint]) -> [UInt64] {
        concatenatedInChunks(prints.count, least: 1024) { range in prints[range].flatMap(\.windowHashes) }
    }

    /// Photos linked by near shots, each photo with all its files.
    private static func similarGroups(_ near: [(Int, Int)], same: inout UnionFind, photos: [Int: [Int]], files: ([Int]) -> [Int],
                                      _ candidates: [DuplicateCandidate]) -> [DuplicateGroup] {
        var shots = UnionFind(count: photos.values.reduce(0) { $0 + $1.count })
        for (a, b) in near { shots.union(same.root(a), same.root(b)) }
        var linked: [Int: Set<Int>] = [:]
        for (a, b) in near {
            for photo in [same.root(a), same.root(b)] { linked[shots.root(photo), default: []].insert(photo) }
        }
        return linked.values.filter { $0.count > 1 }.map { roots in group(.similar, files(roots.flatMap { photos[$0]! }), candidates) }
    }

    private static func group(_ tier: DuplicateGroup.Tier, _ members: [Int], _ candidates: [DuplicateCandidate]) -> DuplicateGroup {
        let sorted = members.sorted { candidates[$0].path < candidates[$1].path }
        let (keeper, why) = KeeperRule.choose(sorted.map { candidates[$0] })
        return DuplicateGroup(tier: tier, members: sorted, keeper: sorted[keeper], why: why)
    }
}

extension DuplicateGroup.Tier {
    var order: Int { Self.allCases.firstIndex(of: self)! }
}

/// Disjoint sets over 0..<count, by size, with path halving.
struct UnionFind {
    private var parent: [Int]
    private var size: [Int]

    init(count: Int) {
        parent = Array(0..<count)
        size = [Int](repeating: 1, count: count)
    }

    mutating func root(_ element: Int) -> Int {
        var element = element
        while parent[element] != element {
            parent[element] = parent[parent[element]]
            element = parent[element]
        }
        return element
    }

    mutating func union(_ a: Int, _ b: Int) {
        var (a, b) = (root(a), root(b))
        guard a != b else { return }
        if size[a] < size[b] { swap(&a, &b) }
        parent[b] = a
        size[a] += size[b]
    }
}
