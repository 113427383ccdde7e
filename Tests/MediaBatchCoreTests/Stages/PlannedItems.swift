import Foundation
@testable import MediaBatchCore
import MediaTestSupport
import PipelineModel
import TestSupport
import XCTest

/// Items and stages as the header phase makes them, for the tests of each stage's plan.
extension RunsPipelines {
    /// A sample as an item of the stages' own, its header read as the header phase reads it.
    static func item(_ sample: String, root: URL = Fixtures.samples, limits: String = "{}") throws -> ItemContext {
        let input = InputItem(root: root, relativePath: sample)
        let format = try XCTUnwrap(try FormatSniffer.format(of: input.path), sample)
        let bytes = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int)
        return ItemContext(ItemJob(input: input, format: format, bytesIn: bytes, contentHash: String(repeating: "0", count: 64)),
                           try environment(Fixtures.temporaryFolder(), limits: try pipeline(#"{"stage": "decode"}"#, limits: limits).limits))
    }

    /// The run's environment of a pipeline writing under `output`.
    static func environment(_ output: URL, limits: Pipeline.Limits) -> RunEnvironment {
        RunEnvironment(outputRoot: output, temporaryFolder: output.appendingPathComponent(".mediabatch/tmp/all"), limits: limits)
    }

    /// `sample` checked and planned by a pipeline of `stages`, as the header phase does it.
    static func planned(_ sample: String, _ stages: String, root: URL = Fixtures.samples, limits: String = "{}") throws -> (item: ItemContext, plan: ItemPlan) {
        let item = try Self.item(sample, root: root, limits: limits)
        let list = try stageList(stages, limits: limits)
        for stage in list { try stage.check(item) }
        var plan = ItemPlan(format: item.format)
        for stage in list { stage.plan(&plan, for: item) }
        return (item, plan)
    }

    /// A pixel stage as the run builds it from its JSON (between a decode and a write, as validation wants).
    static func pixelStage(_ json: String) throws -> any PipelineStage {
        try stageList(#"{"stage": "decode"}, \#(json), {"stage": "write"}"#)[1]
    }

    /// An item's outcome as the run takes it: its staged files published (as `RunRecorder` does),
    /// the outcome without them (their temporary names differ from process to process).
    static func published(_ outcome: PixelOutcome, under output: URL) throws -> PixelOutcome {
        var outcome = outcome
        try OutputPublisher(outputRoot: output, temporaryFolder: output.appendingPathComponent(".mediabatch/tmp/all"), durability: .none)
            .publish(outcome.staged)
        outcome.staged = []
        return outcome
    }

    /// Every stage of a pipeline as the run builds them.
    static func stageList(_ stages: String, limits: String = "{}") throws -> [any PipelineStage] {
        StageList.runnable(try pipeline(stages, limits: limits))
    }
}
