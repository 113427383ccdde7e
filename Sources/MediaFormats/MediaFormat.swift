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
