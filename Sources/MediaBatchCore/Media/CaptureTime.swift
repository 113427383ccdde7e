import Foundation
import MetadataKit
import PipelineModel

/// When an item was captured: the first source that says, in `Capture.Source`'s order — the
/// photo's EXIF, its XMP, a movie's QuickTime tags, an XMP sidecar, a Takeout JSON, the file's name,
/// and last its modification time — placed in `input.timeZone` where the source has no zone.
struct CaptureTime {
    /// What the files beside the item say (`SidecarFiles`).
    var sidecarText: String?
    var takeout: Date?

    func capture(of input: InputItem, header: ItemHeader?, timeZone: TimeZone?) -> MediaFacts.Capture? {
        let sources: [() -> (MediaFacts.Capture, utcOnly: Bool)?] = [
            { Self.exif(header?.metadata).map { ($0, false) } },
            { Self.xmp(header?.metadata).map { ($0, false) } },
            { Self.quickTime(header) },
            { sidecarText.flatMap { Self.parse($0, .sidecar) }.map { ($0, false) } },
            { takeout.map { (.init(date: $0, source: .takeout, utcOffsetSeconds: 0), true) } },
            { Self.fileName(input) },
        ]
        for source in sources {
            if let (capture, utcOnly) = source() { return capture.placed(in: timeZone, utcOnly: utcOnly) }
        }
        return Self.modified(input, timeZone: timeZone)
    }

    /// ISO 8601 text read as a capture from `source`, or EXIF's form of it (`2023:12:24 17:30:00.000`,
    /// as darktable writes XMP dates); nil when it is not a date.
    static func parse(_ text: String, _ source: MediaFacts.Capture.Source) -> MediaFacts.Capture? {
        var characters = Array(text)
        if characters.count >= 19, characters[4] == ":", characters[7] == ":", characters[10] == " " {
            (characters[4], characters[7], characters[10]) = ("-", "-", "T")
        }
        return ISODate.parseWithOffset(String(characters)).map { .init(date: $0.date, source: source, utcOffsetSeconds: $0.utcOffsetSeconds) }
    }

    /// DateTimeOriginal with OffsetTimeOriginal and SubSecTimeOriginal.
    private static func exif(_ metadata: ImageMetadata?) -> MediaFacts.Capture? {
        guard var capture = metadata?.captureDateText.flatMap({ parse($0, .exif) }) else { return nil }
        if let fraction = metadata?.exif?.string(ExifTag.subSecTimeOriginal, in: .exif)?.trimmingCharacters(in: .whitespaces),
           !fraction.isEmpty, fraction.allSatisfy(\.isNumber), let value = Double("0." + fraction) {
            capture.date += value
        }
        return capture
    }

    /// The first of the XMP dates a photo editor or camera writes for when the photo was taken.
    private static func xmp(_ metadata: ImageMetadata?) -> MediaFacts.Capture? {
        guard let packet = metadata?.xmp, let properties = try? XMPPacket.properties(in: packet) else { return nil }
        return XMPSidecar.captured(in: properties).flatMap { parse($0, .xmp) }
    }

    /// Apple's `com.apple.quicktime.creationdate` (with its zone), else the `mvhd` time (UTC).
    private static func quickTime(_ header: ItemHeader?) -> (MediaFacts.Capture, utcOnly: Bool)? {
        guard case .video(_, let movie?)? = header?.content else { return nil }
        if let tagged = movie.creationDate.flatMap({ parse($0, .quicktime) }) { return (tagged, false) }
        return movie.creationTime.map { (.init(date: $0, source: .quicktime, utcOffsetSeconds: 0), true) }
    }

    private static func fileName(_ input: InputItem) -> (MediaFacts.Capture, utcOnly: Bool)? {
        guard let reading = FileNameDate.read((input.relativePath as NSString).lastPathComponent) else { return nil }
        return (.init(date: reading.date, source: .filename, utcOffsetSeconds: reading.isUTC ? 0 : nil), reading.isUTC)
    }

    /// The file's time, on the library's clock if it is known, else this machine's.
    private static func modified(_ input: InputItem, timeZone: TimeZone?) -> MediaFacts.Capture? {
        guard let modified = try? FileManager.default.attributesOfItem(atPath: input.path)[.modificationDate] as? Date else { return nil }
        return .init(date: modified, source: .mtime, utcOffsetSeconds: (timeZone ?? .current).secondsFromGMT(for: modified))
    }
}

extension MediaFacts.Capture {
    /// The report's and the manifest's `captured`: `{"time": …, "zone": "+01:00" or null, "source": "exif"}`.
    var reading: JSONValue {
        .object(["time": .string(text), "zone": zone.map(JSONValue.string) ?? .null, "source": .string(source.rawValue)])
    }

    /// The reading's key.
    static let readingKey = "captured"
}
