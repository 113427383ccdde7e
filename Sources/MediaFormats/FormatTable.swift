/// Every format mediabatch knows, one row each: the one place a format is described. Adding a
/// format is a row here, its codec in VipsKit and its metadata container in MetadataKit.
///
/// Costs are measured peaks of extra resident memory: decoding by the file's image (streaming
/// in strips, by its sides; or the whole frame, per pixel), encoding per pixel of the output
/// (calibrated in docs/operations.md, "Memory budget and scheduling"; the figures in
/// bench/README.md, "Huge pictures" and "Figures behind the code's choices"). Default qualities: JPEG and WebP 80 are sharp's; AVIF's, HEIC's
/// and JPEG XL's give JPEG 80's SSIM on photos in fewer bytes. Efforts: WebP 4 is libwebp's,
/// cwebp's, sharp's and Pillow's; AVIF's takes a fraction of the time of libvips' default for
/// nearly its bytes; a higher JPEG XL one saves few bytes for much more time. BMP costs two
/// copies of the pixels: ImageMagick 6 (Q16) makes its own, then libvips'.
public enum FormatTable {
    public static let rows: [FormatRow] = [
        FormatRow(format: .jpeg, kind: .still, extensions: ["jpg", "jpeg", "jpe"], magic: .prefix([[0xFF, 0xD8, 0xFF]]),
                  decoder: .jpeg, encoder: .init(codec: .jpeg, quality: .init(range: 1...100, default: 80), effort: nil, bytesPerPixel: 0.5,
                                                 maxSide: 65500),
                  container: .jpeg, decodeCost: .streaming(overhead: 4_980_736, bytesPerShrunkColumn: 642, shrinksOnLoad: true), honoursExifOrientation: true,
                  help: "JPEG: lossy; EXIF and XMP in APP1, IPTC in APP13; HDR as Ultra HDR (a gain map in MPF)", carriesGainMap: true, mediaType: "image/jpeg"),
        FormatRow(format: .png, kind: .still, extensions: ["png"], magic: .prefix([[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]]),
                  decoder: .png, encoder: .init(codec: .png, quality: nil, effort: nil, bytesPerPixel: 0.5),
                  container: .png, decodeCost: .streaming(bytesPerSide: 3_900, shrinksOnLoad: false), honoursExifOrientation: true,
                  help: "PNG: lossless; EXIF in eXIf, XMP in iTXt, IPTC as a raw profile", mediaType: "image/png"),
        FormatRow(format: .gif, kind: .still, extensions: ["gif"], magic: .prefix([Array("GIF87a".utf8), Array("GIF89a".utf8)]),
                  decoder: .gif, encoder: .init(codec: .gif, quality: nil, effort: nil, bytesPerPixel: 4, maxSide: 65535),
                  container: nil, decodeCost: .wholeFrame(bytesPerPixel: 4), honoursExifOrientation: true,
                  help: "GIF: palette, lossless; no metadata", mediaType: "image/gif", animates: true),
        FormatRow(format: .webp, kind: .still, extensions: ["webp"], magic: .riff("WEBP"),
                  decoder: .webp, encoder: .init(codec: .webp, quality: .init(range: 1...100, default: 80),
                                                 effort: .init(range: 0...6, default: 4), bytesPerPixel: 7, maxSide: 16383),
                  container: .webp, decodeCost: .wholeFrame(bytesPerPixel: 4), honoursExifOrientation: true,
                  help: "WebP: lossy; EXIF and XMP chunks, no place for IPTC", mediaType: "image/webp", animates: true),
        // Camera RAW before TIFF: most are TIFFs (CR2 by its marker, the rest by what their directories hold).
        .cameraRaw(.cr2, ["cr2"], .tiffMarked(at: 8, Array("CR".utf8) + [2, 0]), container: .tiff, "Canon RAW 2"),
        .cameraRaw(.iiq, ["iiq"], .tiffMarked(at: 8, Array("IIII".utf8)), container: .tiff, "Phase One IIQ"),
        .cameraRaw(.dng, ["dng"], .tiffRaw(makes: [], dng: true), container: .tiff, "Adobe Digital Negative (DNG)"),
        .cameraRaw(.nef, ["nef", "nrw"], .tiffRaw(makes: ["NIKON"], dng: false), container: .tiff, "Nikon NEF/NRW"),
        .cameraRaw(.arw, ["arw", "sr2", "srf"], .tiffRaw(makes: ["SONY"], dng: false), container: .tiff, "Sony ARW/SR2"),
        .cameraRaw(.pef, ["pef"], .tiffRaw(makes: ["PENTAX", "RICOH", "ASAHI"], dng: false), container: .tiff, "Pentax PEF"),
        .cameraRaw(.srw, ["srw"], .tiffRaw(makes: ["SAMSUNG"], dng: false), container: .tiff, "Samsung SRW"),
        .cameraRaw(.threeFR, ["3fr", "fff"], .tiffRaw(makes: ["HASSELBLAD"], dng: false), container: .tiff, "Hasselblad 3FR"),
        .cameraRaw(.otherRaw, ["erf", "mef", "mos", "dcr", "kdc"], .tiffRaw(makes: [], dng: false), container: .tiff,
                   "another maker's TIFF-based RAW (Epson, Mamiya, Leaf, Kodak…)"),
        .cameraRaw(.orf, ["orf"], .prefix([Array("IIRO".utf8), Array("IIRS".utf8), Array("MMOR".utf8)]), container: nil, "Olympus ORF"),
        .cameraRaw(.rw2, ["rw2", "rwl"], .prefix([Array("IIU".utf8) + [0]]), container: nil, "Panasonic RW2"),
        .cameraRaw(.raf, ["raf"], .prefix([Array("FUJIFILMCCD-RAW ".utf8)]), container: nil, "Fujifilm RAF"),
        .cameraRaw(.crw, ["crw"], .prefix([[0x49, 0x49, 0x1A, 0, 0, 0] + Array("HEAPCCDR".utf8)]), container: nil, "Canon CRW"),
        .cameraRaw(.mrw, ["mrw"], .prefix([[0] + Array("MRM".utf8)]), container: nil, "Minolta MRW"),
        .cameraRaw(.x3f, ["x3f"], .prefix([Array("FOVb".utf8)]), container: nil, "Sigma X3F"),
        // ISO-BMFF: before the movies, which take any other brand.
        .cameraRaw(.cr3, ["cr3"], .majorBrand(prefix: "crx ", classicAtoms: false), container: .cr3, "Canon RAW 3 (CR3)"),
        FormatRow(format: .tiff, kind: .still, extensions: ["tif", "tiff"], magic: .prefix([[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A]]),
                  decoder: .tiff, encoder: .init(codec: .tiff, quality: nil, effort: nil, bytesPerPixel: 0.5),
                  container: .tiff, decodeCost: .streaming(bytesPerSide: 3_900, shrinksOnLoad: false), honoursExifOrientation: true,
                  help: "TIFF: lossless; EXIF in its directories, XMP in tag 700, IPTC in 33723 and 34377", mediaType: "image/tiff"),
        // Before HEIC: an AVIF lists the HEIF brand mif1 too.
        FormatRow(format: .avif, kind: .still, extensions: ["avif"], magic: .brands(["avif", "avis"]),
                  decoder: .heifAV1, encoder: .init(codec: .heifAV1, quality: .init(range: 1...100, default: 62),
                                                    effort: .init(range: 0...9, default: 2), bytesPerPixel: 25, maxSide: 16384),
                  container: .heif, decodeCost: .wholeFrame(bytesPerPixel: 7.5), honoursExifOrientation: false,
                  help: "AVIF: lossy (AV1 in HEIF); EXIF and XMP items, IPTC as an iptc item", mediaType: "image/avif"),
        FormatRow(format: .heic, kind: .still, extensions: ["heic", "heif", "hif"],
                  magic: .brands(["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]),
                  decoder: .heifHEVC, encoder: .init(codec: .heifHEVC, quality: .init(range: 1...100, default: 44), effort: nil, bytesPerPixel: 20,
                                                   maxSide: 16384),
                  container: .heif, decodeCost: .wholeFrame(bytesPerPixel: 7.5), honoursExifOrientation: false,
                  help: "HEIC: lossy (HEVC in HEIF); EXIF and XMP items, IPTC as an iptc item", mediaType: "image/heic"),
        FormatRow(format: .jxl, kind: .still, extensions: ["jxl"],
                  magic: .prefix([[0xFF, 0x0A], [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]]),
                  decoder: .jxl, encoder: .init(codec: .jxl, quality: .init(range: 1...100, default: 82),
                                                effort: .init(range: 1...9, default: 4), bytesPerPixel: 12),
                  container: .jxl, decodeCost: .wholeFrame(bytesPerPixel: 6), honoursExifOrientation: false,
                  help: "JPEG XL: lossy; EXIF and XMP in Exif and xml boxes, no place for IPTC", mediaType: "image/jxl"),
        FormatRow(format: .bmp, kind: .still, extensions: ["bmp", "dib"], magic: .bitmap,
                  decoder: .magick, encoder: nil, container: nil, decodeCost: .wholeFrame(bytesPerPixel: 15), honoursExifOrientation: true,
                  help: "BMP: read through ImageMagick; no metadata", mediaType: "image/bmp"),
        FormatRow(format: .psd, kind: .still, extensions: ["psd"], magic: .prefix([Array("8BPS".utf8) + [0, 1]]),
                  decoder: .magick, encoder: nil, container: nil, decodeCost: .wholeFrame(bytesPerPixel: 15), honoursExifOrientation: true,
                  help: "Photoshop document: its flattened composite, read through ImageMagick; its metadata is not read",
                  keepsUneditableMetadata: true),
        .movie(.mov, ["mov", "qt"], .majorBrand(prefix: "qt  ", classicAtoms: true), container: .quickTime, "QuickTime movie", mediaType: "video/quicktime"),
        // 3G2 and M4V before 3GP and MP4: a copy keeps its own name, and a `.3g2` is no `.3gp`.
        .movie(.threeG2, ["3g2"], .majorBrand(prefix: "3g2", classicAtoms: false), container: .quickTime, "3GPP2 movie", mediaType: "video/3gpp2"),
        .movie(.threeGP, ["3gp"], .majorBrand(prefix: "3g", classicAtoms: false), container: .quickTime, "3GPP movie", mediaType: "video/3gpp"),
        .movie(.m4v, ["m4v"], .majorBrand(prefix: "M4V", classicAtoms: false), container: .quickTime, "iTunes MPEG-4 video (M4V)", mediaType: "video/x-m4v"),
        // Last of ISO-BMFF: any other brand is an MP4.
        .movie(.mp4, ["mp4"], .anyBrand, container: .quickTime, "MPEG-4 movie", mediaType: "video/mp4"),
        .movie(.avi, ["avi"], .riff("AVI "), container: nil, "AVI (camera MJPEG clips); carries no location", mediaType: "video/x-msvideo"),
        .movie(.mts, ["mts", "m2ts", "m2t"], .transportStream, container: nil,
               "MPEG transport stream (AVCHD .MTS, .M2TS); GPS a camcorder writes in the video stream (MDPM) is not read", mediaType: "video/mp2t"),
        .movie(.mpg, ["mpg", "mpeg", "m2p", "mod", "vob", "m2v", "m1v"], .prefix([[0, 0, 1, 0xBA], [0, 0, 1, 0xB3]]), container: nil,
               "MPEG-1/2 program stream or elementary video; carries no location", mediaType: "video/mpeg"),
        .movie(.mkv, ["mkv"], .ebml(docType: "matroska"), container: .matroska, "Matroska video; location in its tags", mediaType: "video/x-matroska"),
        .movie(.webm, ["webm"], .ebml(docType: "webm"), container: .matroska, "WebM video; location in its tags", mediaType: "video/webm"),
        .movie(.wmv, ["wmv", "asf"], .prefix([[0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]]),
               container: nil, "Windows Media (ASF) video; carries no location", mediaType: "video/x-ms-wmv"),
    ]

    /// Formats read, in the order messages and the schema list them.
    public static let inputs: [MediaFormat] = [.jpeg, .png, .gif, .webp, .tiff, .heic, .avif, .jxl, .bmp, .psd,
                                                .dng, .cr2, .cr3, .nef, .arw, .pef, .srw, .orf, .rw2, .raf, .threeFR, .iiq, .crw, .mrw, .x3f, .otherRaw,
                                                .mov, .mp4, .m4v, .threeGP, .threeG2, .avi, .mts, .mpg, .mkv, .webm, .wmv]
    /// Formats `transcode.to` and `variants.formats` may name.
    public static let outputs: [MediaFormat] = [.jpeg, .png, .webp, .avif, .heic, .jxl]

    private static let index = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1.format, $0) })

    static func row(_ format: MediaFormat) -> FormatRow {
        rows[index[format]!]
    }

    /// Every input format's extensions: what a file's name promises.
    static let byExtension = Dictionary(uniqueKeysWithValues: inputs.flatMap { format in format.row.extensions.map { ($0, format) } })
}

extension FormatTable {
    /// "jpeg 80, webp 80, avif 62, heic 44, jxl 82": each output format's default for a setting,
    /// for the help texts of the keys that take it.
    public static func defaults(_ setting: KeyPath<FormatRow.Encoder, FormatRow.Setting?>) -> String {
        outputs.compactMap { format in format.row.encoder?[keyPath: setting].map { "\(format.rawValue) \($0.default)" } }
            .joined(separator: ", ")
    }

    /// "webp 0–6, avif 0–9, jxl 1–9": each output format's range for a setting.
    public static func ranges(_ setting: KeyPath<FormatRow.Encoder, FormatRow.Setting?>) -> String {
        outputs.compactMap { format in
            format.row.encoder?[keyPath: setting].map { "\(format.rawValue) \($0.range.lowerBound)–\($0.range.upperBound)" }
        }.joined(separator: ", ")
    }
}
