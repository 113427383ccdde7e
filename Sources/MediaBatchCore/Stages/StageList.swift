import Foundation
import PipelineModel

/// Every stage mediabatch runs, in the order a pipeline lists them: the one list of stage types.
/// The pipeline decoder, the schema, `validate` and the order checks read each one's
/// declarations from it; a new stage is its file, its line here and its tests.
public enum StageList {
    static let types: [any PipelineStage.Type] = [
        FilterStage.self, DecodeStage.self, PosterStage.self, VideoStage.self, DownsampleStage.self, TranscodeStage.self,
        VariantsStage.self, StripMetadataStage.self, FingerprintStage.self, WriteStage.self,
    ]

    public static let catalog = StageCatalog(types.map { $0 as any Stage.Type })

    /// A pipeline's stages as the run runs them: every stage decoded from `catalog` is one of `types`.
    static func runnable(_ pipeline: Pipeline) -> [any PipelineStage] {
        pipeline.stages.map { $0 as! any PipelineStage }
    }
}

extension Pipeline {
    /// Reads and validates a pipeline file of mediabatch's stages.
    public static func load(contentsOf file: URL, displayName: String? = nil) throws -> Pipeline {
        try load(contentsOf: file, displayName: displayName, catalog: StageList.catalog)
    }

    /// Decodes and validates a pipeline document of mediabatch's stages.
    public static func decode(_ data: Data, baseDirectory: URL) throws -> Pipeline {
        try decode(data, baseDirectory: baseDirectory, catalog: StageList.catalog)
    }
}

extension PipelineSchema {
    /// The JSON Schema of pipelines of mediabatch's stages.
    public static func text() -> String {
        text(StageList.catalog)
    }
}
