import MediaFormats

/// The pipeline format's defaults but those of one stage's options, which its own keys give
/// (each format's own encoder settings are in its `FormatTable` row).
public enum Defaults {
    public static let supportedVersion = 1
    public static let include = ["**/*"]
    public static let exclude = ["**/.*"]
    /// Every format mediabatch reads.
    public static let formats = Set(MediaFormat.inputs)
    public static let extensionMismatch = Pipeline.ExtensionMismatch.fail
    public static let followSymlinks = false
    public static let trusted = false
    /// The camera's JPEG is what its owner saw on the camera's screen.
    public static let rawJpegPairs = Pipeline.RawJpegPairs.jpeg
    /// Every file processed, as without duplicate detection.
    public static let duplicates = Pipeline.Duplicates.all
    /// A library's edits, ratings and keywords go where its photos go.
    public static let sidecars = Pipeline.Sidecars.copy
    public static let memoryBudget = ByteSize(bytes: 1 << 30)
    /// sharp's default: 16383 × 16383, for a decoder that makes the whole frame.
    public static let maxPixels = 268_402_689
    /// 32768 × 32768, where the decoder streams (JPEG, PNG, TIFF): a gigapixel scan or stitched
    /// panorama, shrunk in strips within the budget.
    public static let maxStreamedPixels = 1 << 30
    /// Under the default limits, a picture over `maxPixels` from a file with more pixels a byte
    /// than this is a decompression bomb, refused unread: deflate packs at most 1032 bytes in one,
    /// JPEG about 85 pixels, so only a 1- or 2-bit picture of nothing comes near.
    public static let bombPixelsPerByte = 1024
    /// Beyond a long 4K iPhone video.
    public static let maxFileBytes = ByteSize(bytes: 4 << 30)
    /// Generous for animations; a 10 000-frame GIF is a bomb, not a photo.
    public static let maxFrames = 1000
    /// Far more than the largest photo or a long movie's copy takes (bench/README.md, "Figures
    /// behind the code's choices"): only a stuck item reaches it.
    public static let timeoutSeconds = 120
    public static let onError = Pipeline.OnError.continue
    /// An image written in its own format (no `transcode`, no `variants`) whose pixels a stage
    /// changed is re-encoded at this quality, whatever the format: keeping the format keeps the
    /// quality high. (Each output format's own default quality and effort are in `FormatTable`.)
    public static let keptFormatQuality = 80
    /// `limits.maxVideoDuration`: longer than any phone's clip, shorter than a day's recording.
    public static let maxVideoDurationSeconds = 3 * 3600
    /// `limits.maxVideoFrames`: three hours at 60 fps.
    public static let maxVideoFrames = 648_000
    /// An HDR photo stays HDR wherever its output format can say so.
    public static let hdr = HDR.keep
    /// Within the box, as `maxPixelSize` fits.
    public static let fit = Fit.Mode.inside
    /// `cover` keeps the middle, as sharp and libvips do.
    public static let position = Fit.Position.gravity(.centre)
}
