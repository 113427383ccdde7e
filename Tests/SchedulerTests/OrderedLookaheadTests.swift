import Foundation
import Scheduler
import TestSupport
import XCTest

/// The lookahead with fake work of random length: outputs in input order, `width` at once and
/// no more, and never more than `width` elements pulled ahead of the consumer.
final class OrderedLookaheadTests: XCTestCase {
    /// Counts what is running and what was pulled, from any thread.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var running = 0
        private(set) var most = 0
        private(set) var pulled = 0

        func pull() { lock.withLock { pulled += 1 } }
        func start() { lock.withLock { running += 1; most = max(most, running) } }
        func end() { lock.withLock { running -= 1 } }
    }

    func testOutputsComeInInputOrderWithWidthRunningAtOnce() {
        var random = SplitMix(seed: 7)
        let delays = (0..<60).map { _ in UInt32.random(in: 0...3_000, using: &random) }
        let tally = Tally()
        let inputs = (0..<60).lazy.map { index -> Int in tally.pull(); return index }
        var outputs: [Int] = []
        for (consumed, output) in inputs.lookahead(3, { index -> Int in
            tally.start()
            usleep(delays[index])
            tally.end()
            return index * 10
        }).enumerated() {
            outputs.append(output)
            XCTAssertLessThanOrEqual(tally.pulled, consumed + 1 + 3, "pulled at most the width ahead")
        }
        XCTAssertEqual(outputs, (0..<60).map { $0 * 10 })
        XCTAssertEqual(tally.most, 3, "three at once, never more")
    }

    func testAWidthOfOneTransformsOnTheConsumersThread() {
        XCTAssertTrue(Thread.isMainThread)
        XCTAssertEqual(Array((0..<5).lookahead(1) { _ in Thread.isMainThread }), Array(repeating: true, count: 5))
    }

    func testAnEmptySequenceEndsAtOnce() {
        XCTAssertEqual(Array([Int]().lookahead(2) { $0 }), [])
    }
}
