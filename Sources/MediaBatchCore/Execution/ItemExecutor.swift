import Foundation
import MediaFormats
import PipelineModel

/// Runs the parts of an item that call C decoders: the header stages (filter, decode, and the
/// stages' plan) and the pixel stages. `InProcessExecutor` runs them in this process;
/// `WorkerPool` in worker processes, so that a decoder crash or hang costs one item.
protocol ItemExecutor: Sendable {
    func header(_ job: ItemJob) -> HeaderVerdict
    /// `job.plan` is the header phase's: the outputs the run claimed for the item.
    func pixels(_ job: ItemJob) -> PixelOutcome
    /// The Live Photo content identifier of a still or movie, for pairing.
    func contentIdentifier(path: String, format: MediaFormat) -> String?
    /// The item's pixel phase will not run (a dry run, a lost output claim, a cancelled run).
    func forget(_ job: ItemJob)
    /// Releases what the executor holds (worker processes) once the run is over.
    func shutdown()
}

/// What an item's decoding work needs, in a form a worker process can be sent.
struct ItemJob: Codable, Sendable {
    let input: InputItem
    /// Sniffed from the file's bytes.
    let format: MediaFormat
    let bytesIn: Int
    /// SHA-256 of the input; nil in a dry run, which records nothing (see `ItemContext.contentHash`).
    let contentHash: String?
    /// Set for the pixel phase: what the header phase planned.
    var plan: ItemPlan?
    /// The input's modification time (nanoseconds) when it was listed: with `bytesIn`, what it
    /// must still be when its outputs are published.
    var listedModified: Int64?
    /// Set for the pixel phase once every input is listed: no item waits behind this one for the
    /// CPUs it leaves idle (a batch's last items, a run of one photo), so its decoder may use more
    /// than one.
    var isTail = false
}

/// What the header stages decided about an item, before admission.
struct HeaderVerdict: Codable, Equatable, Sendable {
    var error: ItemError?
    var skipReason: String?
    var kinds: [MediaKind]?
    var contentIdentifier: String?
    /// A photo's own caption (`ImageMetadata.caption`), for the manifest.
    var caption: String?
    /// Set when the item is to run: its outputs and cost.
    var plan: ItemPlan?
}

/// What the pixel stages did.
struct PixelOutcome: Codable, Equatable, Sendable {
    var error: ItemError?
    var outputs: [WrittenOutput] = []
    var removedMetadata: [String] = []
    var placeholder: String?
    var rawSource: ItemResult.RawSource?
    /// A HEIC's decoder and why libheif (`ItemResult.decoder`).
    var decoder: ItemResult.DecoderUse?
    /// What `PhotoReader` stages read of the item, by key (`ItemResult.readings`).
    var readings: [String: JSONValue] = [:]
    /// The files written, at their temporary names: the run publishes them (`OutputPublisher`)
    /// with the batch that records the item.
    var staged: [StagedFile] = []
}

/// One output as it stands after `write`: written now (staged), or reused as an earlier run wrote it.
struct WrittenOutput: Codable, Equatable, Sendable {
    /// What was planned for it (its path set).
    let planned: PlannedOutput
    let bytes: Int
    /// SHA-256 of what was written, from the bytes as they were written (so that recording it
    /// reads nothing back); nil for an output an earlier run wrote.
    var contentHash: String?

    /// Relative to the output root.
    var path: String { planned.path ?? "" }
}
