import ArgumentParser
import Foundation
import MediaBatchCore
import PipelineModel

/// Where a pipeline's outputs and its state database are: `run` writes them, `status` reads them.
struct StateOptions: ParsableArguments {
    @Option(help: "Output folder (overrides output.root).")
    var output: String?

    @Option(help: "The state database (default: OUTPUT/.mediabatch/state.sqlite, one per shard).")
    var state: String?

    @OptionGroup
    var shard: ShardOptions

    func outputRoot(_ file: PipelineFile, _ pipeline: Pipeline) throws -> URL {
        try file.root(output, orPipeline: pipeline.output.root, key: "output")
    }

    /// `--state`, else the shard's database under the output root.
    func statePath(outputRoot: URL) throws -> URL {
        try state.map(commandLinePath) ?? RunOptions.defaultStatePath(outputRoot: outputRoot, shard: shard.resolved())
    }
}
