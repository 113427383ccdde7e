@testable import MediaBatchCore
import TestSupport
import XCTest

/// `RunLock`: shards, each with a state database of its own, hold theirs over one output root at once.
final class RunLockTests: XCTestCase {
    func testShardsShareAnOutputRootAtOnce() throws {
        let output = Fixtures.temporaryFolder("lock-out")
        let first = try RunLock.acquire(statePath: RunOptions.defaultStatePath(outputRoot: output, shard: try Shard(index: 0, count: 2)),
                                        outputRoot: output)
        XCTAssertNoThrow(try RunLock.acquire(statePath: RunOptions.defaultStatePath(outputRoot: output, shard: try Shard(index: 1, count: 2)),
                                             outputRoot: output))
        withExtendedLifetime(first) {}
    }
}
