import Foundation
import PipelineModel

/// Where and how a pipeline runs: the pipeline's own values after command-line overrides.
public struct RunOptions: Sendable {
    public var inputRoot: URL
    public var outputRoot: URL
    public var concurrency: Int
    public var memoryBudget: ByteSize
    /// The pipeline file as the user named it, for the report.
    public var pipelineName: String
    /// Read headers, classify and filter, report what would be written; write nothing.
    public var dryRun: Bool
    /// Redo every item, whatever the state database says.
    public var force = false
    /// Remove outputs whose input vanished or no longer produces them.
    public var prune = false
    /// Run only this part of the input; nil runs all of it.
    public var shard: Shard?
    /// The state database; nil puts it under the output root (see `defaultStatePath`).
    public var statePath: URL?
    /// Decoders run in worker processes (untrusted input); nil runs them in this process.
    public var isolation: Isolation?
    /// Make the manifest of every item's outputs (see `FinishedRun.manifest`).
    public var makesManifest = false
    /// Whether outputs reach the disk before the state database records them (see `Durability`).
    public var durability = Durability.full

    /// What worker processes are started with.
    public struct Isolation: Sendable {
        /// mediabatch itself: workers are `mediabatch worker`.
        public var executable: URL
        /// The pipeline file's bytes and folder, which each worker decodes again.
        public var pipelineDocument: Data
        public var pipelineFolder: URL

        public init(executable: URL, pipelineDocument: Data, pipelineFolder: URL) {
            self.executable = executable
            self.pipelineDocument = pipelineDocument
            self.pipelineFolder = pipelineFolder
        }
    }

    public init(inputRoot: URL, outputRoot: URL, concurrency: Int, memoryBudget: ByteSize, pipelineName: String,
                dryRun: Bool = false) {
        self.inputRoot = inputRoot.standardizedFileURL
        self.outputRoot = outputRoot.standardizedFileURL
        self.concurrency = concurrency
        self.memoryBudget = memoryBudget
        self.pipelineName = pipelineName
        self.dryRun = dryRun
    }

    /// mediabatch's own files under the output root: state databases, temporary outputs.
    static func workFolder(_ outputRoot: URL) -> URL { outputRoot.appending(path: ".mediabatch") }

    /// Where a run over `outputRoot` keeps its state: one database per shard, so shards sharing
    /// an output volume never share a SQLite file.
    public static func defaultStatePath(outputRoot: URL, shard: Shard?) -> URL {
        workFolder(outputRoot).appending(path: shard.map { "state-\($0.tag).sqlite" } ?? "state.sqlite")
    }

    var resolvedStatePath: URL { statePath ?? Self.defaultStatePath(outputRoot: outputRoot, shard: shard) }

    /// Emptied when a run starts: whatever is there was left by a killed run of this shard.
    public var temporaryFolder: URL {
        Self.workFolder(outputRoot).appending(path: "tmp").appending(path: shard?.tag ?? "all")
    }
}

/// A run that cannot start at all (as opposed to items that fail).
public struct RunSetupError: Error, CustomStringConvertible {
    public let description: String
}
