import PipelineModel

/// Why one item failed: a stable code for scripts, a message for people, and where it happened.
public struct ItemError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Codable, Sendable {
        case unreadable
        case unsupportedFormat
        /// The bytes are one format, the extension promises another (see `input.extensionMismatch`).
        case formatMismatch
        case fileTooLarge
        case tooManyPixels
        case tooManyFrames
        /// A movie longer than `limits.maxVideoDuration`, from its header.
        case tooLong
        case decodeFailed
        /// The worker process reading the item died (a decoder crashed); the run went on.
        case workerCrashed
        /// Still running after `limits.timeout`: abandoned.
        case timedOut
        case encodeFailed
        /// A picture wider or taller than its output format holds (WebP: 16383 pixels a side).
        case tooLargeForFormat
        /// Metadata that cannot be removed safely (e.g. location inside a movie's sample data).
        case unsupportedMetadata
        case writeFailed
        /// The output volume is full (or over its quota): freeing space and running again redoes it.
        case diskFull
        case outputCollision
        case wouldOverwriteInput
        /// The state database could not be read for the item: it is neither new nor unchanged.
        case stateUnreadable
        /// The input changed (size or modification time) between its listing and its outputs'
        /// publication: what was read may be neither the old file nor the new one.
        case inputChanged
    }

    public let code: Code
    public let message: String
    /// The input, relative to the input root.
    public let item: String
    public let stage: StageName

    public var description: String { "\(item): \(stage.rawValue): \(message) [\(code.rawValue)]" }
}

/// What a stage throws; the runner adds the item and the stage.
struct StageFailure: Error {
    let code: ItemError.Code
    let message: String

    init(_ code: ItemError.Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
