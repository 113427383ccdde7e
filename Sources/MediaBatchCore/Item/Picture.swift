import MediaFormats
import MetadataKit
import PipelineModel

/// A picture as the stages have shaped it, planned from the file's header before any pixel is
/// decoded: the file's primary image, turned upright, fitted to a box (cut or padded to it where the
/// fit says) and converted to sRGB as they asked.
/// Stages map pictures to pictures in whatever order a pipeline lists them, and each operation is
/// recorded only where it changes something (an upright image is not turned, an sRGB one not
/// converted), so a picture no stage changed is known before decoding: `write` then copies the
/// file's coded image instead of encoding it again. Otherwise `write` decodes the file once for
/// all of an item's pictures and renders each the same way whatever the stages' order — shrink
/// (on load where the format allows), turn upright, cut or pad, convert colour — as
/// `vips_thumbnail` does.
struct Picture: Codable, Hashable, Sendable {
    /// The file's primary image, as its header describes it.
    struct Source: Codable, Hashable, Sendable {
        /// As stored, before its orientation is applied.
        let stored: PixelSize
        /// EXIF's 1...8 (HEIF is decoded upright already: 1).
        let orientation: Int
        /// Converting to sRGB changes the pixels: CMYK, or a profile other than sRGB.
        let needsConversion: Bool
        /// Any ICC profile at all, sRGB's included.
        let hasProfile: Bool
        /// An HDR photo's gain map, as the header names it (`write` reads it, or leaves it out
        /// with the reason when it is one mediabatch does not read).
        var gainMap: GainMapKind? = nil
        /// What decodes it.
        var decoder = Decoder.libvips
        /// An animation's frames (GIF, WebP) and each one's delay in milliseconds; 1 and none for a still.
        var frames = 1
        var frameDelays: [Int] = []

        /// What makes the picture from the file (see `PictureRenderer.decodedSource`).
        enum Decoder: Codable, Hashable, Sendable {
            /// libvips, shrinking on load where the format allows.
            case libvips
            /// A HEIC's: libavcodec through mediabatch's own loader, or libheif through libvips, as
            /// its header decided.
            case heif(HEIFDecoding)
            /// A camera RAW's: LibRaw's develop or its embedded preview (set by `decode`).
            case raw(RawDecoding)
            /// A movie's frame at this time (set by `poster`).
            case movieFrame(PosterStage.Time)
        }

        /// A camera RAW's decoding, where it is one.
        var raw: RawDecoding? {
            if case .raw(let raw) = decoder { return raw }
            return nil
        }

        /// Decoded whole by its own decoder, not shrunk on load by libvips: it is resized from memory.
        var isDecodedWhole: Bool {
            switch decoder {
            case .raw, .heif(.libavcodec): return true
            case .libvips, .heif(.libheif), .movieFrame: return false
            }
        }

        /// As shown: orientations 5–8 turn the image a quarter.
        var upright: PixelSize { (5...8).contains(orientation) ? PixelSize(width: stored.height, height: stored.width) : stored }
    }

    let source: Source
    /// The pixels it will have: in the upright frame once turned, the stored one before.
    private(set) var size: PixelSize
    /// Where `cover` cuts it or `contain` pads it, from the whole image resized to `scaled`.
    private(set) var framing: Framing?
    /// The orientation has been applied (never set for an image stored upright).
    private(set) var isTurned = false
    /// Resized from the upright source (smaller, or stretched by `fill`).
    private(set) var isResized = false
    /// Converted to sRGB (never set where that changes nothing), or its profile dropped.
    private(set) var isConverted = false
    /// Encoded again even where no pixel changes: `transcode` asks for its format and quality.
    private(set) var isReencoded = false
    /// Its gain map goes with it, shaped as it is, where the output format carries one; `hdr:
    /// "drop"` leaves it out.
    private(set) var keepsGainMap: Bool
    /// The frames it keeps: the source's, or its first alone (`decode`'s `animated: false`, or
    /// an output format that does not animate). A copy keeps the file's, whatever this says.
    private(set) var frames: Int
    /// Operations of stages of their own (`PictureEffect`), applied in this order once it is
    /// resized, cut or padded and converted.
    private(set) var effects: [StageName] = []

    init(source: Source) {
        self.source = source
        size = source.stored
        keepsGainMap = source.gainMap != nil
        frames = source.frames
    }

    /// Its first frame alone.
    func firstFrameOnly() -> Picture {
        var first = self
        first.frames = 1
        return first
    }

    /// As `format` can hold it: every frame where it animates, the first elsewhere.
    func animated(as format: MediaFormat) -> Picture {
        format.row.animates ? self : firstFrameOnly()
    }

    /// No stage changed it: the file's own coded image is what `write` keeps.
    var isUntouched: Bool { !isTurned && !isResized && framing == nil && !isConverted && !isReencoded && effects.isEmpty }

    /// What the file is decoded and resized to: the whole upright image, before any framing.
    var scaled: PixelSize { framing?.scaled ?? size }

    /// `scaled` has the upright source's shape, to the pixel (every fit but `fill` keeps it): a
    /// smaller picture can be resized from it as well as from the file.
    var keepsAspectRatio: Bool {
        let upright = source.upright
        let across = Double(scaled.width) / Double(upright.width), down = Double(scaled.height) / Double(upright.height)
        return abs(across - down) * Double(min(scaled.width, scaled.height)) <= 1
    }

    /// The whole photo in its own shape: nothing cut, padded or stretched.
    var showsWholePhoto: Bool { keepsAspectRatio && size == scaled }

    /// Whether its pixels are upright (turned, or stored so).
    var isUpright: Bool { isTurned || source.orientation == 1 }

    func turnedUpright() -> Picture {
        guard !isUpright else { return self }
        var turned = self
        turned.isTurned = true
        turned.size = isResized ? size : source.upright
        return turned
    }

    /// Upright, fitted to `box` as `fit` says (see `FitGeometry`), never upscaled.
    func fitted(in box: Box, _ fit: Fit) -> Picture {
        var fitted = turnedUpright()
        let geometry = FitGeometry(upright: source.upright, box: box, fit: fit)
        fitted.size = geometry.size
        fitted.framing = geometry.framing
        fitted.isResized = geometry.scaled != source.upright
        return fitted
    }

    /// In sRGB: converted where its colour is other.
    func inSRGB() -> Picture {
        var converted = self
        converted.isConverted = isConverted || source.needsConversion
        return converted
    }

    /// In sRGB without any profile (a keep-list without `icc`): a file with a profile, even
    /// sRGB's, is encoded again without it.
    func withoutProfile() -> Picture {
        var converted = inSRGB()
        converted.isConverted = converted.isConverted || source.hasProfile
        return converted
    }

    /// As `hdr` asks: with its gain map, or SDR only.
    func keepingGainMap(_ hdr: HDR) -> Picture {
        var kept = self
        kept.keepsGainMap = keepsGainMap && hdr == .keep
        return kept
    }

    /// With `stage`'s own operation (see `PictureEffect`).
    func applying(_ stage: StageName) -> Picture {
        var applied = self
        applied.effects.append(stage)
        return applied
    }

    func reencoded() -> Picture {
        var encoded = self
        encoded.isReencoded = true
        return encoded
    }
}
