import AVFormatKit
import Foundation
import MetadataKit
import PipelineModel
import VipsKit

/// What `mediabatch inspect` reports about one file, read from headers and metadata blocks
/// only: pixels and video frames are never decoded. Absent values stay nil (and are left out
/// of the JSON).
public struct Inspection: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case image, video
    }

    public struct Stream: Codable, Equatable, Sendable {
        public var kind: String
        public var codec: String

        public init(kind: String, codec: String) {
            self.kind = kind
            self.codec = codec
        }
    }

    public var path: String
    public var kind: Kind
    /// Decided from the file's bytes, e.g. "jpeg", "heic", "mov".
    public var format: String
    /// As loaded: HEIF and AVIF images come with the container's rotation already applied.
    public var width: Int?
    public var height: Int?
    /// EXIF orientation, 1–8.
    public var orientation: Int?
    /// The ICC profile's description, e.g. "Display P3".
    public var colourProfile: String?
    public var make: String?
    public var model: String?
    public var lens: String?
    public var fNumber: Double?
    public var exposureSeconds: Double?
    public var iso: Int?
    public var focalLengthMillimetres: Double?
    public var focalLength35mmMillimetres: Double?
    /// EXIF DateTimeOriginal as ISO 8601 (with OffsetTimeOriginal when present), or a movie's
    /// QuickTime creation date as written.
    public var captureDate: String?
    public var latitude: Double?
    public var longitude: Double?
    /// Metres above sea level; negative below it.
    public var altitude: Double?
    /// Where location metadata sits: "EXIF", "XMP", "IPTC", "QuickTime". It can be present
    /// without coordinates (a city name in IPTC, say).
    public var locationFoundIn: [String]?
    /// Pairs a Live Photo's still with its movie.
    public var contentIdentifier: String?
    public var durationSeconds: Double?
    public var framesPerSecond: Double?
    /// Degrees a player turns the video clockwise to show it upright.
    public var rotation: Int?
    public var streams: [Stream]?

    init(path: String, kind: Kind, format: MediaFormat) {
        self.path = path
        self.kind = kind
        self.format = format.rawValue
    }

    /// Reads `path`'s headers.
    ///
    /// - Throws: `InspectionError` when the file cannot be opened, is not a format mediabatch
    ///   recognises, or its header cannot be parsed.
    public static func read(path: String) throws -> Inspection {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw InspectionError(message: "is a folder; inspect reads files")
        }
        let format: MediaFormat?
        do {
            format = try FormatSniffer.format(of: path)
        } catch {
            throw InspectionError(message: FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file")
        }
        guard let format else {
            let isEmpty = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0
            throw InspectionError(message: isEmpty ? "the file is empty" : "not an image or video format mediabatch recognises")
        }
        switch format.kind {
        case .images: return try readImage(path: path, format: format)
        case .videos: return try readVideo(path: path, format: format)
        }
    }

    private static func readImage(path: String, format: MediaFormat) throws -> Inspection {
        let image: VImage
        do {
            try Vips.start()
            image = try VImage.open(path)
        } catch let error as VipsError {
            throw InspectionError(message: "cannot read the \(format.rawValue) header: \(error.message)")
        }
        let metadata = ImageMetadata(of: image, path: path)
        var inspection = Inspection(path: path, kind: .image, format: format)
        inspection.width = image.width
        inspection.height = image.height
        inspection.colourProfile = image.blob("icc-profile-data").flatMap(ICCProfile.description)
        let orientation = metadata.exif?.number(ExifTag.orientation, in: .ifd0).map(Int.init) ?? image.int("orientation")
        inspection.orientation = orientation.flatMap { (1...8).contains($0) ? $0 : nil }

        var locationFoundIn: [String] = []
        if let exif = metadata.exif {
            inspection.readCameraSettings(from: exif)
            inspection.contentIdentifier = exif.appleMakerNote?.contentIdentifier
            if exif.hasGPS { locationFoundIn.append("EXIF") }
            inspection.setPosition(GeoPosition(exif: exif))
        }
        // An unparsable block is not claimed to hold location: inspect reports what it can read.
        if let xmp = metadata.xmp, let values = try? XMPPacket.locationValues(in: xmp), !values.isEmpty {
            locationFoundIn.append("XMP")
        }
        if let iptc = metadata.iptc, let values = try? IPTCBlock.locationValues(in: iptc), !values.isEmpty {
            locationFoundIn.append("IPTC")
        }
        inspection.locationFoundIn = locationFoundIn.isEmpty ? nil : locationFoundIn
        return inspection
    }

    private mutating func readCameraSettings(from exif: ExifData) {
        make = exif.string(ExifTag.make, in: .ifd0)
        model = exif.string(ExifTag.model, in: .ifd0)
        lens = exif.string(ExifTag.lensModel, in: .exif)
        fNumber = exif.number(ExifTag.fNumber, in: .exif)
        exposureSeconds = exif.number(ExifTag.exposureTime, in: .exif)
        iso = exif.number(ExifTag.isoSpeed, in: .exif).flatMap { Int(exactly: $0.rounded()) }
        focalLengthMillimetres = exif.number(ExifTag.focalLength, in: .exif)
        // 0 means "unknown" in EXIF.
        focalLength35mmMillimetres = exif.number(ExifTag.focalLengthIn35mm, in: .exif).flatMap { $0 > 0 ? $0 : nil }
        captureDate = exif.string(ExifTag.dateTimeOriginal, in: .exif).map {
            Self.isoDate(exifDateTime: $0, offset: exif.string(ExifTag.offsetTimeOriginal, in: .exif))
        }
    }

    private static func readVideo(path: String, format: MediaFormat) throws -> Inspection {
        let probe: VideoProbe
        do {
            probe = try AVFormat.probe(path: path)
        } catch let error as AVFormatError {
            throw InspectionError(message: "not a readable \(format.rawValue) video: \(error.message)")
        }
        var inspection = Inspection(path: path, kind: .video, format: format)
        inspection.width = probe.width
        inspection.height = probe.height
        inspection.durationSeconds = probe.durationSeconds
        inspection.framesPerSecond = probe.framesPerSecond
        inspection.rotation = probe.rotationClockwise
        inspection.streams = probe.streams.map { Stream(kind: $0.kind, codec: $0.codec) }

        // libavformat has already read the streams; a moov the box walker rejects just has no tags to show.
        guard let movie = try? MovieMetadata(contentsOfFile: path) else { return inspection }
        inspection.make = movie.make
        inspection.model = movie.model
        inspection.captureDate = movie.creationDate
        inspection.contentIdentifier = movie.contentIdentifier
        inspection.setPosition(movie.iso6709.flatMap(GeoPosition.init(iso6709:)))
        if movie.carriesLocation {
            inspection.locationFoundIn = ["QuickTime"]
        }
        return inspection
    }

    private mutating func setPosition(_ position: GeoPosition?) {
        latitude = position?.latitude
        longitude = position?.longitude
        altitude = position?.altitude
    }

    /// `2021:04:10 11:44:00` and `+01:00` become `2021-04-10T11:44:00+01:00`. A date that is
    /// not in EXIF's form is kept as written; an offset that is not `±HH:MM` (cameras write
    /// blanks) is left off.
    static func isoDate(exifDateTime: String, offset: String?) -> String {
        guard matches(exifDateTime, "dddd:dd:dd dd:dd:dd") else { return exifDateTime }
        let date = exifDateTime.prefix(10).replacingOccurrences(of: ":", with: "-")
        let zone = offset.flatMap { matches($0, "+dd:dd") || matches($0, "-dd:dd") ? $0 : nil } ?? ""
        return "\(date)T\(exifDateTime.suffix(8))\(zone)"
    }

    /// Whether `text` has `pattern`'s shape: `d` stands for an ASCII digit, anything else for itself.
    private static func matches(_ text: String, _ pattern: String) -> Bool {
        text.count == pattern.count && zip(text, pattern).allSatisfy { character, expected in
            expected == "d" ? character.isASCII && character.isNumber : character == expected
        }
    }
}

/// Why a file could not be inspected.
public struct InspectionError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
