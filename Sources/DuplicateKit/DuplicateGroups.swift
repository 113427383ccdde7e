/// One file as the duplicate search sees it: its bytes' hash, its photo's hashes (none: flat or
/// unread, grouped by its bytes alone) and what decides the keeper. Its fingerprint's picture is
/// asked for only where a hash found it a candidate (`DuplicateSearch.groups`): a million files'
/// pictures would not fit in memory, their hashes do.
public struct DuplicateCandidate: Sendable {
    public let path: String
    /// The first 128 bits of the file's SHA-256: as good a name for its bytes, in 16 bytes a file.
    public let content: ContentKey
    public let keeper: KeeperFacts
    /// `PhotoFingerprint.hashes`; nil: flat or unread.
    public let hashes: WindowHashes?

    /// `contentHash`: the SHA-256, hexadecimal.
    public init(path: String, contentHash: String, hashes: [UInt64], keeper: KeeperFacts) {
        self.path = path
        content = ContentKey(contentHash)
        self.keeper = keeper
        self.hashes = WindowHashes(hashes)
    }

    var shape: PixelShape { PixelShape(width: keeper.width, height: keeper.height) }
}

/// A photo's window hashes (`PhotoFingerprint.windows`), inline: a million photos' are a million
/// values, not a million arrays to allocate, count and free.
public struct WindowHashes: Sendable {
    private var storage = InlineArray<15, UInt64>(repeating: 0)

    /// nil unless there is one a window.
    init?(_ hashes: [UInt64]) {
        guard hashes.count == storage.count, storage.count == PhotoFingerprint.windows.count else { return nil }
        for (window, hash) in hashes.enumerated() { storage[window] = hash }
    }

    public subscript(window: Int) -> UInt64 { storage[window] }

    public var values: [UInt64] { (0..<storage.count).map { storage[$0] } }
}

public struct ContentKey: Hashable, Comparable, Sendable {
    let high: UInt64, low: UInt64

    init(_ hex: String) {
        let digits = Array(hex.utf8.prefix(32))
        high = UInt64(String(decoding: digits.prefix(16), as: UTF8.self), radix: 16) ?? 0
        low = UInt64(String(decoding: digits.dropFirst(16), as: UTF8.self), radix: 16) ?? 0
    }

    public static func < (left: Self, right: Self) -> Bool { (left.high, left.low) < (right.high, right.low) }
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

/// The search: the hash index finds candidate pairs, the aligned grids decide each.
public enum DuplicateSearch {
    /// One photo, as far apart as `FingerprintDistance` measures (bench/duplicates: a labelled set of
    /// 440 files). Of one size, compared whole: a re-encode, another format, turned by EXIF, metadata
    /// edited lie ≤ 0.003 from the original; burst frames (which are of one size) ≥ 0.006.
    public static let samePhotoSameSize = 0.004
    /// Of other sizes, aligned over the crops one may be of the other: resizes and crops of up to 10%
    /// lie ≤ 0.008 from a file of their photo; a Live Photo's still against its movie's frames ≥ 0.02.
    public static let samePhotoOtherSize = 0.013
    /// At most this far apart: a near shot.
    public static let similar = 0.12
    /// A copy's hash lies within this many bits of the hash of the window of its photo it shows
    /// (`PhotoFingerprint.windows`): every copy of the set but those of a 32 × 24 synthetic gradient
    /// does. `HammingIndex` finds them with one bit flipped a block: 5 is its cheapest radius.
    public static let candidateRadius = 5
    /// Burst frames' whole hashes lie up to 8 bits apart (two frames of a train 0.3 s apart, as
    /// FFmpeg 7 cuts them): the wholes are searched among themselves this far too (two bits a block),
    /// so that near shots are listed.
    public static let nearShotRadius = 8

