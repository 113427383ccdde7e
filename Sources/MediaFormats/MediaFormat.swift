// The names of what mediabatch reads and writes: each format, the codec libvips reads and writes it
// with, and the container that holds its metadata. What each is and does is in its `FormatTable` row.

/// A file format mediabatch knows: one row of `FormatTable` each, where everything about it is
/// said once. Decided from a file's bytes (`MediaFormat.sniffing(prefix:tiff:)`), never its name.
public enum MediaFormat: String, CaseIterable, Codable, Sendable {
    case jpeg, png, gif, webp, tiff, heic, avif, jxl, bmp, psd
    case dng, cr2, cr3, crw, nef, arw, pef, srw, orf, rw2, raf, iiq, mrw, x3f, threeFR = "3fr", otherRaw = "raw"
    case mov, mp4, m4v, threeGP = "3gp", threeG2 = "3g2", avi, mts, mpg, mkv, webm, wmv

    /// Everything about this format: `FormatTable`'s row for it.
    public var row: FormatRow { FormatTable.row(self) }

    /// Formats mediabatch reads (`input.formats`), in the order messages list them.
    public static var inputs: [MediaFormat] { FormatTable.inputs }
    /// Formats images can be written as (`transcode.to`, `variants.formats`).
    public static var outputs: [MediaFormat] { FormatTable.outputs }

    /// Decided by the container: HEIF and AVIF sequences are still images with frames.
    public var isVideo: Bool { row.kind == .movie }
    /// A camera's RAW still: its sensor data, which mediabatch does not develop.
    public var isCameraRaw: Bool { row.kind == .cameraRaw }

    /// What `{ext}` expands to for an output this format encodes.
    public var fileExtension: String { row.extensions[0] }

    /// The quality of a lossy encoder (nil: lossless, or not an encoder).
    public var quality: FormatRow.Setting? { row.encoder?.quality }
    /// The encoder's CPU effort, where it has one worth choosing.
    public var effort: FormatRow.Setting? { row.encoder?.effort }
    public var isLossy: Bool { quality != nil }
    public var carriesGainMap: Bool { row.carriesGainMap }
}

/// The image codecs mediabatch reaches through libvips, by what they are: VipsKit knows which
/// libvips loader and saver each is, and nothing outside it needs to.
public enum Codec: Sendable, CaseIterable {
    case jpeg, png, gif, webp, tiff
    /// libheif: HEVC-coded HEIF (HEIC)...
    case heifHEVC
    /// ...and AV1-coded HEIF (AVIF). One loader reads both.
    case heifAV1
    case jxl
    /// libvips' ImageMagick loader: BMP, and a PSD's flattened composite.
    case magick

    /// Whether its files can have an alpha channel: `contain` pads with transparency by default
    /// where they can.
    public var keepsAlpha: Bool { self != .jpeg }
}

/// Where a format keeps its metadata: MetadataKit has one container reader and writer for each.
public enum ContainerKind: Sendable, CaseIterable {
    /// APP1 EXIF and XMP, APP13 Photoshop resources with IPTC-IIM, and the parts after them (MPF
    /// images, trailers).
    case jpeg
    case png
    case webp
    case tiff
    /// ISO-BMFF items: HEIC and AVIF.
    case heif
    /// JPEG XL's ISO-BMFF boxes (`Exif`, `xml `) around its codestream.
    case jxl
    /// A Canon CR3: EXIF in the CMT boxes of Canon's `uuid` box, XMP in its own `uuid` box.
    case cr3
    /// MOV, MP4, 3GP: `moov` boxes, edited in place.
    case quickTime
    /// Matroska and WebM: `Tags` elements, edited in place.
    case matroska
}

extension ContainerKind {
    /// Where a file of this container keeps location, all of which `stripLocation` removes from a
    /// copy in place (the formats table in docs/formats.md says it per format).
    public var locationPlaces: String {
        switch self {
        case .jpeg: return "EXIF GPS, XMP, IPTC in every APP1/APP13 copy; MPF images and a motion photo's video too"
        case .png: return "EXIF GPS in eXIf, XMP in iTXt, IPTC in its raw profile"
        case .webp: return "EXIF GPS, XMP chunks"
        case .tiff: return "EXIF GPS directory, XMP (700), IPTC (33723, 34377), GeoTIFF keys"
        case .heif: return "EXIF GPS, XMP and IPTC items"
        case .jxl: return "EXIF GPS, XMP boxes"
        case .cr3: return "EXIF GPS directory (CMT4), XMP"
        case .quickTime: return "`©xyz`, 3GPP `loci`, Apple location keys, XMP"
        case .matroska: return "location tags (`LOCATION`, `RECORDING_LOCATION`…)"
        }
    }
}

