/// Every hash within a Hamming radius of a query, without comparing all pairs: multi-index hashing
/// (Norouzi et al., 2012). Each hash is cut into three blocks of 22, 21 and 21 bits, one table a
/// block; a hash within `radius` bits of the query has some block within `radius / 3` bits of the
/// query's (pigeonhole), so a query looks up only the block values that close to its own.
public struct HammingIndex: Sendable {
    /// Each block's first bit and width.
    static let blocks: [(shift: Int, bits: Int)] = [(0, 22), (22, 21), (43, 21)]
    private let tables: [Table]

    /// One block's table: the hashes sorted by the block's value, with their indices; where the
    /// run of each pair of values starts; a bit a value set where it has any.
    /// - A million hashes leave four values in five of a 22-bit block empty: a probe reads the
    ///   value's bit (512 KB, in the cache) and goes on only where it is set.
    /// - The hash lies beside its run's start, not behind an index at a second random place.
    /// - A start a pair of values, not a value: 16 MB for the three blocks of a million hashes, not
    ///   32 (bench/README.md, "Duplicates": a start a value is no faster; four values, 2–4 s slower).
    private struct Table {
        /// The values a run holds: 2 to this power.
        static let groupBits = 1
        let order: [Int32]
        let hashes: [UInt64]
        let starts: [Int32]
        let occupied: [UInt64]

        init(_ hashes: [UInt64], block: Int) {
            let values = 1 << HammingIndex.blocks[block].bits
            (order, starts) = HammingIndex.sorted(hashes.count, { HammingIndex.value(hashes[$0], block) >> Self.groupBits }, buckets: values >> Self.groupBits)
            self.hashes = order.map { hashes[Int($0)] }
            var occupied = [UInt64](repeating: 0, count: values / 64)
            for hash in hashes {
                let value = HammingIndex.value(hash, block)
                occupied[value >> 6] |= 1 << UInt64(value & 63)
            }
            self.occupied = occupied
        }
    }

    public init(_ hashes: [UInt64]) {
        precondition(hashes.count < Int(Int32.max))
        tables = Self.blocks.indices.map { Table(hashes, block: $0) }
    }

    /// Every (query, match) pair within `radius`, each once, shared among both CPUs' worth of threads.
    /// A block at a time, the queries in the order of their value there: each query's lookups then
    /// lie beside the last one's, in the cache, when the tables do not fit.
    public func pairs(of queries: [UInt64], within radius: Int) -> [(query: Int, match: Int)] {
        Self.blocks.indices.flatMap { block in
            // By the value's 16 high bits: close enough for the cache, and a small table to count in.
            let shift = Self.blocks[block].bits - 16
            let queryOrder = Self.sorted(queries.count, { Self.value(queries[$0], block) >> shift }, buckets: 1 << 16).order
            let sortedQueries = queryOrder.map { queries[Int($0)] }
            let probe = Probe(block: block, radius: radius)
            return concatenatedInChunks(queries.count, least: 4096) { range in
                var pairs: [(query: Int, match: Int)] = []
                let table = tables[block]
                table.hashes.withUnsafeBufferPointer { hashes in
                    table.order.withUnsafeBufferPointer { order in
                        table.starts.withUnsafeBufferPointer { starts in
                            table.occupied.withUnsafeBufferPointer { occupied in
                                let memory = Probe.Memory(hashes: hashes, order: order, starts: starts, occupied: occupied)
                                withUnsafeTemporaryAllocation(of: Int.self, capacity: probe.flips.count) { scratch in
                                    for position in range {
                                        probe.matches(of: sortedQueries[position], in: memory, scratch: scratch) { pairs.append((Int(queryOrder[position]), $0)) }
                                    }
                                }
                            }
                        }
                    }
                }
                return pairs
            }
        }
    }

    /// One block's lookups at one radius, over the tables' memory: the inner loop of every query,
    /// with nothing in it to count references of (which took a fifth of the time).
    private struct Probe {
        let shift: UInt64, mask: UInt64, radius: Int, blockRadius: Int
        let flips: [Int]
        /// The blocks before this one, in place in the hash: a pair one of them finds is theirs.
        let earlier: [UInt64]

        init(block: Int, radius: Int) {
            shift = UInt64(HammingIndex.blocks[block].shift)
            mask = 1 << UInt64(HammingIndex.blocks[block].bits) - 1
            self.radius = radius
            blockRadius = radius / HammingIndex.blocks.count
            flips = HammingIndex.flips[block][min(blockRadius, 2)]
            earlier = HammingIndex.blocks[..<block].map { (1 << UInt64($0.bits) - 1) << UInt64($0.shift) }
        }

        /// This block's `Table`.
        struct Memory {
            let hashes: UnsafeBufferPointer<UInt64>
            let order: UnsafeBufferPointer<Int32>
            let starts: UnsafeBufferPointer<Int32>
            let occupied: UnsafeBufferPointer<UInt64>
        }

        /// Calls `visit` with the index of every hash within `radius` bits of `query` that this block
        /// finds and no block before it does.
        func matches(of query: UInt64, in memory: Memory, scratch: UnsafeMutableBufferPointer<Int>, _ visit: (Int) -> Void) {
            let own = Int(truncatingIfNeeded: query >> shift & mask)
            flips.withUnsafeBufferPointer { flips in
                // The occupied values first, without a branch: their runs' starts are then read
                // together, each read not waiting for the guess at the last value's bit.
                var count = 0
                for flip in flips {
                    let value = own ^ flip
                    scratch[count] = value
                    count &+= Int(truncatingIfNeeded: memory.occupied[value >> 6] >> UInt64(value & 63) & 1)
                }
                earlier.withUnsafeBufferPointer { earlier in
                    for value in scratch[..<count] {
                        let group = value >> Table.groupBits
                        for position in Int(memory.starts[group])..<Int(memory.starts[group + 1]) {
                            let difference = memory.hashes[position] ^ query
                            // The run is its pair of values': this value's hashes only.
                            guard Int(truncatingIfNeeded: difference >> shift & mask) == value ^ own, difference.nonzeroBitCount <= radius,
                                  !earlier.contains(where: { (difference & $0).nonzeroBitCount <= blockRadius }) else { continue }
                            visit(Int(memory.order[position]))
                        }
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
