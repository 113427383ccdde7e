import Foundation
import MediaFormats
import MetadataKit
import PipelineModel
import VipsKit

/// The metadata an image output will carry: read by `decode` from every place the input's
/// container keeps it (`MetadataContainer`), edited by `stripMetadata`, written by `write` into
/// the encoded file, whatever its format, after libvips has saved pixels and the ICC profile.
///
/// libvips' own metadata handling is not used for writing: libexif, under every libvips save,
/// drops MakerNotes (Apple's holds the Live Photo identifier), and savers pass XMP and IPTC
/// through unchecked, one copy of several. Here every block is parsed before it is carried.
struct ImageMetadata {
    private(set) var blocks: MetadataBlocks
    /// Whether the output keeps the ICC profile libvips carries (a keep-list without `icc` drops it).
    private(set) var keepsICC = true
    /// Whether the output keeps its orientation tag (a keep-list without `orientation` drops it).
    private(set) var keepsOrientation = true
    /// What the output will not carry, for the report: blocks that could not be read, then what
    /// `stripMetadata` removed ("EXIF GPS", "XMP exif:GPSLatitude", "EXIF: 38 of 41 tags").
    private(set) var removed: [String]

    var exif: ExifData? { blocks.exif }
    var xmp: [UInt8]? { blocks.xmp }
    var iptc: [UInt8]? { blocks.iptc }

    /// One copy's blocks, to edit as the item's own are edited.
    init(blocks: MetadataBlocks) {
        self.blocks = blocks
        removed = []
    }

    init(format: MediaFormat, path: String) {
        do {
            blocks = try format.row.container?.metadata.blocks?.readMetadata(path: path) ?? MetadataBlocks()
        } catch {
            blocks = MetadataBlocks(unreadable: ["metadata (\(error))"])
        }
        removed = blocks.unreadable.map { "\($0): unreadable, dropped" }
    }

