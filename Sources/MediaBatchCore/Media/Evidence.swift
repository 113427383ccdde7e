/// URNs, namespaces and values the kinds are decided on (docs/pipeline.md, "Media kinds", cites
/// where each comes from).
enum Evidence {
    /// The prefixes of Google's and Apple's namespaces below.
    static let google = "http://ns.google.com/photos/"
    static let apple = "http://ns.apple.com/"
    static let googleCamera = "http://ns.google.com/photos/1.0/camera/"
    static let googlePanorama = "http://ns.google.com/photos/1.0/panorama/"
    static let googleDepthMap = "http://ns.google.com/photos/1.0/depthmap/"
    static let googleContainerItem = "http://ns.google.com/photos/1.0/container/item/"
    static let dynamicDepthMap = "http://ns.google.com/photos/dd/1.0/depthmap/"
    static let adobeGainMap = "http://ns.adobe.com/hdr-gain-map/1.0/"
    static let appleGainMap = "http://ns.apple.com/HDRGainMap/1.0/"
    static let applePixelDataInfo = "http://ns.apple.com/pixeldatainfo/1.0/"
    static let exif = "http://ns.adobe.com/exif/1.0/"

    static let depthAuxiliaryTypes: Set<String> = [
        "urn:mpeg:hevc:2015:auxid:2", "urn:mpeg:mpegB:cicp:systems:auxiliary:depth",
        "urn:com:apple:photo:2018:aux:portraiteffectsmatte", "disparity", "depth",
    ]
    static let gainMapAuxiliaryTypes: Set<String> = [
        "urn:com:apple:photo:2020:aux:hdrgainmap", "urn:com:samsung:photo:2024:aux:hdrgainmap",
    ]

    /// EXIF `CustomRendered` as Apple extends it.
    enum CustomRendered {
        static let hdr: Set<Int> = [2, 3] // 4 is the normal exposure kept beside an HDR one
        static let panorama = 6
        static let portrait: Set<Int> = [7, 8] // 9 is the original kept beside a portrait
    }

    /// MPF picture types (CIPA DC-007).
    enum MultiPicture {
        static let panoramaFrame: UInt32 = 0x020001
        static let stereo: Set<UInt32> = [0x020002, 0x020003] // disparity, multi-angle
    }

    static let appleHDRCapture = 3

    static let playbackIntentKey = "com.apple.quicktime.full-frame-rate-playback-intent"
    static let cinematicIntentKey = "com.apple.quicktime.cinematic-video-intent"
    static let cinematicTrackKeys = ["com.apple.quicktime.cinematic-video.rendering", "com.apple.quicktime.cinematic-video.cinematography"]
    static let captureModeKeys = ["com.apple.photos.captureMode", "com.apple.coremedia.captureMode"]
    static let authorKey = "com.apple.quicktime.author"
    static let replayKitAuthor = "ReplayKitRecording"
}
