import PipelineModel

/// Why one item failed: a stable code for scripts, a message for people, and where it happened.
public struct ItemError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Codable, Sendable {
        case unreadable
        case unsupportedFormat
        case tooManyPixels
        case decodeFailed
        case encodeFailed
        /// Metadata that cannot be removed safely (e.g. location inside a movie's sample data).
        case unsupportedMetadata
        case writeFailed
        case outputCollision
        case wouldOverwriteInput
    }

    public let code: Code
    public let message: String
    /// The input, relative to the input root.
    public let item: String
    public let stage: Stage.Name

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