    /// The photo's own caption, for a web page's alt text: XMP `dc:description` (its first
    /// language, the default one as writers order them), else IPTC Caption-Abstract (2:120).
    /// EXIF's ImageDescription is left out: cameras fill it with their own name.
    var caption: String? {
        let described = xmp.flatMap { try? XMPPacket.properties(in: $0) }?
            .first { $0.namespace == "http://purl.org/dc/elements/1.1/" && $0.name == "description" }?.values.first
        let captions = [described, iptc.flatMap { try? IPTCBlock.text(ofDataset: 2, 120, in: $0) }]
        return captions.compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty }
    }

    /// Where location metadata sits: "EXIF", "XMP", "IPTC". Blocks are parsed already.
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
            removeExif(ExifTag.gpsPointer, from: .ifd0, as: "EXIF GPS")
            for (tag, name) in ExifTag.geoTIFF.sorted(by: { $0.key < $1.key }) { removeExif(tag, from: .ifd0, as: "GeoTIFF \(name)") }
            removeLocationFromIFD0Blocks()
            removeLocationFromNikonCapture()
            edit(\.xmp, "XMP", XMPPacket.removingLocation) { "XMP \($0)" }
            edit(\.iptc, "IPTC", IPTCBlock.removingLocation) { $0 }
        case .serialNumbers:
            removeExif(ExifTag.bodySerialNumber, from: .exif, as: "EXIF BodySerialNumber")
            removeExif(ExifTag.lensSerialNumber, from: .exif, as: "EXIF LensSerialNumber")
            removeExif(ExifTag.cameraSerialNumber, from: .ifd0, as: "EXIF CameraSerialNumber")
        case .cameraOwner:
            removeExif(ExifTag.ownerName, from: .exif, as: "EXIF CameraOwnerName")
        case .makerNotes:
            removeExif(ExifTag.makerNote, from: .exif, as: "EXIF MakerNote")
        case .xmp:
            if blocks.xmp != nil { removed.append("XMP") }
            blocks.xmp = nil
        case .iptc:
            if blocks.iptc != nil || blocks.photoshop != nil { removed.append("IPTC") }
            (blocks.iptc, blocks.photoshop) = (nil, nil)
        }
    }

    /// For an output written without the input's gain map: its XMP no longer points at one.
    mutating func removeGainMapReferences() {
        guard let xmp = blocks.xmp, let edited = try? UltraHDR.removingGainMapReferences(fromXMP: xmp) else { return }
        blocks.xmp = edited
    }

    /// What `stripMetadata` stages planned, in order.
    mutating func apply(_ edits: [MetadataEdit]) {
        for edit in edits {
            switch edit {
            case .remove(let groups): for group in MetadataGroup.allCases where groups.contains(group) { remove(group) }
            case .keep(let kept): keepOnly(kept)
            }
        }
    }

    /// Everything but what `kept` names goes, location always (`MetadataSelection` says what
    /// each name keeps of each block).
    mutating func keepOnly(_ kept: Set<KeptMetadata>) {
        remove(.location)
        let selection = kept.map(Self.selection).reduce(MetadataSelection()) { $0.union($1) }
        do {
            let result = try blocks.keeping(selection)
            blocks = result.blocks
            removed += result.removed
        } catch {
            blocks = MetadataBlocks() // blocks were parsed when read: this is a second line
            removed.append("metadata (unreadable: \(error))")
        }
        keepsICC = kept.contains(.icc)
        keepsOrientation = kept.contains(.orientation)
    }

    private static func selection(_ name: KeptMetadata) -> MetadataSelection {
        switch name {
        case .copyright: .copyright
        case .icc: MetadataSelection()
        case .orientation: .orientation
        case .camera: .camera
        case .date: .date
        case .livePhoto: .livePhoto
        case .xmp: .xmp
        case .iptc: .iptc
        }
    }

    /// Blocks that readers find in EXIF's IFD0 wherever the EXIF is (exiftool: `IPTC2`, `XMP-…`).
    /// IPTC-IIM (`IPTC-NAA`, copied there by news agencies' tools, and the `AFCP_IPTC` copy)
    /// loses its location where it lies, zero-padded to its length (IIM readers stop at the
    /// padding). XMP and Photoshop resources, which only a TIFF's own IFD0 should hold (a TIFF's
    /// are read as its blocks and edited as such), go whole when they place the photo.
    private mutating func removeLocationFromIFD0Blocks() {
        for (tag, name) in [(ExifTag.iptc, "EXIF IPTC-NAA"), (ExifTag.afcpIPTC, "EXIF AFCP_IPTC")] {
            guard let iim = blocks.exif?.bytes(tag, in: .ifd0).map(Array.init) else { continue }
            do {
                guard let edited = try IPTCBlock.removingLocationInPlace(from: iim) else { continue }
                blocks.exif?.overwrite(tag, in: .ifd0, with: edited.bytes)
                removed += edited.removed.map { "\(name) \($0)" }
            } catch {
                removeExif(tag, from: .ifd0, as: "\(name) (unreadable)")
            }
        }
        for (tag, name, edit) in [(ExifTag.xmp, "EXIF XMP (tag 700)", XMPPacket.removingLocation),
                                  (ExifTag.photoshop, "EXIF Photoshop resources (tag 34377)", IPTCBlock.removingLocation)] {
            guard let value = blocks.exif?.bytes(tag, in: .ifd0).map(Array.init) else { continue }
            let places: Bool
            do { places = try edit(value) != nil } catch { places = true } // what it hides cannot be checked
            if places { removeExif(tag, from: .ifd0, as: "\(name): it places the photo") }
        }
    }

    /// Nikon Capture NX's edit record in a Nikon maker note keeps an IPTC copy of its own: edited
    /// where it lies, at its length, so the note (carried byte for byte) keeps every offset.
    private mutating func removeLocationFromNikonCapture() {
        guard let note = blocks.exif?.bytes(ExifTag.makerNote, in: .exif).map(Array.init),
              let edited = NikonCaptureData.removingLocation(fromMakerNote: note) else { return }
        blocks.exif?.overwrite(ExifTag.makerNote, in: .exif, with: edited.bytes)
        removed += edited.removed.map { "Nikon Capture \($0)" }
    }

    private mutating func removeExif(_ tag: UInt16, from directory: ExifData.Directory, as label: String) {
        guard blocks.exif?.contains(tag, in: directory) == true else { return }
        blocks.exif?.remove(tag, from: directory)
        removed.append(label)
    }

    /// XMP and IPTC lose only what `edit` takes; a block it cannot parse goes whole, since what
    /// it hides cannot be checked (blocks are checked when read, so this is a second line).
    private mutating func edit(_ block: WritableKeyPath<MetadataBlocks, [UInt8]?>, _ kind: String,
                               _ edit: ([UInt8]) throws -> MetadataRemoval?, naming: (String) -> String) {
        guard let bytes = blocks[keyPath: block] else { return }
        do {
            guard let edited = try edit(bytes) else { return }
            blocks[keyPath: block] = edited.bytes
            removed += edited.removed.map(naming)
        } catch {
            blocks[keyPath: block] = nil
            removed.append("\(kind) (unreadable: \(error))")
        }
    }

    /// The blocks for an output of `image`'s size and orientation: the EXIF thumbnail in IFD1
    /// shows the input's framing, so it goes.
    func blocks(for image: VImage) -> MetadataBlocks {
        var output = blocks
        guard var exif = output.exif else { return output }
        exif.setInteger(ExifTag.orientation, in: .ifd0, to: image.orientation)
        exif.setInteger(ExifTag.pixelXDimension, in: .exif, to: image.width)
        exif.setInteger(ExifTag.pixelYDimension, in: .exif, to: image.height)
        exif.removeThumbnail()
        exif.trimUnreferencedTail()
        output.exif = exif
        return output
    }
}
