import Foundation
import MetadataKit
import PipelineModel
import VipsKit

/// The metadata an image output will carry: read from the input's header by `decode`, edited
/// by `stripMetadata`, written by `write`.
///
/// mediabatch edits EXIF itself (libexif, under every libvips save, drops the Apple MakerNote
/// that pairs Live Photos) and splices it into JPEG outputs. For other savers libvips writes
/// EXIF from its own fields, and the fields of removed tags are dropped from the image instead.
struct ImageMetadata {
    var exif: ExifData?
    var xmp: [UInt8]?
    var iptc: [UInt8]?
    /// The tags removed, as libvips' savers must leave them out.
    private(set) var droppedExifFields: [ExifField] = []
    /// What was removed, for the report ("EXIF GPS", "XMP exif:GPSLatitude", …).
    private(set) var removed: [String] = []

    init(of image: VImage, format: MediaFormat, path: String) {
        exif = image.exif.flatMap(ExifData.init) ?? (format == .tiff ? Self.tiffExif(path) : nil)
        xmp = image.xmp
        iptc = image.iptc
    }

    /// libvips 8.14 does not read a TIFF's own EXIF, GPS and camera tags; they are the file's
    /// first IFD and what it points to. Files past `tiffExifReadLimit` keep none: reading the
    /// whole file to find them is not worth it for a header.
    static let tiffExifReadLimit = 64 << 20

    private static func tiffExif(_ path: String) -> ExifData? {
        guard let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size <= tiffExifReadLimit,
              let bytes = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        return ExifData([UInt8](bytes))?.compacted(keepingIFD0Tags: ExifTag.descriptiveIFD0)
    }

    /// Where location metadata sits: "EXIF", "XMP", "IPTC". A block that cannot be parsed is
    /// not claimed to hold location: this reports what can be read (`stripMetadata` drops such
    /// blocks whole).
    var locationSources: [String] {
        var sources: [String] = []
        if exif?.hasGPS == true { sources.append("EXIF") }
        if let xmp, let properties = try? XMPPacket.properties(in: xmp), XMPPacket.placesPhoto(properties) { sources.append("XMP") }
        if let iptc, let values = try? IPTCBlock.locationValues(in: iptc), !values.isEmpty { sources.append("IPTC") }
        return sources
    }

    /// EXIF `DateTimeOriginal` with `OffsetTimeOriginal`, as ISO 8601 text.
    var captureDateText: String? {
        guard let exif, let original = exif.string(ExifTag.dateTimeOriginal, in: .exif) else { return nil }
        return ISODate.text(exifDateTime: original, offset: exif.string(ExifTag.offsetTimeOriginal, in: .exif))
    }

    var captureDate: Date? { captureDateText.flatMap(ISODate.parse) }

    mutating func remove(_ group: MetadataGroup) {
        switch group {
        case .location:
            removeExif(ExifTag.gpsPointer, from: .ifd0, dropping: ExifField(.gps), as: "EXIF GPS")
            removeXMPLocation()
            removeIPTCLocation()
        case .serialNumbers:
            removeExif(ExifTag.bodySerialNumber, from: .exif, named: "BodySerialNumber")
            removeExif(ExifTag.lensSerialNumber, from: .exif, named: "LensSerialNumber")
            removeExif(ExifTag.cameraSerialNumber, from: .ifd0, named: "CameraSerialNumber")
        case .cameraOwner:
            removeExif(ExifTag.ownerName, from: .exif, named: "CameraOwnerName")
        case .makerNotes:
            removeExif(ExifTag.makerNote, from: .exif, named: "MakerNote")
        case .xmp:
            if xmp != nil { removed.append("XMP") }
            xmp = nil
        case .iptc:
            if iptc != nil { removed.append("IPTC") }
            iptc = nil
        }
    }

    /// One tag, reported by its EXIF name.
    private mutating func removeExif(_ tag: UInt16, from directory: ExifData.Directory, named name: String) {
        removeExif(tag, from: directory, dropping: ExifField(Self.vipsDirectory(directory), name), as: "EXIF \(name)")
    }

    private static func vipsDirectory(_ directory: ExifData.Directory) -> ExifField.Directory {
        switch directory {
        case .ifd0: return .ifd0
        case .ifd1: return .ifd1
        case .exif: return .exif
        case .gps: return .gps
        case .interoperability: return .interoperability
        }
    }

    private mutating func removeExif(_ tag: UInt16, from directory: ExifData.Directory, dropping field: ExifField, as label: String) {
        guard exif?.contains(tag, in: directory) == true else { return }
        exif?.remove(tag, from: directory)
        droppedExifFields.append(field)
        removed.append(label)
    }

    /// XMP and IPTC lose only their location properties; a block that cannot be parsed
    /// safely goes whole, since what it hides cannot be checked.
    private mutating func removeXMPLocation() {
        guard let packet = xmp else { return }
        do {
            guard let edited = try XMPPacket.removingLocation(from: packet) else { return }
            xmp = edited.bytes
            removed += edited.removed.map { "XMP \($0)" }
        } catch {
            xmp = nil
            removed.append("XMP (unreadable: \(error))")
        }
    }

    private mutating func removeIPTCLocation() {
        guard let block = iptc else { return }
        do {
            guard let edited = try IPTCBlock.removingLocation(from: block) else { return }
            iptc = edited.bytes
            removed += edited.removed
        } catch {
            iptc = nil
            removed.append("IPTC (unreadable: \(error))")
        }
    }

    /// The EXIF for an output of `image`'s size and orientation: the thumbnail in IFD1 shows
    /// the input's framing, so it goes.
    func exif(for image: VImage) -> ExifData? {
        guard var exif else { return nil }
        exif.setInteger(ExifTag.orientation, in: .ifd0, to: image.orientation)
        exif.setInteger(ExifTag.pixelXDimension, in: .exif, to: image.width)
        exif.setInteger(ExifTag.pixelYDimension, in: .exif, to: image.height)
        exif.removeThumbnail()
        exif.trimUnreferencedTail()
        return exif
    }
}
