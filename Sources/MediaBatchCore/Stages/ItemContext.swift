import AVFormatKit
import MediaFormats
import PipelineModel
import RunState
import VipsKit

/// One item on its way through the stages. Stages run one after another on one thread, each
/// replacing what it transforms; libvips images stay lazy until `write` saves them.
final class ItemContext {
    let input: InputItem
    /// Sniffed from the file's bytes.
    let format: MediaFormat
    let bytesIn: Int
    /// SHA-256 of the input, for `{hash:N}`: the run's own (it records it), or, in a dry run,
    /// read only when a path asks for it; empty if the file can no longer be read.
    private(set) lazy var contentHash: String = knownHash ?? (try? ContentHash.ofFile(atPath: input.path)) ?? ""
    private let knownHash: String?
    /// Read before any stage runs (see `ItemHeader`); `decode` fails the item with its failure.
    let header: Result<ItemHeader, StageFailure>
    /// What the filter decides on, classified from the header.
    let facts: MediaFacts

    /// The image as the stages have shaped it so far (lazy: nothing decoded until saved); set by `decode`.
    var image: VImage?
    /// The metadata the image output will carry; set by `decode`, edited by `stripMetadata`.
    var metadata: ImageMetadata?
    /// Set by `decode` for videos.
    var video: VideoProbe?
    /// Set by `stripMetadata`: `write` copies the video without its location metadata.
    var stripVideoLocation = false
    /// What the stages planned once the header stages had run (see `ItemExecutor.pixels`); `write` writes it.
    var plan: ItemPlan
    /// Set by a stage that decides the item is not for this pipeline.
    private(set) var skipReason: String?
    /// Metadata the outputs do not carry, for the report.
    var removedMetadata: [String] = []
    /// Set by `variants`: each variant's image, by its size as listed, computed into memory once.
    var renditions: [Int: VImage] = [:]
    /// Set by `variants` when the pipeline asks for a placeholder (ThumbHash, base64).
    var placeholder: String?
    /// Set by `write`: what it published (and what it left as an earlier run wrote it).
    var written: [WrittenOutput] = []

    init(_ job: ItemJob) {
        input = job.input
        format = job.format
        bytesIn = job.bytesIn
        knownHash = job.contentHash
        header = Result { try ItemHeader(path: job.input.path, format: job.format) }.mapError {
            $0 as? StageFailure ?? StageFailure(.decodeFailed, "\($0)")
        }
        facts = MediaClassifier.facts(of: job.input, format: job.format, header: try? header.get())
        plan = ItemPlan(format: job.format)
    }

    func skip(_ reason: String) {
        skipReason = reason
    }
}
