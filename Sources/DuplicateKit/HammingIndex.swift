import Dispatch

/// Every pair of 64-bit hashes within a Hamming radius, without comparing all pairs: multi-index
/// hashing (Norouzi et al., 2012). Each hash is cut into four 16-bit blocks, one table a block;
/// two hashes within `radius` bits have some block within `radius / 4` bits (pigeonhole), so a
/// query looks up only the few block values that close to its own, in each table.
public struct HammingIndex: Sendable {
    static let blocks = 4
    private let hashes: [UInt64]
    /// For each block: the hashes' indices sorted by that block's value, and where each value's run starts.
    private let order: [[Int32]]
    private let starts: [[Int32]]

    public init(_ hashes: [UInt64]) {
        self.hashes = hashes
        var order: [[Int32]] = [], starts: [[Int32]] = []
        for block in 0..<Self.blocks {
            var counts = [Int32](repeating: 0, count: 65537)
            for hash in hashes { counts[Int(Self.value(hash, block)) + 1] += 1 }
            for index in 1..<counts.count { counts[index] += counts[index - 1] }
            var next = counts, sorted = [Int32](repeating: 0, count: hashes.count)
            for (index, hash) in hashes.enumerated() {
                let value = Int(Self.value(hash, block))
                sorted[Int(next[value])] = Int32(index)
                next[value] += 1
            }
            order.append(sorted)
            starts.append(counts)
        }
        self.order = order
        self.starts = starts
    }

    /// Every pair (i, j), i < j, whose hashes are within `radius` bits, found by both CPUs' worth of threads.
    public func pairs(within radius: Int) -> [(Int, Int)] {
        let chunks = max(1, min(64, hashes.count / 4096))
        var found = [[(Int, Int)]](repeating: [], count: chunks)
        found.withUnsafeMutableBufferPointer { results in
            let buffer = results
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                var pairs: [(Int, Int)] = []
                let range = hashes.count * chunk / chunks..<hashes.count * (chunk + 1) / chunks
                for index in range { neighbours(of: index, within: radius) { pairs.append((index, $0)) } }
                buffer[chunk] = pairs
            }
        }
        return found.flatMap { $0 }
    }

    /// Calls `visit` with every j > `index` whose hash is within `radius` bits, once each.
    public func neighbours(of index: Int, within radius: Int, _ visit: (Int) -> Void) {
        let hash = hashes[index], blockRadius = radius / Self.blocks
        for block in 0..<Self.blocks {
            let own = Self.value(hash, block)
            for flip in Self.flips(within: blockRadius) {
                let value = Int(own ^ flip)
                for position in Int(starts[block][value])..<Int(starts[block][value + 1]) {
                    let other = Int(order[block][position])
                    guard other > index, FingerprintDistance.hamming(hash, hashes[other]) <= radius else { continue }
                    // Found once: in the first block within the block radius.
                    let earlier = (0..<block).contains { (Self.value(hash, $0) ^ Self.value(hashes[other], $0)).nonzeroBitCount <= blockRadius }
                    if !earlier { visit(other) }
                }
            }
        }
    }

    private static func value(_ hash: UInt64, _ block: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: hash >> UInt64(16 * block))
    }

    /// Every 16-bit mask of at most `radius` bits set (radius ≤ 3: 697 masks).
    private static func flips(within radius: Int) -> [UInt16] {
        switch radius {
        case 0: return flipsUpTo0
        case 1: return flipsUpTo1
        case 2: return flipsUpTo2
        default: return flipsUpTo3
        }
    }

    private static let flipsUpTo0: [UInt16] = [0]
    private static let flipsUpTo1: [UInt16] = masks(upTo: 1)
    private static let flipsUpTo2: [UInt16] = masks(upTo: 2)
    private static let flipsUpTo3: [UInt16] = masks(upTo: 3)

    private static func masks(upTo bits: Int) -> [UInt16] {
        (0...UInt16.max).filter { $0.nonzeroBitCount <= bits }
    }
}
