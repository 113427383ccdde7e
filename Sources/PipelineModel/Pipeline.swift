import Foundation

/// A validated pipeline: every option typed, every default filled in, every path absolute.
/// Stages receive these values and never re-check them.
public struct Pipeline: Equatable, Sendable {
    public struct Input: Equatable, Sendable {
        /// Absolute; nil when the file leaves it to `--input`.
        public var root: URL?
        public var include: [Glob]
        public var exclude: [Glob]
        /// Formats read; anything else is skipped, and libvips' other loaders are blocked.
        public var formats: Set<MediaFormat>
        /// Whether a file whose content contradicts its extension is processed as what it is.
        public var extensionMismatch: ExtensionMismatch
        /// Whether symlinks to files and folders outside the input root (and symlinked folders
        /// inside it) are followed.
        public var followSymlinks: Bool
        /// Trusted input runs decoders in mediabatch's own process; untrusted input (the
        /// default) runs them in worker processes, so a decoder crash costs one item.
        public var trusted: Bool
    }

    public enum ExtensionMismatch: String, CaseIterable, Sendable {
        /// The item fails, naming both formats.
        case fail
        /// The item is processed as the format its bytes are, and the report says so.
        case process
    }

    public struct Output: Equatable, Sendable {
        /// Absolute; nil when the file leaves it to `--output`.
        public var root: URL?
    }

    public struct Limits: Equatable, Sendable {
        /// Items in flight at once; nil means one per CPU this process may use.
        public var concurrency: Int?
        public var memoryBudget: ByteSize
        public var maxPixels: Int
        /// Larger inputs fail before any byte is decoded.
        public var maxFileBytes: ByteSize
        /// Images with more frames or pages (GIF, WebP, HEIF sequences, TIFF) fail on their header.
        public var maxFrames: Int
        /// An item still running after this long is abandoned and fails (with worker isolation;
        /// a decode stuck in mediabatch's own process cannot be stopped safely).
        public var timeoutSeconds: Int
    }

    /// What a failed item does to the rest of the run.
    public enum OnError: String, CaseIterable, Sendable {
        /// Report it and go on with the next item.
        case `continue`
        /// Stop admitting items; those in flight finish, the report is written.
        case stop
    }

    public var version: Int
    public var input: Input
    public var output: Output
    public var limits: Limits
    public var onError: OnError
    public var stages: [Stage]

    /// The first stage of a given kind, if the pipeline has one.
    public func stage(_ name: Stage.Name) -> Stage? {
        stages.first { $0.name == name }
    }
}

/// One step of a pipeline with its typed options.
public enum Stage: Equatable, Sendable {
    case filter(Filter)
    case decode
    case downsample(maxPixelSize: Int)
    case transcode(Transcode)
    /// Removes the named metadata groups; `stripLocation` is the `[.location]` preset.
    case stripMetadata(Set<MetadataGroup>)
    case write(Write)

    public struct Filter: Equatable, Sendable {
        public var match: MediaMatch
        /// What happens to a Live Photo's movie that `match` does not select when its still is selected.
        public var livePhotoVideo: LivePhotoVideo

        public init(match: MediaMatch, livePhotoVideo: LivePhotoVideo = Defaults.livePhotoVideo) {
            self.match = match
            self.livePhotoVideo = livePhotoVideo
        }
    }

    public enum LivePhotoVideo: String, CaseIterable, Sendable {
        /// The movie goes along, written next to its still's output under the same stem.
        case keepWithStill
        /// Only the still goes; the movie is filtered out.
        case drop
    }

    public struct Transcode: Equatable, Sendable {
        /// Formats this stage applies to; nil means every image.
        public var from: Set<MediaFormat>?
        public var to: OutputFormat
        public var quality: Int

        public func applies(to format: MediaFormat) -> Bool {
            !format.isVideo && from?.contains(format) ?? true
        }
    }

    public struct Write: Equatable, Sendable {
        public var path: PathTemplate
    }

    /// Stage kinds, in the order a pipeline lists them.
    public enum Name: String, CaseIterable, Codable, Sendable {
        case filter, decode, downsample, transcode, stripMetadata, write
    }

    /// How pipeline files spell stages: each kind by its name, plus presets.
    public static let spellings: [(String, Name)] =
        Name.allCases.map { ($0.rawValue, $0) } + [("stripLocation", .stripMetadata)]

    public var name: Name {
        switch self {
        case .filter: return .filter
        case .decode: return .decode
        case .downsample: return .downsample
        case .transcode: return .transcode
        case .stripMetadata: return .stripMetadata
        case .write: return .write
        }
    }
}

/// What `stripMetadata` can remove. Everything a pipeline does not name stays.
public enum MetadataGroup: String, CaseIterable, Sendable {
    /// GPS (EXIF GPS IFD, XMP exif:GPS*), place names (XMP photoshop/Iptc4xmp, IPTC-IIM 2:26–2:101),
    /// drone telemetry, and QuickTime location keys/atoms in videos.
    case location
    /// Camera body and lens serial numbers (EXIF).
    case serialNumbers
    /// The camera owner's name (EXIF).
    case cameraOwner
    /// Every MakerNote, Apple's included (and with it the Live Photo content identifier).
    case makerNotes
    /// The whole XMP packet.
    case xmp
    /// The whole IPTC-IIM block.
    case iptc
}

/// Every default of the pipeline format, in one place.
public enum Defaults {
    public static let supportedVersion = 1
    public static let include = ["**/*"]
    public static let exclude = ["**/.*"]
    /// Every format mediabatch reads.
    public static let formats = Set(MediaFormat.allCases)
    public static let extensionMismatch = Pipeline.ExtensionMismatch.fail
    public static let followSymlinks = false
    public static let trusted = false
    public static let memoryBudget = ByteSize(bytes: 1 << 30)
    /// sharp's default: 16383 × 16383.
    public static let maxPixels = 268_402_689
    /// Beyond a long 4K iPhone video.
    public static let maxFileBytes = ByteSize(bytes: 4 << 30)
    /// Generous for animations; a 10 000-frame GIF is a bomb, not a photo.
    public static let maxFrames = 1000
    /// A 48 MP HEIC takes under 2 s here; a 2 GB movie copy under a minute.
    public static let timeoutSeconds = 120
    public static let onError = Pipeline.OnError.continue
    public static let quality = 80
    public static let writePath = "{dir}/{stem}.{ext}"
    /// A Live Photo stays a pair unless the pipeline says otherwise.
    public static let livePhotoVideo = Stage.LivePhotoVideo.keepWithStill
}
