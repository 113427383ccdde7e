@testable import DuplicateKit
import XCTest

/// The index finds exactly the pairs a comparison of all pairs finds, each once.
final class HammingIndexTests: XCTestCase {
    func testItFindsEveryPairWithinTheRadiusOnce() {
        var generator = SystemRandomNumberGenerator()
        // Clusters of hashes a few bits from a centre, among random ones: both near and far pairs.
        var hashes: [UInt64] = (0..<1500).map { _ in generator.next() }
        for centre in hashes.prefix(100) {
            for _ in 0..<5 {
                var hash = centre
                for _ in 0..<Int.random(in: 0...18) { hash ^= 1 << UInt64.random(in: 0..<64) }
                hashes.append(hash)
            }
        }
        for radius in [3, 7, 15] {
            let found = HammingIndex(hashes).pairs(within: radius).map { [$0.0, $0.1] }
            var expected: [[Int]] = []
            for i in hashes.indices {
                for j in (i + 1)..<hashes.count where (hashes[i] ^ hashes[j]).nonzeroBitCount <= radius { expected.append([i, j]) }
            }
            XCTAssertEqual(found.count, Set(found).count, "radius \(radius): each pair once")
            XCTAssertEqual(Set(found), Set(expected), "radius \(radius)")
            XCTAssertGreaterThan(expected.count, 50, "radius \(radius): the clusters give pairs to find")
        }
    }
}
