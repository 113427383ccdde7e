/// What an item is, modelled on PHPickerFilter and PHAssetMediaSubtype. Every kind is decided
/// from the file's own header and metadata (never its name, never its pixels); an item can be
/// several at once (a Live Photo is also an image, a portrait is also an HDR photo).
/// docs/pipeline.md, "Media kinds", lists the evidence each kind reads.
public enum MediaKind: String, CaseIterable, Codable, Sendable {
    case images
    case videos
    /// Both halves of a still + movie pair sharing a content identifier.
    case livePhotos
    case screenshots
    case screenRecordings
    case panoramas
    case bursts
    /// Portrait mode: a depth or disparity map travels with the image.
    case depthEffectPhotos
    /// A gain map, HDR headroom, or Apple's HDR capture marker.
    case hdrPhotos
    /// High-frame-rate capture.
    case sloMoVideos
    case timelapseVideos
    case cinematicVideos
    /// Stereo stills and MV-HEVC spatial video.
    case spatialMedia
    /// More than one frame: animated GIF/WebP, HEIF/AVIF sequences.
    case animatedImages
    /// Samsung/Google still with an embedded video.
    case motionPhotos
    /// A camera's RAW (DNG, CR2, CR3, NEF, ARW…), by its content: a TIFF image is none.
    case rawPhotos
}
