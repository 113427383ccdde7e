/// A container or image format mediabatch recognises, decided from the file's bytes (see
/// `FormatSniffer`), never from its name.
public enum MediaFormat: String, CaseIterable, Codable, Sendable {
    case jpeg, png, gif, webp, tiff, heic, avif
    case mov, mp4, threeGP = "3gp"

    /// Decided by the container: HEIF and AVIF sequences are still images with frames.
    public var isVideo: Bool {
        switch self {
        case .mov, .mp4, .threeGP: return true
        default: return false
        }
    }

    /// The extension `{ext}` expands to for an output in this format.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .tiff: return "tif"
        default: return rawValue
        }
    }
}

/// Formats mediabatch writes images as (`transcode.to`, `variants.formats`).
public enum OutputFormat: String, CaseIterable, Sendable {
    case jpeg, png, webp, avif, heic

    public var mediaFormat: MediaFormat {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .webp: return .webp
        case .avif: return .avif
        case .heic: return .heic
        }
    }

    /// PNG is lossless: it takes no quality.
    public var isLossy: Bool { self != .png }

    /// The encoder's CPU effort, where it has one worth choosing (libwebp's method, libaom's
    /// speed reversed); libjpeg, libpng's zlib and x265 through libvips take none.
    public var effortRange: ClosedRange<Int>? {
        switch self {
        case .webp: return 0...6
        case .avif: return 0...9
        default: return nil
        }
    }
}
