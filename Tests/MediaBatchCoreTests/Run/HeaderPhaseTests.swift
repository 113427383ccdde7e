import Foundation
@testable import MediaBatchCore
import PipelineModel
import RunState
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// What the header phase decides before an item is admitted, in real runs: refusals from lstat,
/// the size limit from stat, formats from the bytes, vanished files and output claims.
final class HeaderPhaseTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    /// Listed, then gone before its header is read (moved away by an import): skipped, not failed.
    /// The header phase is driven directly, so that no timing decides what goes first.
    func testAFileThatVanishesAfterBeingListedIsSkipped() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        for name in ["1.jpg", "2.jpg"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/apple_iphone_4.jpg"), toPath: input.appendingPathComponent(name).path)
        }
        let listed = Array(InputWalker(root: input, include: [Glob("**/*")], exclude: [], skipping: nil))
        unlink(input.appendingPathComponent("2.jpg").path)
        let pipeline = try pipeline(webStages)
        let stages = StageList.runnable(pipeline)
        let executor = InProcessExecutor(stages: stages, environment: Self.environment(output, limits: pipeline.limits), keepsContexts: false)
        let phase = HeaderPhase(pipeline: pipeline, stages: stages, executor: executor,
                                ledger: RunLedger(store: nil, run: 0, outputRoot: output, force: false, prune: false, writes: false),
                                claims: OutputClaims(log: Fixtures.temporaryFolder().appendingPathComponent("claims.bin")), dryRun: false)
        let readings = listed.map(phase.read)
        guard case .planned = readings[0] else { return XCTFail("1.jpg is there, yet not planned") }
        guard case .decided(let vanished) = readings[1], case .decided(let result) = vanished.decision else {
            return XCTFail("2.jpg is gone, yet not decided")
        }
        XCTAssertEqual(result.input, "2.jpg")
        XCTAssertEqual(result.status, .skipped)
        XCTAssertEqual(result.reason, "vanished after it was listed")
    }
}
