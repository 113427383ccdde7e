import Foundation
import MediaFormats

/// What a filter decides on, all read from one item's header and metadata.
public struct MediaFacts: Equatable, Sendable {
    /// When the item was captured, and where that was read.
    public struct Capture: Codable, Equatable, Sendable {
        /// Where a capture time comes from, in the order they are tried: a photo's own metadata,
        /// then a movie's, the files beside it, its name, and last the file's modification time.
        public enum Source: String, Codable, CaseIterable, Sendable {
            case exif, xmp, quicktime, sidecar, takeout, filename, mtime
        }

        public var date: Date
        public var source: Source
        /// The UTC offset the capturing clock was set to, when known; nil reads `date` as UTC (as
        /// zone-less dates are): a wall-clock time.
        public var utcOffsetSeconds: Int?

        public init(date: Date, source: Source, utcOffsetSeconds: Int? = nil) {
            self.date = date
            self.source = source
            self.utcOffsetSeconds = utcOffsetSeconds
        }

        /// ISO 8601 on the capturing clock: `2023-12-24T18:30:00+01:00`, milliseconds where the
        /// source has them, no offset where it is unknown.
        public var text: String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: utcOffsetSeconds ?? 0)!
            let fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
            let milliseconds = Int((Double(fields.nanosecond ?? 0) / 1e6).rounded())
            return String(format: "%04d-%02d-%02dT%02d:%02d:%02d", fields.year!, fields.month!, fields.day!, fields.hour!, fields.minute!, fields.second!)
                + (milliseconds > 0 && milliseconds < 1000 ? String(format: ".%03d", milliseconds) : "") + (zone ?? "")
        }

        /// The offset as ISO 8601 writes it (`+01:00`, `Z`), nil when unknown.
        public var zone: String? {
            guard let offset = utcOffsetSeconds else { return nil }
            guard offset != 0 else { return "Z" }
            return String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
        }

        /// A zoneless time given `zone`'s offset at that wall-clock time; a time known only in UTC
        /// read on `zone`'s clock. Times whose offset is known stay as they are.
        public func placed(in zone: TimeZone?, utcOnly: Bool) -> Capture {
            guard let zone, utcOnly || utcOffsetSeconds == nil else { return self }
            var placed = self
            if utcOnly {
                placed.utcOffsetSeconds = zone.secondsFromGMT(for: date)
            } else {
                // The wall clock read as UTC: the offset in force then is the zone's at about that instant.
                let offset = zone.secondsFromGMT(for: date.addingTimeInterval(TimeInterval(-zone.secondsFromGMT(for: date))))
                placed.date = date.addingTimeInterval(TimeInterval(-offset))
                placed.utcOffsetSeconds = offset
            }
            return placed
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
