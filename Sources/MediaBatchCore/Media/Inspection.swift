import LibAVKit
import Foundation
import MediaFormats
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
    /// When it was captured, ISO 8601 on the capturing clock (as a run reads it: `CaptureTime`).
    public var captureDate: String?
    /// Where `captureDate` was read: `exif` … `mtime` (what `capturedAfter`/`capturedBefore` use).
    public var captureDateSource: MediaFacts.Capture.Source?
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
    /// Every kind the file is (see `MediaKind`), in the order kinds are declared.
    public var kinds: [MediaKind] = []
    /// Whose HDR gain map the image carries: apple, ultraHDR, iso21496, samsung.
    public var gainMap: String?
    /// The other half of a Live Photo, a file in the same folder.
    public var livePhotoPartner: String?

    init(path: String, kind: Kind, format: MediaFormat) {
        self.path = path
        self.kind = kind
        self.format = format.rawValue
    }

    /// Reads `path`'s headers. `livePhotos` pairs the file with the other half of a Live Photo
    /// in its folder; pass one index to inspect many files of a folder.
    ///
    /// - Throws: `InspectionError` when the file cannot be opened, is not a format mediabatch
    ///   recognises, or its header cannot be parsed.
    public static func read(path: String, livePhotos: LivePhotoIndex = LivePhotoIndex()) throws -> Inspection {
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
        let header: ItemHeader
        do {
            try Vips.start()
            header = try ItemHeader(path: path, format: format)
        } catch let failure as StageFailure {
            throw InspectionError(message: failure.message)
        } catch {
            throw InspectionError(message: "cannot start libvips: \(error)")
        }
        let input = livePhotos.item(at: path, format: format)
        var inspection: Inspection
        switch header.content {
        case .image(let image, let metadata, let structure):
            inspection = readImage(path: path, format: format, image, metadata)
            inspection.gainMap = structure.gainMap?.rawValue
        case .cameraRaw(let raw, let metadata, _):
            inspection = Inspection(path: path, kind: .image, format: format)
            inspection.read(metadata)
            // What a full develop makes, as stored (LibRaw's header; none where it cannot read it).
            inspection.width = try? raw.get().developed.width
            inspection.height = try? raw.get().developed.height
        case .video(let probe, let movie): inspection = readVideo(path: path, format: format, probe, movie)
        }
        let facts = MediaClassifier.facts(of: input, format: format, header: header)
        inspection.kinds = MediaKind.allCases.filter(facts.kinds.contains)
        inspection.captureDate = facts.capture?.text
        inspection.captureDateSource = facts.capture?.source
        inspection.livePhotoPartner = input.livePhoto.map { ($0.partner as NSString).lastPathComponent }
        return inspection
    }

    private static func readImage(path: String, format: MediaFormat, _ image: VImage, _ metadata: ImageMetadata) -> Inspection {
        var inspection = Inspection(path: path, kind: .image, format: format)
        inspection.width = image.width
        inspection.height = image.height
        inspection.colourProfile = image.iccProfile.flatMap(ICCProfile.description)
        inspection.read(metadata)
        if inspection.orientation == nil, let declared = image.declaredOrientation, (1...8).contains(declared) {
            inspection.orientation = declared
        }
        return inspection
    }

    /// What an image's metadata says: orientation, camera, capture date, position.
    private mutating func read(_ metadata: ImageMetadata) {
        orientation = metadata.exif?.number(ExifTag.orientation, in: .ifd0).map(Int.init).flatMap { (1...8).contains($0) ? $0 : nil }
        if let exif = metadata.exif {
            readCameraSettings(from: exif)
            contentIdentifier = exif.appleMakerNote?.contentIdentifier
            setPosition(GeoPosition(exif: exif))
        }
        let locationSources = metadata.locationSources
        locationFoundIn = locationSources.isEmpty ? nil : locationSources
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
    }

    private static func readVideo(path: String, format: MediaFormat, _ probe: VideoProbe, _ movie: MovieMetadata?) -> Inspection {
        var inspection = Inspection(path: path, kind: .video, format: format)
        inspection.width = probe.width
        inspection.height = probe.height
        inspection.durationSeconds = probe.durationSeconds
        inspection.framesPerSecond = probe.framesPerSecond
        inspection.rotation = probe.rotationClockwise
        inspection.streams = probe.streams.map { Stream(kind: $0.kind, codec: $0.codec) }
        if let container = format.row.container?.metadata.movie, container.carriesLocation(path: path, header: movie) {
            inspection.locationFoundIn = [container.locationPlace]
        }
        guard let movie else { return inspection }
        inspection.make = movie.make
        inspection.model = movie.model
        inspection.contentIdentifier = movie.contentIdentifier
        inspection.setPosition(movie.iso6709.flatMap(GeoPosition.init(iso6709:)))
        return inspection
    }

    private mutating func setPosition(_ position: GeoPosition?) {
        latitude = position?.latitude
        longitude = position?.longitude
        altitude = position?.altitude
    }
}

/// Why a file could not be inspected.
public struct InspectionError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
