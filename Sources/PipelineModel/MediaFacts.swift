import Foundation
import MediaFormats

/// What a filter decides on, all read from one item's header and metadata.
public struct MediaFacts: Equatable, Sendable {
    /// When the item was captured, and whether that came from its metadata or, lacking any,
    /// from the file's modification time.
    public struct Capture: Equatable, Sendable {
        public enum Source: String, Codable, Sendable {
            case metadata, fileModified
        }

        public var date: Date
        public var source: Source
        /// The UTC offset the capturing clock was set to, when the metadata says; nil reads
        /// `date` as UTC (as zone-less dates are).
        public var utcOffsetSeconds: Int?

        public init(date: Date, source: Source, utcOffsetSeconds: Int? = nil) {
            self.date = date
            self.source = source
            self.utcOffsetSeconds = utcOffsetSeconds
        }
    }

    /// Relative to the input root.
    public var relativePath: String
    public var format: MediaFormat
    public var kinds: Set<MediaKind>
    public var hasLocation: Bool
    public var hasGainMap = false
    public var width: Int?
    public var height: Int?
    public var capture: Capture?
    public var make: String?
    public var model: String?

    public init(relativePath: String, format: MediaFormat, kinds: Set<MediaKind>, hasLocation: Bool = false,
                width: Int? = nil, height: Int? = nil, capture: Capture? = nil, make: String? = nil, model: String? = nil) {
        self.relativePath = relativePath
        self.format = format
        self.kinds = kinds
        self.hasLocation = hasLocation
        self.width = width
        self.height = height
        self.capture = capture
        self.make = make
        self.model = model
    }

    public var pixels: Int? {
        guard let width, let height else { return nil }
        return width * height
    }
}
