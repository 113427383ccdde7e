import AVFormatKit
import PipelineModel
import VipsKit

/// One item on its way through the stages. Stages run one after another on one thread, each
/// replacing what it transforms; libvips images stay lazy until `write` saves them.
final class ItemContext {
    let input: InputItem
    /// Sniffed from the file's bytes.
    let format: MediaFormat
    let bytesIn: Int
    /// SHA-256 of the input, for the state database and `{hash:N}`.
    let contentHash: String
    /// Read before any stage runs (see `ItemHeader`); `decode` fails the item with its failure.
    let header: Result<ItemHeader, StageFailure>
    /// What the filter decides on, classified from the header.
    let facts: MediaFacts

    /// The image as the stages have shaped it so far (lazy: nothing decoded until saved).
    var image: VImage?
    /// The metadata the image output will carry; set by `decode`, edited by `stripMetadata`.
    var metadata: ImageMetadata?
    /// Set by `decode` for videos.
    var video: VideoProbe?
    /// Set by `stripMetadata`: `write` copies the video without its location metadata.
    var stripVideoLocation = false
    /// What `write` encodes to; `transcode` changes it.
    var outputFormat: MediaFormat
    var quality = Defaults.quality
    /// Set by a stage that decides the item is not for this pipeline.
    private(set) var skipReason: String?
    /// Metadata the output does not carry, for the report.
    var removedMetadata: [String] = []
    /// Set by `write`: the output, relative to the output root, and its size.
    var output: (path: String, bytes: Int)?

    init(input: InputItem, format: MediaFormat, bytesIn: Int, contentHash: String) {
        self.input = input
        self.format = format
        self.bytesIn = bytesIn
        self.contentHash = contentHash
        header = Result { try ItemHeader(path: input.path, format: format) }.mapError {
            $0 as? StageFailure ?? StageFailure(.decodeFailed, "\($0)")
        }
        facts = MediaClassifier.facts(of: input, format: format, header: try? header.get())
        self.outputFormat = format
    }

    func skip(_ reason: String) {
        skipReason = reason
    }
}
