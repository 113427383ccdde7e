/// Every hash within a Hamming radius of a query, without comparing all pairs: multi-index hashing
/// (Norouzi et al., 2012). Each hash is cut into three blocks of 22, 21 and 21 bits, one table a
/// block; a hash within `radius` bits of the query has some block within `radius / 3` bits of the
/// query's (pigeonhole), so a query looks up only the block values that close to its own.
public struct HammingIndex: Sendable {
    /// Each block's first bit and width.
    static let blocks: [(shift: Int, bits: Int)] = [(0, 22), (22, 21), (43, 21)]
    private let hashes: [UInt64]
    /// For each block: the hashes' indices sorted by that block's value, and where each value's run starts.
    private let order: [[Int32]]
    private let starts: [[Int32]]

    public init(_ hashes: [UInt64]) {
        precondition(hashes.count < Int(Int32.max))
        self.hashes = hashes
        var order: [[Int32]] = [], starts: [[Int32]] = []
        for block in Self.blocks.indices {
            var counts = [Int32](repeating: 0, count: (1 << Self.blocks[block].bits) + 1)
            for hash in hashes { counts[Self.value(hash, block) + 1] += 1 }
            for index in 1..<counts.count { counts[index] += counts[index - 1] }
            var next = counts, sorted = [Int32](repeating: 0, count: hashes.count)
            for (index, hash) in hashes.enumerated() {
                let value = Self.value(hash, block)
                sorted[Int(next[value])] = Int32(index)
                next[value] += 1
            }
            order.append(sorted)
            starts.append(counts)
        }
        self.order = order
        self.starts = starts
    }

    /// Calls `visit` with every hash's index within `radius` bits of `query`, once each.
    public func matches(of query: UInt64, within radius: Int, _ visit: (Int) -> Void) {
        let blockRadius = radius / Self.blocks.count
        for block in Self.blocks.indices {
            let own = Self.value(query, block)
            order[block].withUnsafeBufferPointer { order in
                starts[block].withUnsafeBufferPointer { starts in
                    for flip in Self.flips[Self.blocks[block].bits]![min(blockRadius, 2)] {
                        let value = own ^ flip
                        for position in Int(starts[value])..<Int(starts[value + 1]) {
                            let index = Int(order[position]), hash = hashes[index]
                            guard (hash ^ query).nonzeroBitCount <= radius else { continue }
                            // Found once: in the first block within the block radius.
                            let earlier = (0..<block).contains { (Self.value(hash, $0) ^ Self.value(query, $0)).nonzeroBitCount <= blockRadius }
                            if !earlier { visit(index) }
                        }
                    }
                }
            }
        }
    }

    /// Every (query, match) pair within `radius` among `count` queries, shared among both CPUs' worth of threads.
    public func pairs(of count: Int, within radius: Int, query: (Int) -> UInt64) -> [(query: Int, match: Int)] {
        concatenatedInChunks(count, least: 4096) { range in
            var pairs: [(query: Int, match: Int)] = []
            for index in range { matches(of: query(index), within: radius) { pairs.append((index, $0)) } }
            return pairs
        }
    }

    private static func value(_ hash: UInt64, _ block: Int) -> Int {
        Int(truncatingIfNeeded: hash >> UInt64(blocks[block].shift)) & (1 << blocks[block].bits - 1)
    }

    /// By block width, by radius 0...2: every mask of that many bits with at most that many set.
    private static let flips: [Int: [[Int]]] = Dictionary(uniqueKeysWithValues: Set(blocks.map(\.bits)).map { bits in
        let ones = (0..<bits).map { 1 << $0 }
        let twos = (0..<bits).flatMap { a in (0..<a).map { b in 1 << a | 1 << b } }
        return (bits, [[0], [0] + ones, [0] + ones + twos])
    })
}
