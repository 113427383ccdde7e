import Foundation
import MetadataKit
import PipelineModel
import VipsKit

/// The metadata an image output will carry: read from the input's header by `decode`, edited
/// by `stripMetadata`, written by `write`.
///
/// mediabatch edits EXIF itself (libexif, under every libvips save, drops the Apple MakerNote
/// that pairs Live Photos) and splices it into JPEG outputs. For other savers libvips writes
/// EXIF, and the libvips fields of removed tags are taken off the image instead.
struct ImageMetadata {
    var exif: ExifData?
    var xmp: [UInt8]?
    var iptc: [UInt8]?
    /// Prefixes of the libvips `exif-ifdN-*` fields whose tags were removed.
    private(set) var removedExifFields: [String] = []
    /// What was removed, for the report ("EXIF GPS", "XMP exif:GPSLatitude", …).
    private(set) var removed: [String] = []

    /// HEIF keeps XMP and IPTC as numbered `heif-mime-N` / `heif-iptc-N` items; libvips 8.14
    /// promotes neither, so they are picked up here (XMP by its root element).
    init(of image: VImage, path: String) {
        exif = image.blob("exif-data").flatMap(ExifData.init) ?? (image.loader == "tiffload" ? Self.tiffExif(path) : nil)
        let fields = image.fieldNames
        xmp = image.blob("xmp-data") ?? fields.lazy.filter { $0.hasPrefix("heif-mime-") }.compactMap(image.blob).first {
            String(decoding: $0.prefix(4096), as: UTF8.self).contains("<x:xmpmeta")
        }
        iptc = image.blob("iptc-data") ?? fields.first { $0.hasPrefix("heif-iptc-") }.flatMap(image.blob)
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

    /// libvips fields the output image must not carry: the metadata blocks `write` sets itself,
    /// and the EXIF fields of removed tags.
    static let blockFieldPrefixes = ["xmp-data", "iptc-data", "heif-mime-", "heif-iptc-"]

    mutating func remove(_ group: MetadataGroup) {
        switch group {
        case .location:
            removeExif(ExifTag.gpsPointer, from: .ifd0, vipsFields: "exif-ifd3-", as: "EXIF GPS")
            removeXMPLocation()
            removeIPTCLocation()
        case .serialNumbers:
            removeExif(ExifTag.bodySerialNumber, from: .exif, vipsFields: "exif-ifd2-BodySerialNumber", as: "EXIF BodySerialNumber")
            removeExif(ExifTag.lensSerialNumber, from: .exif, vipsFields: "exif-ifd2-LensSerialNumber", as: "EXIF LensSerialNumber")
            removeExif(ExifTag.cameraSerialNumber, from: .ifd0, vipsFields: "exif-ifd0-CameraSerialNumber", as: "EXIF CameraSerialNumber")
        case .cameraOwner:
            removeExif(ExifTag.ownerName, from: .exif, vipsFields: "exif-ifd2-CameraOwnerName", as: "EXIF CameraOwnerName")
        case .makerNotes:
            removeExif(ExifTag.makerNote, from: .exif, vipsFields: "exif-ifd2-MakerNote", as: "EXIF MakerNote")
        case .xmp:
            if xmp != nil { removed.append("XMP") }
            xmp = nil
        case .iptc:
            if iptc != nil { removed.append("IPTC") }
            iptc = nil
        }
    }

    private mutating func removeExif(_ tag: UInt16, from directory: ExifData.Directory, vipsFields: String, as label: String) {
        guard exif?.contains(tag, in: directory) == true else { return }
        exif?.remove(tag, from: directory)
        removedExifFields.append(vipsFields)
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
