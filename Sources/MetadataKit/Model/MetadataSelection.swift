/// What a keep-list keeps of each block: EXIF tags by directory, XMP properties, IIM datasets,
/// or whole blocks. The named selections are what `stripMetadata`'s `keep` names mean, block by
/// block; ICC profiles are libvips' business and not here.
public struct MetadataSelection: Sendable {
    public var exifTags: Set<ExifTagID> = []
    /// Apple's MakerNote, which holds the Live Photo content identifier; other MakerNotes never.
    public var appleMakerNote = false
    public var xmpProperties: Set<XMPPacket.PropertyName> = []
    public var wholeXMP = false
    /// IIM datasets by record << 8 | number.
    public var iptcDatasets: Set<UInt16> = []
    /// The whole IIM block and the other Photoshop image resources with it.
    public var wholeIPTC = false

    public init() {}

    public func union(_ other: MetadataSelection) -> MetadataSelection {
        var union = self
        union.exifTags.formUnion(other.exifTags)
        union.appleMakerNote = appleMakerNote || other.appleMakerNote
        union.xmpProperties.formUnion(other.xmpProperties)
        union.wholeXMP = wholeXMP || other.wholeXMP
        union.iptcDatasets.formUnion(other.iptcDatasets)
        union.wholeIPTC = wholeIPTC || other.wholeIPTC
        return union
    }

    static let dc = "http://purl.org/dc/elements/1.1/", xmpRights = "http://ns.adobe.com/xap/1.0/rights/"
    static let xmpBasic = "http://ns.adobe.com/xap/1.0/", exif = "http://ns.adobe.com/exif/1.0/"
    static let tiff = "http://ns.adobe.com/tiff/1.0/", aux = "http://ns.adobe.com/exif/1.0/aux/"
    static let exifEX = "http://cipa.jp/exif/1.0/", photoshop = "http://ns.adobe.com/photoshop/1.0/"

    /// EXIF Copyright and Artist, XMP dc:rights, dc:creator and the xmpRights licence terms, IIM
    /// CopyrightNotice and By-line.
    public static let copyright = MetadataSelection(
        exif: [(.ifd0, ExifTag.copyright), (.ifd0, ExifTag.artist)],
        xmp: [(dc, "rights"), (dc, "creator"), (xmpRights, "UsageTerms"), (xmpRights, "WebStatement"), (xmpRights, "Marked")],
        iptc: [0x0274, 0x0250])

    /// When it was taken: EXIF dates with their offsets and subseconds, XMP's creation dates, IIM's.
    public static let date = MetadataSelection(
        exif: [(.ifd0, ExifTag.dateTime), (.exif, ExifTag.dateTimeOriginal), (.exif, 0x9004), (.exif, 0x9010),
               (.exif, ExifTag.offsetTimeOriginal), (.exif, 0x9012), (.exif, 0x9290), (.exif, 0x9291), (.exif, 0x9292)],
        xmp: [(xmpBasic, "CreateDate"), (photoshop, "DateCreated"), (exif, "DateTimeOriginal"), (exif, "DateTimeDigitized")],
        iptc: [0x0237, 0x023C, 0x023E, 0x023F])

    /// The camera and lens, and the settings a photo page shows (exposure, aperture, ISO, focal
    /// length, flash); never serial numbers or the owner.
    public static let camera = MetadataSelection(
        exif: [(.ifd0, ExifTag.make), (.ifd0, ExifTag.model)] + [
            ExifTag.exposureTime, ExifTag.fNumber, 0x8822, ExifTag.isoSpeed, 0x9201, 0x9202, 0x9204, 0x9205, 0x9207, 0x9209,
            ExifTag.focalLength, 0xA402, 0xA403, ExifTag.focalLengthIn35mm, 0xA406, 0xA432, 0xA433, ExifTag.lensModel,
        ].map { (.exif, $0) },
        xmp: [(tiff, "Make"), (tiff, "Model"), (aux, "Lens"), (exifEX, "LensMake"), (exifEX, "LensModel")],
        iptc: [])

    public static let orientation = MetadataSelection(exif: [(.ifd0, ExifTag.orientation)], xmp: [(tiff, "Orientation")], iptc: [])

    public static let livePhoto: MetadataSelection = {
        var selection = MetadataSelection()
        selection.appleMakerNote = true
        return selection
    }()

    public static let xmp: MetadataSelection = {
        var selection = MetadataSelection()
        selection.wholeXMP = true
        return selection
    }()

    public static let iptc: MetadataSelection = {
        var selection = MetadataSelection()
        selection.wholeIPTC = true
        return selection
    }()

    init(exif: [(ExifData.Directory, UInt16)], xmp: [(String, String)], iptc: Set<UInt16>) {
        exifTags = Set(exif.map { ExifTagID($0.0, $0.1) })
        xmpProperties = Set(xmp.map { XMPPacket.PropertyName($0.0, $0.1) })
        iptcDatasets = iptc
    }
}

/// An EXIF tag in its directory (`0x0112` is Orientation in IFD0, something else elsewhere).
public struct ExifTagID: Hashable, Sendable {
    public let directory: ExifData.Directory
    public let tag: UInt16

    public init(_ directory: ExifData.Directory, _ tag: UInt16) {
        self.directory = directory
        self.tag = tag
    }
}

extension MetadataBlocks {
    /// Only what `selection` names, each block compacted and dropped when nothing of it is kept;
    /// what went, block by block, for the report ("EXIF: 38 of 41 tags", "XMP: 23 properties").
    ///
    /// - Throws: `MetadataFormatError` when XMP or IIM cannot be parsed (blocks a container read can).
    public func keeping(_ selection: MetadataSelection) throws -> (blocks: MetadataBlocks, removed: [String]) {
        var kept = MetadataBlocks(unreadable: unreadable), removed: [String] = []
        if let exif {
            let keepsMakerNote = selection.appleMakerNote && exif.appleMakerNote != nil
            kept.exif = exif.compacted { directory, tag in
                selection.exifTags.contains(ExifTagID(directory, tag)) || keepsMakerNote && directory == .exif && tag == ExifTag.makerNote
            }
            let before = exif.tags.count, after = kept.exif?.tags.count ?? 0
            if after < before { removed.append("EXIF: \(before - after) of \(before) tags") }
        }
        if let xmp {
            kept.xmp = xmp
            if !selection.wholeXMP, let removal = try XMPPacket.keepingOnly(selection.xmpProperties, from: xmp) {
                kept.xmp = try XMPPacket.properties(in: removal.bytes).isEmpty ? nil : removal.bytes
                removed.append("XMP: \(removal.removed.count) properties")
            }
        }
        if selection.wholeIPTC {
            (kept.iptc, kept.photoshop) = (iptc, photoshop)
        } else {
            kept.iptc = iptc
            if let iptc, let removal = try IPTCBlock.keepingOnly(selection.iptcDatasets, from: iptc) {
                kept.iptc = removal.bytes.isEmpty ? nil : removal.bytes
                removed.append("IPTC: \(removal.removed.count) datasets")
            }
            if photoshop != nil { removed.append("Photoshop resources") }
        }
        return (kept, removed)
    }
}
