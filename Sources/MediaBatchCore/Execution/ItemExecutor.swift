import Foundation
import PipelineModel

/// What an item's decoding work needs, in a form a worker process can be sent.
struct ItemJob: Codable, Sendable {
    let input: InputItem
    /// Sniffed from the file's bytes.
    let format: MediaFormat
    let bytesIn: Int
    let contentHash: String
}

/// What the header stages decided about an item, before admission.
struct HeaderVerdict: Codable, Sendable {
    var error: ItemError?
    var skipReason: String?
    var kinds: [MediaKind]?
    var contentIdentifier: String?
    var estimatedBytes = 0
    /// Where `write` will put the output, relative to the output root (nil: no output).
    var plannedOutput: String?
}

/// What the pixel stages did.
struct PixelOutcome: Codable, Sendable {
    var error: ItemError?
    var output: String?
    var bytesOut = 0
    var removedMetadata: [String] = []
}

/// Runs the parts of an item that call C decoders: the header stages (filter, decode) and the
/// pixel stages. `ItemStages` runs them in this process; `WorkerPool` in worker processes.
protocol ItemExecutor: Sendable {
    func header(_ job: ItemJob) -> HeaderVerdict
    func pixels(_ job: ItemJob) -> PixelOutcome
    /// The Live Photo content identifier of a still or movie, for pairing.
    func contentIdentifier(path: String, format: MediaFormat) -> String?
}
