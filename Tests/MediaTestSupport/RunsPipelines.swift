import Foundation
import MediaBatchCore
import PipelineModel
import TestSupport
import XCTest

extension RunReport {
    /// A finished run's report, read back whole from its spool as the report file would be.
    public init(_ finished: FinishedRun) throws {
        var items: [ItemResult] = []
        try finished.items { items.append($0) }
        self.init(summary: finished.summary, items: items)
    }
}

/// For test cases that run pipelines in this process over real files and read the report.
public protocol RunsPipelines {}

extension RunsPipelines {
    public static func run(_ pipeline: Pipeline, input: URL, output: URL, concurrency: Int = 2, statePath: URL? = nil,
                    dryRun: Bool = false, prune: Bool = false) throws -> RunReport {
        var options = RunOptions(inputRoot: input, outputRoot: output, concurrency: concurrency,
                                 memoryBudget: pipeline.limits.memoryBudget, pipelineName: "test", dryRun: dryRun)
        options.statePath = statePath
        options.prune = prune
        return try RunReport(PipelineRunner(pipeline: pipeline, options: options).run())
    }

    /// A pipeline document of these stages and options, decoded as `mediabatch` would.
    public static func pipeline(_ stages: String, limits: String = "{}", input: String = "{}", onError: String = "continue") throws -> Pipeline {
        try Pipeline.decode(Data(#"""
            {"version": 1, "input": \#(input), "limits": \#(limits), "onError": "\#(onError)", "stages": [\#(stages)]}
            """#.utf8), baseDirectory: Fixtures.repositoryRoot)
    }

    public func pipeline(_ stages: String, limits: String = "{}", input: String = "{}", onError: String = "continue") throws -> Pipeline {
        try Self.pipeline(stages, limits: limits, input: input, onError: onError)
    }

    /// What the web pipelines do: 2048 px sRGB JPEG without location.
    public var webStages: String {
        """
        {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 2048},
        {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write"}
        """
    }

    public func result(_ report: RunReport, _ input: String, file: StaticString = #filePath, line: UInt = #line) -> ItemResult? {
        let found = report.items.first { $0.input == input }
        XCTAssertNotNil(found, "no report entry for \(input)", file: file, line: line)
        return found
    }

    /// Copies samples (paths under `samples/`) into a fresh folder under their own names.
    public static func folder(of samples: [String]) throws -> URL {
        let folder = Fixtures.temporaryFolder()
        for sample in samples {
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample),
                                             toPath: folder.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        return folder
    }
}
