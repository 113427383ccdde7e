/// Everything mediabatch knows about one format: how its files start, what they are named, how
/// libvips or libavformat reads and writes them, where they keep metadata, what decoding and
/// encoding them costs, and how `mediabatch` describes it. `FormatTable` has one per format.
public struct FormatRow: Sendable {
    public enum Kind: Sendable {
        /// A still image, or an image sequence kept in an image container (GIF, WebP, HEIF).
        case still
        /// A camera's sensor data (DNG, CR2, NEF…): a still, never decoded as its thumbnail.
        case cameraRaw
        case movie
    }

    /// A setting of an encoder: the values a pipeline may give, and the one it gets by default.
    public struct Setting: Sendable, Equatable {
        public let range: ClosedRange<Int>
        public let `default`: Int
    }

    public struct Encoder: Sendable {
        public let codec: Codec
        /// nil for a lossless encoder.
        public let quality: Setting?
        /// nil where the encoder has no effort worth choosing.
        public let effort: Setting?
        /// Peak memory of the encoder, per pixel of the image it encodes (see `CostEstimator`).
        public let bytesPerPixel: Double
        /// The longest side it writes: a larger picture fails `tooLargeForFormat` rather than be
        /// refused by the encoder unnamed, or written broken (libheif 1.15 writes a HEIC or an AVIF
        /// over 16384 pixels a side that it cannot read back). Formats without a smaller limit of
        /// their own take libvips'.
        public var maxSide = libvipsMaxSide
        /// libvips' largest coordinate (`VIPS_MAX_COORD`).
        public static let libvipsMaxSide = 10_000_000
    }

    /// What decoding an image of this format costs in memory, per pixel of the file's image.
    public enum DecodeCost: Sendable, Equatable {
        /// libvips reads it a few lines at a time; `shrinksOnLoad`: its decoder can make a
        /// smaller image directly (libjpeg's 1/2, 1/4, 1/8 scales). It costs its decoder's `overhead`,
        /// `bytesPerSide` of the side of a square of as many pixels as it decodes, and
        /// `bytesPerShrunkColumn` of each column it decodes for each time the resize after the load
        /// shrinks it: the lines libvips' shrink and reduce keep grow with the picture's sides, not its
        /// area (measured from 12 MP to 1 Gpx: bench/README.md, "Huge pictures").
        case streaming(overhead: Int = 0, bytesPerSide: Double = 0, bytesPerShrunkColumn: Double = 0, shrinksOnLoad: Bool)
        /// The decoder makes the whole frame before libvips sees a line.
        case wholeFrame(bytesPerPixel: Double)
        /// A camera RAW developed by LibRaw: its raw buffer, a byte count per pixel of the
        /// sensor, and the image it develops (its working copy and the 8-bit output), per pixel of
        /// the developed image, a quarter of it at half size. A preview costs what its JPEG does.
        case rawDevelop(rawBytesPerPixel: Double, imageBytesPerPixel: Double)
        /// Not decoded: movies are copied or edited in place.
        case none
    }

    public let format: MediaFormat
    public let kind: Kind
    /// Names files of this format carry; the first is what `{ext}` writes.
    public let extensions: [String]
    public let magic: Magic
    /// How its pixels are read; nil for a format mediabatch does not decode.
    public let decoder: Codec?
    /// How its pixels are written; nil for a format mediabatch does not encode.
    public let encoder: Encoder?
    /// Where it keeps EXIF, XMP and IPTC; nil where mediabatch reads and writes none.
    public let container: ContainerKind?
    public let decodeCost: DecodeCost
    /// Whether readers turn its pixels as an EXIF Orientation says: HEIF, AVIF and JPEG XL carry
    /// their own transforms, and take EXIF's as information only, so pictures go in upright.
    public let honoursExifOrientation: Bool
    /// One line for `mediabatch` to say what it is.
    public let help: String
    /// Whether its outputs carry an HDR photo's gain map (JPEG: as Ultra HDR, the SDR picture
    /// with the gain map in MPF). libheif 1.15 and 1.23 write no gain map in HEIF or AVIF.
    public var carriesGainMap = false
    /// Whether its files keep metadata mediabatch has no editor for (a PSD's image resources, a
    /// RAF's or an ORF's EXIF): a copy that must lose some fails instead.
    public var keepsUneditableMetadata = false
    /// Its IANA media type, for a web page's `type` attributes; nil where browsers have none.
    public var mediaType: String?
    /// Whether libvips reads and writes its animations (frames, delays, loop count): GIF and WebP.
    /// Debian 12's libheif 1.15 has no image sequences, and libvips' HEIF pages are a file's
    /// top-level images, not a sequence's frames.
    public var animates = false
}

extension FormatRow {
    /// A camera's RAW: developed by LibRaw, or its embedded preview read; `container` edits its
    /// metadata in place when it is copied. LibRaw holds the raw data (16 bits a pixel) and a
    /// 4 × 16-bit working image, then makes the 8-bit RGB output (3 bytes), which libvips copies:
    /// calibrated on a DNG in docs/operations.md, "Memory budget and scheduling".
    static func cameraRaw(_ format: MediaFormat, _ extensions: [String], _ magic: Magic, container: ContainerKind?, _ help: String) -> FormatRow {
        FormatRow(format: format, kind: .cameraRaw, extensions: extensions, magic: magic, decoder: nil, encoder: nil, container: container,
                  decodeCost: .rawDevelop(rawBytesPerPixel: 2, imageBytesPerPixel: 11), honoursExifOrientation: true,
                  help: "\(help): camera RAW",
                  keepsUneditableMetadata: container == nil)
    }

    /// A movie: probed by libavformat, copied, its location removed in place by `container`.
    static func movie(_ format: MediaFormat, _ extensions: [String], _ magic: Magic, container: ContainerKind?, _ help: String,
                      mediaType: String) -> FormatRow {
        FormatRow(format: format, kind: .movie, extensions: extensions, magic: magic, decoder: nil, encoder: nil, container: container,
                  decodeCost: .none, honoursExifOrientation: true, help: help, mediaType: mediaType)
    }
}