    /// The groups among `candidates`. `fingerprints` gives the fingerprints of candidates by their
    /// indices (those it has), a few thousand at a time: those the hashes paired.
    public static func groups(_ candidates: [DuplicateCandidate], fingerprints: ([Int]) -> [Int: PhotoFingerprint]) -> [DuplicateGroup] {
        let contents = Contents(candidates)
        let pictured = contents.representatives.filter { candidates[$0].hashes != nil }
        var same = UnionFind(count: pictured.count)
        var near: [(Int, Int)] = []
        for (a, b, tier) in tiers(of: candidates, pictured, fingerprints: fingerprints) {
            if tier == .samePhoto { same.union(a, b) } else { near.append((a, b)) }
        }
        let files = { (representatives: [Int]) in representatives.flatMap { contents.files(of: $0) } }
        // The photos of more than one content, by their root: a million photos are mostly alone.
        var sizes = [Int32](repeating: 0, count: pictured.count)
        for index in pictured.indices { sizes[same.root(index)] += 1 }
        var photos: [Int: [Int]] = [:]
        for index in pictured.indices where sizes[same.root(index)] > 1 { photos[same.root(index), default: []].append(pictured[index]) }
        var groups = photos.values.map { group(.samePhoto, files($0), candidates) }
        let grouped = Set(photos.values.joined())
        for representative in contents.representatives where !grouped.contains(representative) {
            let same = contents.files(of: representative)
            if same.count > 1 { groups.append(group(.identical, same, candidates)) }
        }
        groups += similarGroups(near, same: &same, files: { root in files(photos[root] ?? [pictured[root]]) }, candidates: candidates)
        return groups.sorted { ($0.tier.order, candidates[$0.keeper].path) < ($1.tier.order, candidates[$1.keeper].path) }
    }

    /// Each pair of `pictured` one photo or near shots, with which (indices into `pictured`);
    /// `fingerprints` gives those of candidates by their indices.
    private static func tiers(of candidates: [DuplicateCandidate], _ pictured: [Int], fingerprints: ([Int]) -> [Int: PhotoFingerprint])
        -> [(Int, Int, DuplicateGroup.Tier)] {
        let shape = { (index: Int) in candidates[pictured[index]].shape }
        let isVideo = { (index: Int) in candidates[pictured[index]].keeper.format?.isVideo == true }
        let pairs = candidatePairs(pictured.count) { candidates[pictured[$0]].hashes![$1] }.filter { a, b in
            // Movies with movies, stills with stills (a Live Photo's movie is not a copy of its photo).
            isVideo(a) == isVideo(b) && FingerprintDistance.shapesMatch(shape(a), shape(b))
        }
        var found: [(Int, Int, DuplicateGroup.Tier)] = []
        for start in stride(from: 0, to: pairs.count, by: 4096) {
            let batch = pairs[start..<min(start + 4096, pairs.count)]
            let prints = fingerprints(Array(Set(batch.flatMap { [pictured[$0.0], pictured[$0.1]] })).sorted())
            found += concatenatedInChunks(batch.count, least: 256) { range in
                range.compactMap { offset -> (Int, Int, DuplicateGroup.Tier)? in
                    let (a, b) = batch[batch.startIndex + offset]
                    guard let first = prints[pictured[a]], let second = prints[pictured[b]],
                          let tier = tier((first, shape(a)), (second, shape(b))) else { return nil }
                    return (a, b, tier)
                }
            }
        }
        return found
    }

    /// Each pair (a < b) whose hashes lie within `candidateRadius`, one's whole against a window of
    /// the other's, or within `nearShotRadius`, whole against whole, once. Only the wholes are
    /// indexed, small enough to stay in the CPU's cache at a million photos; the windows query them.
    static func candidatePairs(_ count: Int, _ hash: (_ photo: Int, _ window: Int) -> UInt64) -> [(Int, Int)] {
        let index = HammingIndex((0..<count).map { hash($0, 0) })
        // A window at a time: its hashes in one array of a million, not 15 million; the pairs
        // found kept sorted and once, not a window's copies of each until the end.
        var pairs: [UInt64] = []
        for window in PhotoFingerprint.windows.indices {
            let radius = window == 0 ? nearShotRadius : candidateRadius
            for found in index.pairs(of: (0..<count).map { hash($0, window) }, within: radius) where found.query != found.match {
                pairs.append(UInt64(min(found.query, found.match)) << 32 | UInt64(max(found.query, found.match)))
            }
            pairs.sort()
            pairs = pairs.enumerated().filter { $0.offset == 0 || pairs[$0.offset - 1] != $0.element }.map(\.element)
        }
        return pairs.map { (Int($0 >> 32), Int($0 & 0xffff_ffff)) }
    }

