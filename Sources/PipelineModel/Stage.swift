import MediaFormats

/// One step of a pipeline with its typed options.
public enum Stage: Equatable, Sendable {
    case filter(Filter)
    case decode(Decode)
    /// Gives a video item a picture: one of its frames, for the image stages after it.
    case poster(Poster)
    /// Gives a video item web renditions: one per codec, re-encoded (or remuxed where it already fits).
    case video(Video)
    /// Fits each picture to a box.
    case downsample(Downsample)
    case transcode(Transcode)
    /// One decode, many outputs: every size in every format.
    case variants(Variants)
    /// Removes metadata: the named groups, or all but what a keep-list names.
    case stripMetadata(StripMetadata)
    case write(Write)

    public struct Filter: Equatable, Sendable {
        public var match: MediaMatch
        /// What happens to a Live Photo's movie that `match` does not select when its still is selected.
        public var livePhotoVideo: LivePhotoVideo

        public init(match: MediaMatch, livePhotoVideo: LivePhotoVideo = Defaults.livePhotoVideo) {
            self.match = match
            self.livePhotoVideo = livePhotoVideo
        }
    }

    public enum LivePhotoVideo: String, CaseIterable, Sendable {
        /// The movie goes along, written next to its still's output under the same stem.
        case keepWithStill
        /// Only the still goes; the movie is filtered out.
        case drop
    }

    /// A camera RAW's picture: LibRaw's develop of the sensor data, or the JPEG preview the camera embedded.
    public enum RawSource: String, CaseIterable, Codable, Sendable {
        /// The preview where it is as large as every later stage needs, else a develop.
        case auto
        case develop
        /// The preview, even smaller than asked (the report says by how much).
        case preview
    }

    public struct Poster: Equatable, Sendable {
        public var at: PosterTime
        public var movie: PosterMovie

        public init(at: PosterTime = Defaults.posterTime, movie: PosterMovie = Defaults.posterMovie) {
            self.at = at
            self.movie = movie
        }
    }

    /// Whether a movie with a poster is written too.
    public enum PosterMovie: String, CaseIterable, Codable, Sendable {
        /// Its own output stays: the movie copied (location stripped as the pipeline says), or the
        /// `video` stage's renditions.
        case keep
        /// The poster alone: a gallery's thumbnails, the movies served from where they are.
        case drop
    }

    /// Which frame of a movie is its poster.
    public enum PosterTime: Codable, Equatable, Hashable, Sendable {
        /// The most representative keyframe of the first third (never black, faded or blurred);
        /// a movie under 2 s, its sharpest frame.
        case auto
        /// Seconds from the start (past the end: the last frame).
        case seconds(Double)
        /// Percent of the duration, 0–100.
        case percent(Double)
    }

    /// What `video` makes of each movie: one rendition per codec, all of the same size and rate.
    public struct Video: Equatable, Sendable {
        /// One per codec, in the order listed.
        public var renditions: [Rendition]
        /// The longest side's maximum; nil: the source's size. Never upscaled.
        public var maxPixelSize: Int?
        /// Frames per second at most: a faster movie drops frames to this rate.
        public var maxFps: Int
        public var reencode: Reencode

        public init(renditions: [Rendition], maxPixelSize: Int? = nil, maxFps: Int = Defaults.maxFps,
                    reencode: Reencode = Defaults.reencode) {
            self.renditions = renditions
            self.maxPixelSize = maxPixelSize
            self.maxFps = maxFps
            self.reencode = reencode
        }
    }

    /// One web rendition of a movie.
    public struct Rendition: Codable, Equatable, Hashable, Sendable {
        public var codec: VideoCodec
        /// The encoder's constant rate factor (lower is better and larger).
        public var quality: Int
        public var audio: VideoAudio
        public var hdr: VideoHDR

        public init(codec: VideoCodec, quality: Int? = nil, audio: VideoAudio? = nil, hdr: VideoHDR? = nil) {
            self.codec = codec
            self.quality = quality ?? Defaults.videoQuality(codec)
            self.audio = audio ?? Defaults.videoAudio(codec)
            self.hdr = hdr ?? Defaults.videoHDR(codec)
        }
    }

    /// The sound of a rendition.
    public enum VideoAudio: String, CaseIterable, Codable, Sendable {
        case aac, opus
        /// The source's audio packets as they are (where the container can hold them).
        case copy
        case none
    }

    /// A movie has no gain map to drop: its HDR is tone-mapped or kept.
    public enum VideoHDR: String, CaseIterable, Codable, Sendable {
        /// PQ and HLG to SDR BT.709.
        case tonemap
        /// 10-bit, the source's transfer and primaries signalled (HEVC, AV1).
        case keep
    }

