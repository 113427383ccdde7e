import Foundation
@testable import MediaBatchCore
import PipelineModel
import TestSupport
import XCTest

extension RunReport {
    /// A finished run's report, read back whole from its spool as the report file would be.
    init(_ finished: FinishedRun) throws {
        var items: [ItemResult] = []
        try finished.items { items.append($0) }
        self.init(summary: finished.summary, items: items)
    }
}

/// For test cases that run pipelines in this process over real files and read the report.
protocol RunsPipelines {}

extension RunsPipelines {
    static func run(_ pipeline: Pipeline, input: URL, output: URL, concurrency: Int = 2, statePath: URL? = nil,
                    dryRun: Bool = false, prune: Bool = false) throws -> RunReport {
        var options = RunOptions(inputRoot: input, outputRoot: output, concurrency: concurrency,
                                 memoryBudget: pipeline.limits.memoryBudget, pipelineName: "test", dryRun: dryRun)
        options.statePath = statePath
        options.prune = prune
        return try RunReport(PipelineRunner(pipeline: pipeline, options: options).run())
    }

    /// A pipeline document of these stages and options, decoded as `mediabatch` would.
    static func pipeline(_ stages: String, limits: String = "{}", input: String = "{}", onError: String = "continue") throws -> Pipeline {
        try Pipeline.decode(Data(#"""
            {"version": 1, "input": \#(input), "limits": \#(limits), "onError": "\#(onError)", "stages": [\#(stages)]}
            """#.utf8), baseDirectory: Fixtures.repositoryRoot)
    }

    func pipeline(_ stages: String, limits: String = "{}", input: String = "{}", onError: String = "continue") throws -> Pipeline {
        try Self.pipeline(stages, limits: limits, input: input, onError: onError)
    }

    /// What the web pipelines do: 2048 px sRGB JPEG without location.
    var webStages: String {
        """
        {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 2048},
        {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write"}
        """
    }

    func result(_ report: RunReport, _ input: String, file: StaticString = #filePath, line: UInt = #line) -> ItemResult? {
        let found = report.items.first { $0.input == input }
        XCTAssertNotNil(found, "no report entry for \(input)", file: file, line: line)
        return found
    }

    /// Copies samples (paths under `samples/`) into a fresh folder under their own names.
    static func folder(of samples: [String]) throws -> URL {
        let folder = Fixtures.temporaryFolder()
        for sample in samples {
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample),
                                             toPath: folder.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        return folder
    }

    /// A sample as an item of the stages' own, its header read as the header phase reads it.
    static func item(_ sample: String, root: URL = Fixtures.samples) throws -> ItemContext {
        let input = InputItem(root: root, relativePath: sample)
        let format = try XCTUnwrap(try FormatSniffer.format(of: input.path), sample)
        let bytes = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int)
        return ItemContext(ItemJob(input: input, format: format, bytesIn: bytes, contentHash: String(repeating: "0", count: 64)))
    }

    /// `sample` checked and planned by a pipeline of `stages`, as the header phase does it.
    static func planned(_ sample: String, _ stages: String, root: URL = Fixtures.samples) throws -> (item: ItemContext, plan: ItemPlan) {
        let item = try Self.item(sample, root: root)
        let list = try stageList(stages)
        for stage in list { try stage.check(item) }
        var plan = ItemPlan(format: item.format)
        for stage in list { stage.plan(&plan, for: item) }
        return (item, plan)
    }

    /// A pixel stage as the run builds it from its JSON (between a decode and a write, as validation wants).
    static func pixelStage(_ json: String, output: URL = Fixtures.temporaryFolder()) throws -> PipelineStage {
        try stageList(#"{"stage": "decode"}, \#(json), {"stage": "write"}"#, output: output)[1]
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
    static func stageList(_ stages: String, output: URL = Fixtures.temporaryFolder()) throws -> [PipelineStage] {
        let pipeline = try pipeline(stages)
        let environment = RunEnvironment(outputRoot: output, temporaryFolder: output.appendingPathComponent(".mediabatch/tmp/all"),
                                         limits: pipeline.limits)
        return StageFactory.make(pipeline.stages, environment)
    }
}
