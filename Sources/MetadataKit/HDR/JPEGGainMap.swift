import Foundation

/// Whose gain map a file carries: it decides how its metadata is read and whether the map's
/// values must be remapped (`apple`: see `AppleHDR.recoveryLUT`) before another format holds it.
public enum GainMapKind: String, Codable, Sendable {
    /// Google's Ultra HDR: `hdrgm` XMP on the map (v1.1 adds ISO 21496-1 beside it).
    case ultraHDR
    /// ISO 21496-1 metadata alone: a JPEG's APP2, an AVIF/HEIF `tmap` derived item.
    case iso21496
    /// Apple's auxiliary gain map (`urn:com:apple:photo:2020:aux:hdrgainmap`).
    case apple
    /// Samsung's auxiliary gain map in HEIF (`urn:com:samsung:photo:2024:aux:hdrgainmap`).
    case samsung
}

/// A JPEG's gain map: the MPF picture after the primary one that is a gain map, its bytes as
/// the file has them, and what it says about applying it.
public struct JPEGGainMap: Equatable, Sendable {
    /// The gain map image, a JPEG of its own.
    public let jpeg: [UInt8]
    public let kind: GainMapKind
    /// Nil only for an Apple map whose headroom is found nowhere, or is 1 (no HDR rendition).
    /// For `apple`, the metadata of `GainMapMetadata.apple(headroom:)`: exact once the map's
    /// values go through `AppleHDR.recoveryLUT(headroom: 2^hdrCapacityMax)`.
    public let metadata: GainMapMetadata?

    /// The gain map of the JPEG at `path`; nil when it has none.
    ///
    /// A map with both ISO 21496-1 metadata and `hdrgm` XMP (Ultra HDR v1.1) is read from the ISO
    /// metadata, as libultrahdr does: it is the newer, exact (rational) form, and the one the
    /// standard makes normative where the two disagree. Apple's headroom comes from the map's
    /// XMP, else from the primary image's MakerNote.
    ///
    /// - Throws: `MetadataFormatError` when the file is not a JPEG, or its gain map's metadata is
    ///   invalid (the reason named). `structure`: the file's, when the caller has read it already.
    public static func read(path: String, structure known: JPEGStructure? = nil) throws -> JPEGGainMap? {
        let structure = try known ?? JPEGStructure(path: path)
        guard structure.hasGainMap else { return nil }
        // Only the pictures after the primary are read: its own scan may be most of the file.
        let file = try RandomAccessFile(path: path)
        for picture in structure.pictures.dropFirst() where picture.offset > 0 && picture.size > 0 && picture.size <= file.size - picture.offset {
            let jpeg = try file.bytes(at: picture.offset, count: picture.size)
            let makerNote = { (try? JPEGMetadata.readMetadata(path: path))?.exif?.appleMakerNote }
            if let found = try identify(jpeg, primaryMakerNote: makerNote) { return found }
        }
        return nil
    }

    /// `jpeg` as a gain map, when its head says it is one.
    static func identify(_ jpeg: [UInt8], primaryMakerNote: () -> AppleMakerNote?) throws -> JPEGGainMap? {
        let xmp = JPEGStructure.xmpPacket(inHeadOf: jpeg)
        let hasHDRGM = xmp.map(HDRGainMapXMP.mentions) ?? false
        if let iso = JPEGStructure.payload(marker: 0xE2, signature: ISO21496.namespace, inHeadOf: jpeg), !ISO21496.isVersionOnly(iso) {
            return JPEGGainMap(jpeg: jpeg, kind: hasHDRGM ? .ultraHDR : .iso21496, metadata: try GainMapMetadata(iso21496: iso))
        }
        guard let xmp else { return nil }
        if hasHDRGM {
            return JPEGGainMap(jpeg: jpeg, kind: .ultraHDR, metadata: try GainMapMetadata(hdrgmXMP: xmp))
        }
        guard AppleHDR.isGainMapXMP(xmp) else { return nil }
        let headroom = AppleHDR.headroom(xmp: xmp, makerNote: nil) ?? AppleHDR.headroom(xmp: nil, makerNote: primaryMakerNote())
        return JPEGGainMap(jpeg: jpeg, kind: .apple, metadata: headroom.flatMap { try? GainMapMetadata.apple(headroom: $0).validated() })
    }
}

extension JPEGStructure {
    /// Whether a picture after the primary one is a gain map by its head alone (its XMP or its
    /// ISO 21496-1 APP2): cheap enough for a filter. Its metadata is not checked.
    public var hasGainMap: Bool { gainMapKind != nil }

    /// Whose gain map a picture after the primary one is, by its head alone, in the order
    /// `JPEGGainMap.read` tries them.
    public var gainMapKind: GainMapKind? {
        let hdrgm = auxiliaryXMP.contains(where: HDRGainMapXMP.mentions)
        if auxiliaryISO21496.contains(where: { !ISO21496.isVersionOnly($0) }) { return hdrgm ? .ultraHDR : .iso21496 }
        if hdrgm { return .ultraHDR }
        return auxiliaryXMP.contains(where: AppleHDR.isGainMapXMP) ? .apple : nil
    }
}