    public enum Reencode: String, CaseIterable, Codable, Sendable {
        /// Streams that already fit (codec, size, rate, pixel format, upright) are copied, not re-encoded.
        case needed
        case always
    }

    public struct Decode: Equatable, Sendable {
        /// An animation (GIF, WebP) keeps every frame, its delays and loop count where the output
        /// format animates; false: its first frame alone.
        public var animated: Bool
        /// Where a camera RAW's picture comes from.
        public var raw: RawSource

        public init(animated: Bool = Defaults.animated, raw: RawSource = Defaults.rawSource) {
            self.animated = animated
            self.raw = raw
        }
    }

    public struct Downsample: Equatable, Sendable {
        /// `maxPixelSize` N is the box N × N.
        public var box: Box
        public var fit = Fit()

        public init(box: Box, fit: Fit = Fit()) {
            self.box = box
            self.fit = fit
        }
    }

    public struct Transcode: Equatable, Sendable {
        /// Formats this stage applies to; nil means every image.
        public var from: Set<MediaFormat>?
        /// One of `MediaFormat.outputs`.
        public var to: MediaFormat
        public var quality: Int
        /// The encoder's effort, for a format that has one (`MediaFormat.effort`).
        public var effort: Int?
        /// What becomes of a gain map (an HDR photo's): kept where the output format carries one.
        public var hdr: HDR = Defaults.hdr

        public func applies(to format: MediaFormat) -> Bool {
            !format.isVideo && from?.contains(format) ?? true
        }
    }

    public struct Variants: Equatable, Sendable {
        /// Each variant's box, as listed; never upscaled.
        public var sizes: [VariantSize]
        /// Each one of `MediaFormat.outputs`.
        public var formats: [MediaFormat]
        /// The quality of each lossy format among `formats`.
        public var quality: [MediaFormat: Int]
        /// The effort of each format among `formats` that has one.
        public var effort: [MediaFormat: Int]
        public var placeholder: Placeholder?
        /// What becomes of a gain map, in every variant.
        public var hdr: HDR = Defaults.hdr
        /// How every size is fitted to its box.
        public var fit = Fit()
    }

    /// An HDR photo's gain map in the outputs of `transcode` and `variants`.
    public enum HDR: String, CaseIterable, Codable, Sendable {
        /// Written where the output format carries one (JPEG, as Ultra HDR), resized with the picture.
        case keep
        /// SDR only: smaller files.
        case drop
    }

    /// A tiny preview of each item for the manifest, shown blurred while the real image loads.
    public enum Placeholder: String, CaseIterable, Codable, Sendable {
        case thumbhash
    }

    public enum StripMetadata: Codable, Equatable, Sendable {
        /// Removes the named groups; what is not named stays. `stripLocation` is `[.location]`.
        case remove(Set<MetadataGroup>)
        /// Keeps only what is named; everything else goes, location always.
        case keep(Set<KeptMetadata>)
    }

    public struct Write: Equatable, Sendable {
        public var path: PathTemplate
        /// Where a movie's poster goes (with a `poster` stage).
        public var posterPath: PathTemplate
    }

    /// Stage kinds, in the order a pipeline lists them.
    public enum Name: String, CaseIterable, Codable, Sendable {
        case filter, decode, poster, video, downsample, transcode, variants, stripMetadata, write
    }

    /// How pipeline files spell stages: each kind by its name, plus presets (see `StageSyntax`).
    public static var spellings: [(String, Name)] { StageSyntax.all.map { ($0.spelling, $0.name) } }

    public var name: Name {
        switch self {
        case .filter: return .filter
        case .decode: return .decode
        case .poster: return .poster
        case .video: return .video
        case .downsample: return .downsample
        case .transcode: return .transcode
        case .variants: return .variants
        case .stripMetadata: return .stripMetadata
        case .write: return .write
        }
    }
}

extension Stage.Variants {
    /// What the stage makes, in words, for `mediabatch validate`.
    public var explanation: String {
        let formats = self.formats.map { format in
            [format.rawValue] + [quality[format].map { "q\($0)" }, effort[format].map { "effort \($0)" }].compactMap { $0 }
        }.map { $0.joined(separator: " ") }
        let boxes = sizes.map(\.text).joined(separator: ", ")
        let numbers = sizes.allSatisfy { if case .longestSide = $0 { true } else { false } }
        let fitted = fit == Fit() && numbers ? " px on the longest side" : " px, \(fit.explanation)"
        var text = "\(sizes.count) sizes × \(self.formats.count) formats = up to \(sizes.count * self.formats.count) outputs an image: "
            + boxes + fitted + " (never upscaled: sizes that would give an image the same output collapse into one, under the "
            + "smallest of them), each as " + formats.joined(separator: ", ") + "; one decode an image, sRGB, upright"
        if let placeholder { text += "; placeholder \(placeholder.rawValue)" }
        return text + "; " + hdr.explanation(formats: self.formats)
    }
}

