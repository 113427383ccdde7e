import Foundation
import PipelineModel

/// The messages between a run and its worker processes, one JSON object per line.
enum WorkerMessage {
    /// The first line a worker reads: what it needs to build the pipeline's stages.
    struct Setup: Codable {
        /// The pipeline file's bytes, decoded and validated again by the worker.
        let pipelineDocument: Data
        let pipelineFolder: String
        let outputRoot: String
        let temporaryFolder: String
    }

    enum Request: Codable {
        case header(ItemJob)
        case pixels(ItemJob)
        case contentIdentifier(path: String, format: MediaFormat)
    }

    struct Reply: Codable {
        var verdict: HeaderVerdict?
        var outcome: PixelOutcome?
        var identifier: String?
    }
}
