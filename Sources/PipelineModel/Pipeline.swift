import Foundation

/// A validated pipeline: every option typed, every default filled in, every path absolute.
/// Stages receive these values and never re-check them.
public struct Pipeline: Equatable, Sendable {
    public struct Input: Equatable, Sendable {
        /// Absolute; nil when the file leaves it to `--input`.
        public var root: URL?
        public var include: [Glob]
        public var exclude: [Glob]
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
    }

    public var version: Int
    public var input: Input
    public var output: Output
    public var limits: Limits
    public var stages: [Stage]

    /// The first stage of a given kind, if the pipeline has one.
    public func stage(_ name: Stage.Name) -> Stage? {
        stages.first { $0.name == name }
    }
}

/// One step of a pipeline with its typed options.
public enum Stage: Equatable, Sendable {
    case filter(MediaMatch)
    case decode
    case downsample(maxPixelSize: Int)
    case transcode(Transcode)
    case stripLocation
    case write(Write)

    public struct Transcode: Equatable, Sendable {
        /// Formats this stage applies to; nil means every image.
        public var from: Set<MediaFormat>?
        public var to: OutputFormat
        public var quality: Int
    }

    public struct Write: Equatable, Sendable {
        public var path: PathTemplate
    }

    /// Stage names as written in pipeline files, in the order a pipeline lists them.
    public enum Name: String, CaseIterable, Sendable {
        case filter, decode, downsample, transcode, stripLocation, write
    }

    public var name: Name {
        switch self {
        case .filter: return .filter
        case .decode: return .decode
        case .downsample: return .downsample
        case .transcode: return .transcode
        case .stripLocation: return .stripLocation
        case .write: return .write
        }
    }
}

/// Every default of the pipeline format, in one place.
public enum Defaults {
    public static let supportedVersion = 1
    public static let include = ["**/*"]
    public static let exclude = ["**/.*"]
    public static let memoryBudget = ByteSize(bytes: 1 << 30)
    /// sharp's default: 16383 × 16383.
    public static let maxPixels = 268_402_689
    public static let quality = 80
    public static let writePath = "{dir}/{stem}.{ext}"
}
