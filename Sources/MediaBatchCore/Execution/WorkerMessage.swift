import Foundation
import MediaFormats
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
        /// An interim line while a long item runs: the reply to come follows it.
        var progress: ItemProgress.Entry?
    }

    /// Writes `message` and its newline, whole: a pipe takes at most 64 KiB per write.
    static func send(_ message: Data, to descriptor: Int32) -> Bool {
        var line = message
        line.append(0x0A)
        return line.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