extension Stage.Poster {
    /// What the stage makes, in words, for `mediabatch validate`.
    public var explanation: String {
        let frame: String
        switch at {
        case .auto: frame = "the most representative keyframe of the first third (a movie under 2 s: its sharpest frame)"
        case .seconds(let seconds): frame = "the frame at \(seconds) s (past the end: the last)"
        case .percent(let percent): frame = "the frame at \(percent)% of the duration"
        }
        let own = movie == .drop ? "; the movie itself is not written" : ""
        return "each movie's \(frame), upright, HDR tone-mapped to sRGB, through the image stages after it\(own)"
    }
}

extension Stage.Video {
    /// What the stage makes, in words, for `mediabatch validate`.
    public var explanation: String {
        let renditions = renditions.map { rendition in
            "\(rendition.codec.rawValue) in \(rendition.codec.container.rawValue) (CRF \(rendition.quality), audio \(rendition.audio.rawValue), HDR "
                + (rendition.hdr == .keep ? "kept as 10-bit" : "tone-mapped to SDR BT.709") + ")"
        }
        let size = maxPixelSize.map { "at most \($0) px on the longest side (never upscaled)" } ?? "at the movie's own size"
        let copy = reencode == .needed ? "streams that already fit are copied" : "every stream re-encoded"
        return "each movie as " + renditions.joined(separator: ", ") + ", \(size), at most \(maxFps) fps, upright, +faststart, "
            + "location removed, date, camera and Live Photo identifier kept; \(copy)"
    }
}

extension Stage.Decode {
    /// What the stage keeps of an animation and where a camera RAW's picture comes from, in
    /// words, for `mediabatch validate`.
    public var explanation: String {
        let animation = animated ? "animated GIF and WebP keep every frame, delay and loop count in GIF and WebP; other formats get the first frame"
            : "animations: the first frame only"
        let camera = switch raw {
        case .auto: "camera RAW: its embedded preview where it is as large as the later stages need, else developed by LibRaw"
        case .develop: "camera RAW: developed by LibRaw (half-size where the later stages need at most half)"
        case .preview: "camera RAW: its embedded preview, even where it is smaller than the later stages need"
        }
        return animation + "; " + camera
    }
}

extension Stage.Downsample {
    /// What the stage makes, in words, for `mediabatch validate`.
    public var explanation: String {
        let box = [box.width.map { "width \($0)" }, box.height.map { "height \($0)" }].compactMap { $0 }.joined(separator: " × ")
        return "\(box) px, \(fit.explanation); never upscaled, upright"
    }
}

extension Fit {
    /// The fit in words: `cover at attention`, `contain on white`.
    var explanation: String {
        switch mode {
        case .inside: return "inside: aspect ratio kept"
        case .outside: return "outside: aspect ratio kept, covering the box"
        case .fill: return "fill: stretched to the box"
        case .cover:
            switch position {
            case .gravity(let gravity): return "cover: cut to the box at \(gravity.rawValue)"
            case .interesting(let interest): return "cover: cut to the box where libvips' smartcrop finds \(interest.rawValue)"
            case .focus(let x, let y): return "cover: cut to the box around the focus \(x), \(y)"
            }
        case .contain:
            let on = background.map { "rgba \($0.red), \($0.green), \($0.blue), \($0.alpha)" } ?? "white, or transparent where the format has alpha"
            return "contain: padded to the box with \(on)"
        }
    }
}

extension Stage.Transcode {
    /// What the stage makes, in words, for `mediabatch validate`.
    public var explanation: String {
        let from = self.from.map { $0.map(\.rawValue).sorted().joined(separator: ", ") } ?? "every image"
        let effort = self.effort.map { " effort \($0)" } ?? ""
        return "\(from) → \(to.rawValue) q\(quality)\(effort), sRGB; " + hdr.explanation(formats: [to])
    }
}

extension Stage.HDR {
    /// What becomes of an HDR photo's gain map in `formats`.
    func explanation(formats: [MediaFormat]) -> String {
        let carrying = formats.filter(\.carriesGainMap).map(\.rawValue)
        switch self {
        case .drop: return "gain maps dropped (SDR only)"
        case .keep where carrying.isEmpty: return "gain maps dropped: \(formats.map(\.rawValue).joined(separator: ", ")) carries none"
        case .keep: return "gain maps kept in \(carrying.joined(separator: ", ")) (Ultra HDR), resized with the picture"
        }
    }
}
