import MediaFormats

/// Every default of the pipeline format, in one place.
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
    /// An image written in its own format (no `transcode`, no `variants`) whose pixels a stage
    /// changed is re-encoded at this quality, whatever the format: keeping the format keeps the
    /// quality high. (Each output format's own default quality and effort are in `FormatTable`.)
    public static let keptFormatQuality = 80
    public static let writePath = "{dir}/{stem}.{ext}"
    /// Beside the movie's own output.
    public static let posterPath = "{dir}/{stem}.poster.{ext}"
    /// Immich's and ffmpegthumbnailer's idea: a frame that shows what the movie is.
    public static let posterTime = Stage.PosterTime.auto
    /// A poster beside its movie, as before posters had a choice.
    public static let posterMovie = Stage.PosterMovie.keep
    /// `video.codec`: what every browser plays.
    public static let videoCodecs: [VideoCodec] = [.h264]
    /// `video.maxFps`: a phone's slow-motion 120 or 240 fps is more than a web page shows.
    public static let maxFps = 60
    /// `video.reencode`: Immich's "required" policy, streams that fit are copied.
    public static let reencode = Stage.Reencode.needed
    /// `video.quality`: each encoder's CRF where it gives about the same quality (FFmpeg's and
    /// SVT-AV1's guides), by codec.
    public static func videoQuality(_ codec: VideoCodec) -> Int {
        switch codec {
        case .h264: return 23
        case .hevc: return 28
        case .av1: return 35
        case .vp9: return 33
        }
    }
    /// `video.audio`: AAC in MP4, Opus in WebM (which holds no AAC).
    public static func videoAudio(_ codec: VideoCodec) -> Stage.VideoAudio { codec.audioCodecs[0] }
    /// `video.hdr`: kept where the codec can say so (10-bit HEVC, AV1), tone-mapped to SDR otherwise.
    public static func videoHDR(_ codec: VideoCodec) -> Stage.VideoHDR { codec.keepsHDR ? .keep : .tonemap }
    /// `limits.maxVideoDuration`: longer than any phone's clip, shorter than a day's recording.
    public static let maxVideoDurationSeconds = 3 * 3600
    /// `limits.maxVideoFrames`: three hours at 60 fps.
    public static let maxVideoFrames = 648_000
    /// `variants.placeholder`: none unless asked for.
    public static let placeholder: Stage.Placeholder? = nil
    /// A Live Photo stays a pair unless the pipeline says otherwise.
    public static let livePhotoVideo = Stage.LivePhotoVideo.keepWithStill
    /// An HDR photo stays HDR wherever its output format can say so.
    public static let hdr = Stage.HDR.keep
    /// A camera RAW's preview where it is large enough: a develop costs far more.
    public static let rawSource = Stage.RawSource.auto
    /// Animations stay animations, as sharp's `animated: true` and eleventy-img keep them.
    public static let animated = true
    /// Within the box, as `maxPixelSize` always fitted.
    public static let fit = Fit.Mode.inside
    /// `cover` keeps the middle, as sharp and libvips do.
    public static let position = Fit.Position.gravity(.centre)
}