    /// What two fingerprints are to each other: one photo, near shots, or nothing.
    static func tier(_ a: (print: PhotoFingerprint, shape: PixelShape), _ b: (print: PhotoFingerprint, shape: PixelShape)) -> DuplicateGroup.Tier? {
        let limit = a.shape == b.shape ? samePhotoSameSize : samePhotoOtherSize
        let distance = FingerprintDistance.between(a, b, enough: limit)
        if distance <= limit { return .samePhoto }
        return distance <= similar ? .similar : nil
    }

    /// Photos linked by near shots (`near`: indices whose roots in `same` are photos), each photo
    /// with all its files (`files`, by root).
    private static func similarGroups(_ near: [(Int, Int)], same: inout UnionFind, files: (Int) -> [Int],
                                      candidates: [DuplicateCandidate]) -> [DuplicateGroup] {
        var linked: [Int: Set<Int>] = [:]
        var shots = UnionFind(count: same.count)
        for (a, b) in near { shots.union(same.root(a), same.root(b)) }
        for (a, b) in near {
            for photo in [same.root(a), same.root(b)] { linked[shots.root(photo), default: []].insert(photo) }
        }
        return linked.values.filter { $0.count > 1 }.map { roots in group(.similar, roots.flatMap(files), candidates) }
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

/// The files of each content (the same bytes): the candidates in the order of their content, the
/// first of each content its representative.
struct Contents {
    private let order: [Int32]
    /// Each candidate's content (its run in `order`), and where each run starts.
    private let run: [Int32]
    private let starts: [Int32]
    /// The first file of each content, in the order given.
    let representatives: [Int]

    init(_ candidates: [DuplicateCandidate]) {
        let order = candidates.indices.sorted { (candidates[$0].content, $0) < (candidates[$1].content, $1) }
        var run = [Int32](repeating: 0, count: candidates.count), starts: [Int32] = []
        for (position, index) in order.enumerated() {
            if position == 0 || candidates[order[position - 1]].content != candidates[index].content { starts.append(Int32(position)) }
            run[index] = Int32(starts.count - 1)
        }
        self.order = order.map { Int32($0) }
        self.run = run
        self.starts = starts + [Int32(order.count)]
        representatives = starts.map { order[Int($0)] }.sorted()
    }

    /// The files with `representative`'s content, itself first.
    func files(of representative: Int) -> [Int] {
        let content = Int(run[representative])
        return order[Int(starts[content])..<Int(starts[content + 1])].map { Int($0) }
    }
}

/// Disjoint sets over 0..<count, by size, with path halving.
struct UnionFind {
    // Narrow: a million photos' sets.
    private var parent: [Int32]
    private var size: [Int32]

    var count: Int { parent.count }

    init(count: Int) {
        parent = (0..<Int32(count)).map { $0 }
        size = [Int32](repeating: 1, count: count)
    }

    mutating func root(_ element: Int) -> Int {
        var element = element
        while Int(parent[element]) != element {
            parent[element] = parent[Int(parent[element])]
            element = Int(parent[element])
        }
        return element
    }

    mutating func union(_ a: Int, _ b: Int) {
        var (a, b) = (root(a), root(b))
        guard a != b else { return }
        if size[a] < size[b] { swap(&a, &b) }
        parent[b] = Int32(a)
        size[a] += size[b]
    }
}
