import PipelineModel

/// How an item belongs to a camera's RAW+JPEG pair: which file it is, where the other is, and
/// whether it stands for the photo (`input.rawJpegPairs`).
public struct RawJpegPair: Codable, Equatable, Sendable {
    public enum Role: String, Codable, Sendable {
        case raw, jpeg
    }

    public let role: Role
    /// The other file, relative to the input root.
    public let partner: String
    /// False for the file the pipeline leaves to its partner.
    public let processed: Bool

    /// Why a file left to its partner is skipped: `pairedWithJpeg` / `pairedWithRaw` first, for
    /// reports' readers to match.
    var skipReason: String {
        let (code, other) = role == .raw ? ("pairedWithJpeg", "raw") : ("pairedWithRaw", "jpeg")
        return "\(code): \(partner) stands for this photo (input.rawJpegPairs: \"\(other)\" or \"both\" processes this file)"
    }
}
