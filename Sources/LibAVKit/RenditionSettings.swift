import CLibAV
import Foundation

/// What a web rendition of a movie is to be.
public struct RenditionSettings: Sendable {
    public enum Codec: String, Sendable {
        case h264, hevc, av1, vp9
    }

    public enum Audio: String, Sendable {
        case aac, opus
        /// The source's packets, where the container holds its codec (else its own: AAC in MP4, Opus in WebM).
        case copy
        case none
    }

    public var codec: Codec
    /// The encoder's constant rate factor.
    public var crf: Int
    /// The longest side at most; never upscaled.
    public var maxPixelSize: Int?
    public var maxFps: Int
    public var audio: Audio
    /// A PQ or HLG movie stays HDR (10-bit, its transfer and primaries signalled); else tone-mapped to SDR BT.709.
    public var keepHDR: Bool
    /// A stream that already fits is copied, its packets as they are.
    public var copyWhereFits: Bool

    public init(codec: Codec, crf: Int, maxPixelSize: Int?, maxFps: Int, audio: Audio, keepHDR: Bool, copyWhereFits: Bool) {
        self.codec = codec
        self.crf = crf
        self.maxPixelSize = maxPixelSize
        self.maxFps = maxFps
        self.audio = audio
        self.keepHDR = keepHDR
        self.copyWhereFits = copyWhereFits
    }
}

/// What a rendition came out as.
public struct RenditionFacts: Sendable, Equatable {
    /// As shown: the rendition has no rotation left to apply.
    public let width: Int
    public let height: Int
    public let seconds: Double?
    /// The video stream's packets are the source's.
    public let videoCopied: Bool
    /// libavcodec's name of the audio written, nil for none.
    public let audioCodec: String?
    public let audioCopied: Bool
    /// Frames written.
    public let frames: Int
}

/// Each codec's encoder in libavcodec and what it is told: the same options the ffmpeg CLI takes
/// by these names (`-c:v libx264 -crf 23 -profile:v high`).
extension RenditionSettings.Codec {
    var encoderName: String {
        switch self {
        case .h264: return "libx264"
        case .hevc: return "libx265"
        case .av1: return "libsvtav1"
        case .vp9: return "libvpx-vp9"
        }
    }

    var codecID: AVCodecID {
        switch self {
        case .h264: return AV_CODEC_ID_H264
        case .hevc: return AV_CODEC_ID_HEVC
        case .av1: return AV_CODEC_ID_AV1
        case .vp9: return AV_CODEC_ID_VP9
        }
    }

    /// libavformat's muxer.
    var muxer: String { self == .vp9 ? "webm" : "mp4" }

    /// The encoder's private options, beyond the CRF. x265 logs to stderr unless told not to; VP9's
    /// constant quality needs a zero bitrate, and libvpx's default speed (1) is several times
    /// slower than speed 4 for a web rendition of the same quality class.
    func options(crf: Int) -> [(String, String)] {
        switch self {
        case .h264: return [("crf", "\(crf)"), ("profile", "high"), ("preset", "medium")]
        case .hevc: return [("crf", "\(crf)"), ("preset", "medium"), ("x265-params", "log-level=none")]
        case .av1: return [("crf", "\(crf)")]
        case .vp9: return [("crf", "\(crf)"), ("b", "0"), ("deadline", "good"), ("cpu-used", "4")]
        }
    }

    /// Apple's players take HEVC only as `hvc1` (parameter sets in the sample description).
    var codecTag: UInt32? {
        self == .hevc ? UInt32(UInt8(ascii: "h")) | UInt32(UInt8(ascii: "v")) << 8 | UInt32(UInt8(ascii: "c")) << 16
            | UInt32(UInt8(ascii: "1")) << 24 : nil
    }
}

extension RenditionSettings.Audio {
    var encoderName: String? {
        switch self {
        case .aac: return "aac"
        case .opus: return "libopus"
        case .copy, .none: return nil
        }
    }

    var codecID: AVCodecID? {
        switch self {
        case .aac: return AV_CODEC_ID_AAC
        case .opus: return AV_CODEC_ID_OPUS
        case .copy, .none: return nil
        }
    }
}
