/// Every default of the pipeline format, in one place.
public enum Defaults {
    public static let supportedVersion = 1
    public static let include = ["**/*"]
    public static let exclude = ["**/.*"]
    /// Every format mediabatch reads.
    public static let formats = Set(MediaFormat.allCases)
    public static let extensionMismatch = Pipeline.ExtensionMismatch.fail
    public static let followSymlinks = false
    public static let trusted = false
    public static let memoryBudget = ByteSize(bytes: 1 << 30)
    /// sharp's default: 16383 × 16383.
    public static let maxPixels = 268_402_689
    /// Beyond a long 4K iPhone video.
    public static let maxFileBytes = ByteSize(bytes: 4 << 30)
    /// Generous for animations; a 10 000-frame GIF is a bomb, not a photo.
    public static let maxFrames = 1000
    /// A 48 MP HEIC takes under 2 s here; a 2 GB movie copy under a minute.
    public static let timeoutSeconds = 120
    public static let onError = Pipeline.OnError.continue
    /// The quality of each lossy output format, for `transcode` and `variants` alike. JPEG and
    /// WebP 80 are sharp's defaults; AVIF 62 and HEIC 44 were chosen to match JPEG 80's SSIM on
    /// 1280 px photos (luma SSIM 0.967 for JPEG; 0.969 for AVIF at 64% of JPEG's bytes, 0.970 for
    /// HEIC at 59%; 10 photos, see bench/README.md).
    public static let quality: [OutputFormat: Int] = [.jpeg: 80, .webp: 80, .avif: 62, .heic: 44]
    /// An image written in its own format (no `transcode`, no `variants`) is re-encoded at this
    /// quality, whatever the format: keeping the format keeps the quality high.
    public static let keptFormatQuality = 80
    /// The encoders' effort, for `transcode` and `variants` alike. AVIF (libaom, libvips 0–9, 4 by
    /// default): 2 gave 61% of JPEG's bytes at equal SSIM in 0.19 s per 1280 px photo, 4 gave 58%
    /// in 1.0 s, 0 gave 74% in 0.04 s. WebP (libwebp's method 0–6): 4, libwebp's, cwebp's, sharp's
    /// and Pillow's default, so outputs match what those write; at 1280 px effort 2 was 2.3× as
    /// fast for 2.4% more bytes (39 ms, 157 KiB against 89 ms, 153 KiB), a choice left to pipelines.
    public static let effort: [OutputFormat: Int] = [.webp: 4, .avif: 2]
    public static let writePath = "{dir}/{stem}.{ext}"
    /// `variants.placeholder`: none unless asked for.
    public static let placeholder: Stage.Placeholder? = nil
    /// A Live Photo stays a pair unless the pipeline says otherwise.
    public static let livePhotoVideo = Stage.LivePhotoVideo.keepWithStill
}
