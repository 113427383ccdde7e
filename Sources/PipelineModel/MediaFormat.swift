/// What a file is, decided from its bytes (see `FormatSniffer`), never from its name.
public enum MediaKind: String, CaseIterable, Sendable {
    case images
    case videos
}

/// A container or image format mediabatch recognises.
public enum MediaFormat: String, CaseIterable, Sendable {
    case jpeg, png, gif, webp, tiff, heic, avif
    case mov, mp4, threeGP = "3gp"

    public var kind: MediaKind {
        switch self {
        case .mov, .mp4, .threeGP: return .videos
        default: return .images
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

/// Formats `transcode` can write.
public enum OutputFormat: String, CaseIterable, Sendable {
    case jpeg, png, webp

    public var mediaFormat: MediaFormat {
        switch self {
        case .jpeg: return .jpeg
        case .png: return .png
        case .webp: return .webp
        }
    }
}
