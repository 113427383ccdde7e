@testable import MediaBatchCore
import XCTest

final class ShardTests: XCTestCase {
    func testIndexAndCountFromEachArrayJobEnvironment() throws {
        XCTAssertEqual(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"], count: nil),
                       try Shard(index: 2, count: 4), "Slurm arrays may start at 1")
        XCTAssertEqual(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0", "MEDIABATCH_SHARD_COUNT": "8"], count: nil),
                       try Shard(index: 0, count: 8))
        XCTAssertEqual(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "5"], count: 6), try Shard(index: 5, count: 6))
        XCTAssertNil(try Shard.fromEnvironment([:], count: 3))
        XCTAssertThrowsError(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "5"], count: nil))
        XCTAssertThrowsError(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "x"], count: 2))
        XCTAssertThrowsError(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: 2))
        XCTAssertThrowsError(try Shard(parsing: "1-4"))
        XCTAssertEqual(try Shard(parsing: "1/4").description, "1/4")
    }

    func testNamesThatCouldCollideAndLivePhotoHalvesShareAShard() throws {
        let root = URL(fileURLWithPath: "/library")
        func shard(of item: InputItem) throws -> Int {
            try (0..<7).first { try Shard(index: $0, count: 7).contains(item) }!
        }
        for stem in ["IMG_0001", "IMG_0002", "a/b/photo"] {
            XCTAssertEqual(try shard(of: InputItem(root: root, relativePath: "\(stem).HEIC")),
                           try shard(of: InputItem(root: root, relativePath: "\(stem).jpg")), stem)
        }
        let movie = InputItem(root: root, relativePath: "x/CLIP_9.MOV",
                              livePhoto: LivePhotoPair(role: .video, partner: "x/IMG_0042.HEIC", contentIdentifier: "id"))
        XCTAssertEqual(try shard(of: movie), try shard(of: InputItem(root: root, relativePath: "x/IMG_0042.HEIC")))
        // The hash is the same in every process (FNV-1a), so shards agree across machines.
        XCTAssertEqual(Shard.stableHash("a"), 0xaf63_dc4c_8601_ec8c)
    }
}
