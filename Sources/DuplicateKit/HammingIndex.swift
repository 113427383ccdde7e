/// Every hash within a Hamming radius of a query, without comparing all pairs: multi-index hashing
/// (Norouzi et al., 2012). Each hash is cut into three blocks of 22, 21 and 21 bits, one table a
/// block; a hash within `radius` bits of the query has some block within `radius / 3` bits of the
/// query's (pigeonhole), so a query looks up only the block values that close to its own.
public struct HammingIndex: Sendable {
    /// Each block's first bit and width.
    static let blocks: [(shift: Int, bits: Int)] = [(0, 22), (22, 21), (43, 21)]
    private let hashes: [UInt64]
    /// For each block: the hashes' indices sorted by that block's value, and where each value's run starts.
    private let tables: [(order: [Int32], starts: [Int32])]

    public init(_ hashes: [UInt64]) {
        precondition(hashes.count < Int(Int32.max))
        self.hashes = hashes
        tables = Self.blocks.indices.map { block in Self.sorted(hashes.count, { Self.value(hashes[$0], block) }, buckets: 1 << Self.blocks[block].bits) }
    }

    /// Every (query, match) pair within `radius`, each once, shared among both CPUs' worth of threads.
    /// A block at a time, the queries in the order of their value there: each query's lookups then
    /// lie beside the last one's, in the cache, when the tables do not fit.
    public func pairs(of queries: [UInt64], within radius: Int) -> [(query: Int, match: Int)] {
        Self.blocks.indices.flatMap { block in
            // By the value's 16 high bits: close enough for the cache, and a small table to count in.
            let shift = Self.blocks[block].bits - 16
            let order = Self.sorted(queries.count, { Self.value(queries[$0], block) >> shift }, buckets: 1 << 16).order
            return concatenatedInChunks(queries.count, least: 4096) { range in
                var pairs: [(query: Int, match: Int)] = []
                for position in range {
                    let index = Int(order[position])
                    matches(of: queries[index], in: block, within: radius) { pairs.append((index, $0)) }
                }
                return pairs
            }
        }
    }

    /// Calls `visit` with the index of every hash within `radius` bits of `query` that `block` finds
    /// and no block before it does.
    func matches(of query: UInt64, in block: Int, within radius: Int, _ visit: (Int) -> Void) {
        let blockRadius = radius / Self.blocks.count, own = Self.value(query, block)
        tables[block].order.withUnsafeBufferPointer { order in
            tables[block].starts.withUnsafeBufferPointer { starts in
                for flip in Self.flips[block][min(blockRadius, 2)] {
                    let value = own ^ flip
                    for position in Int(starts[value])..<Int(starts[value + 1]) {
                        let index = Int(order[position]), hash = hashes[index]
                        guard (hash ^ query).nonzeroBitCount <= radius else { continue }
                        let earlier = (0..<block).contains { (Self.value(hash, $0) ^ Self.value(query, $0)).nonzeroBitCount <= blockRadius }
                        if !earlier { visit(index) }
                    }
                }
            }
        }
    }

    /// `0..<count` sorted by `value`, below `buckets` (a counting sort), and where each value's run starts.
    private static func sorted(_ count: Int, _ value: (Int) -> Int, buckets: Int) -> (order: [Int32], starts: [Int32]) {
        var starts = [Int32](repeating: 0, count: buckets + 1)
        for index in 0..<count { starts[value(index) + 1] += 1 }
        for index in 1..<starts.count { starts[index] += starts[index - 1] }
        var next = starts, order = [Int32](repeating: 0, count: count)
        for index in 0..<count {
            let value = value(index)
            order[Int(next[value])] = Int32(index)
            next[value] += 1
        }
        return (order, starts)
    }

    private static func value(_ hash: UInt64, _ block: Int) -> Int {
        Int(truncatingIfNeeded: hash >> UInt64(blocks[block].shift)) & (1 << blocks[block].bits - 1)
    }

    /// By block, by radius 0...2: every mask of the block's width with at most that many bits set.
    private static let flips: [[[Int]]] = blocks.map { block in
        let ones = (0..<block.bits).map { 1 << $0 }
        let twos = (0..<block.bits).flatMap { a in (0..<a).map { b in 1 << a | 1 << b } }
        return [[0], [0] + ones, [0] + ones + twos]
    }
}
