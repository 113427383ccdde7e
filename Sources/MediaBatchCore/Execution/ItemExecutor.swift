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
struct WrittenOutput: Equatable, Sendable {
    /// What was planned for it (its path set), as `write` finished it.
    let planned: PlannedOutput
    /// Where it stands in the item's `ItemPlan.outputs`.
    let planIndex: Int
    let bytes: Int
    /// SHA-256 of what was written, from the bytes as they were written (so that recording it
    /// reads nothing back); nil for an output an earlier run wrote.
    var contentHash: String?

    /// Relative to the output root.
    var path: String { planned.path ?? "" }
}

extension WrittenOutput: Codable {
    /// The item's plan, which a decoder of its outputs needs in its `userInfo` (the run sent it with the job).
    static let planKey = CodingUserInfoKey(rawValue: "mediabatch.plan")!

    private enum CodingKeys: String, CodingKey { case planIndex, path, gainMapLeftOut, codecs, bytes, contentHash }

    // A worker's reply names each output by its place in the plan, with what `write` set (the path
    // a `{hash}` took, a gain map left out, a rendition's codecs), rather than send the planned
    // output back: each output's JSON crossing the pipe once more cost as much as the rest.
    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        planIndex = try container.decode(Int.self, forKey: .planIndex)
        guard let plan = decoder.userInfo[Self.planKey] as? ItemPlan, plan.outputs.indices.contains(planIndex) else {
            throw DecodingError.dataCorruptedError(forKey: .planIndex, in: container, debugDescription: "no planned output \(planIndex)")
        }
        var planned = plan.outputs[planIndex]
        planned.path = try container.decode(String.self, forKey: .path)
        planned.gainMapLeftOut = try container.decodeIfPresent(Bool.self, forKey: .gainMapLeftOut) ?? false
        if let codecs = try container.decodeIfPresent(String.self, forKey: .codecs) { planned.movie?.codecs = codecs }
        self.planned = planned
        bytes = try container.decode(Int.self, forKey: .bytes)
        contentHash = try container.decodeIfPresent(String.self, forKey: .contentHash)
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(planIndex, forKey: .planIndex)
        try container.encode(path, forKey: .path)
        if planned.gainMapLeftOut { try container.encode(true, forKey: .gainMapLeftOut) }
        try container.encodeIfPresent(planned.movie?.codecs, forKey: .codecs)
        try container.encode(bytes, forKey: .bytes)
        try container.encodeIfPresent(contentHash, forKey: .contentHash)
    }
}
