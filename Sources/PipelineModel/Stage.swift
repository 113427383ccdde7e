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

    /// How pipeline files spell stages: each kind by its name, plus presets (see `StageSyntax`).
    public static var spellings: [(String, Name)] { StageSyntax.all.map { ($0.spelling, $0.name) } }

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
