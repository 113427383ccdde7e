import MediaFormats

/// A codec a `video` rendition is encoded with: each one's container and quality scale. Which
/// encoder library makes it is LibAVKit's to say.
public enum VideoCodec: String, CaseIterable, Codable, Sendable {
    /// High profile, 8-bit 4:2:0: what every browser plays.
    case h264
    /// Tagged `hvc1`, as Apple's players require.
    case hevc
    case av1
    case vp9

    /// The container it is written in: WebM for VP9, MP4 for the others.
    public var container: MediaFormat { self == .vp9 ? .webm : .mp4 }

    /// The encoder's constant rate factor scale.
    public var qualityRange: ClosedRange<Int> {
        switch self {
        case .h264, .hevc: return 0...51
        case .av1: return 1...63
        case .vp9: return 0...63
        }
    }

    /// Whether it can keep a movie's HDR: 10-bit with its transfer signalled.
    public var keepsHDR: Bool { self == .hevc || self == .av1 }

    /// The audio codecs its container holds, the first its default.
    public var audioCodecs: [Stage.VideoAudio] { container == .webm ? [.opus] : [.aac, .opus] }
}
