@testable import DuplicateKit
import XCTest

/// The index finds exactly the matches a comparison of every hash finds, each once.
final class HammingIndexTests: XCTestCase {
    func testItFindsEveryPairWithinTheRadiusOnce() {
        var generator = SystemRandomNumberGenerator()
        // Clusters of hashes a few bits from a centre, among random ones: both near and far pairs.
        var hashes: [UInt64] = (0..<1500).map { _ in generator.next() }
        for centre in hashes.prefix(100) {
            for _ in 0..<5 {
                var hash = centre
                for _ in 0..<Int.random(in: 0...10) { hash ^= 1 << UInt64.random(in: 0..<64) }
                hashes.append(hash)
            }
        }
        // Copies: runs of one value hold several hashes.
        hashes += hashes.prefix(30)
        for radius in [2, 5, 8] {
            let found = HammingIndex(hashes).pairs(of: hashes, within: radius).filter { $0.query != $0.match }.map { [$0.query, $0.match] }
            var expected: [[Int]] = []
            for i in hashes.indices {
                for j in hashes.indices where i != j && (hashes[i] ^ hashes[j]).nonzeroBitCount <= radius { expected.append([i, j]) }
            }
            XCTAssertEqual(found.count, Set(found).count, "radius \(radius): each pair once")
            XCTAssertEqual(Set(found), Set(expected), "radius \(radius)")
            XCTAssertGreaterThan(expected.count, 50, "radius \(radius): the clusters give pairs to find")
        }
    }
}
