import MediaFormats
import PipelineModel

/// What an item will become, decided from its header before any pixel is decoded. Each stage
/// adds its part in pipeline order (`decode` the picture and the cost of decoding it, `downsample`
/// a smaller picture, `transcode` the format, `variants` every size and format, `stripMetadata`
/// its edits, `write` the paths); the run claims the planned paths and reserves the estimate
/// before admitting the item, and `write` makes exactly what was planned.
struct ItemPlan: Codable, Equatable, Sendable {
    /// Peak memory the item's pixel phase is expected to need.
    var estimatedBytes: Int
    /// What the item is written as: one output unless `variants` plans several.
    var outputs: [PlannedOutput]
    /// An image's size as it is shown (orientation applied), from its header.
    var upright: PixelSize?
    /// What `stripMetadata` asked, in pipeline order: applied to every copy of every block of
    /// every output (a movie's: its location).
    var metadataEdits: [MetadataEdit] = []
    /// Set by `variants`: a preview of the item for the manifest, made from its smallest variant.
    var placeholder: VariantsStage.Placeholder?
    /// Set by `video`: how much longer than `limits.timeout` the item may take, for encoding its renditions.
    var encodingSeconds = 0
    /// Set by `write` from the header phase's reading, for the report: when the item was captured, and
    /// the sidecars that could not be read, by path, with why (the pixel phase reads no header of a copy).
    var captured: MediaFacts.Capture?
    var sidecarsLeftBehind: [String: String] = [:]

    /// Before any stage has said otherwise: the item as it is, copied byte for byte.
    init(format: MediaFormat) {
        estimatedBytes = CostEstimator.copyBytes
        outputs = [PlannedOutput(format: format, quality: Defaults.keptFormatQuality, effort: format.effort?.default)]
    }

    /// Where `write` will publish the outputs, relative to the output root.
    var paths: [String] { outputs.compactMap(\.path) }

    /// Every output's picture through `transform` (outputs without one, movies', stay as they are).
    mutating func mapPictures(_ transform: (Picture) -> Picture) {
        mapOutputs { $0.mapPicture(transform) }
    }

    mutating func mapOutputs(_ transform: (inout PlannedOutput) -> Void) {
        for index in outputs.indices { transform(&outputs[index]) }
    }
}

struct PlannedOutput: Codable, Equatable, Sendable {
    var format: MediaFormat
    /// For the lossy encoders (JPEG, WebP, HEIF, AVIF, JPEG XL).
    var quality: Int
    /// For the encoders with an effort worth choosing (WebP, AVIF, JPEG XL).
    var effort: Int?
    /// What the file holds.
    var content: Content
    /// Relative to the output root; nil until `write` places it (without a `write`, no output).
    var path: String?
    /// Set by `variants`: the size as listed and the exact pixels the output will have.
    var variant: Variant?
    /// Set by the header phase when an earlier run wrote this very output from the same recipe
    /// and it is still as written: `write` leaves it alone.
    var reused = false
    /// Set by `write` when the picture's gain map was to go in and could not be read.
    var gainMapLeftOut = false

    /// What an output is made of: exactly one of these.
    enum Content: Codable, Equatable, Sendable {
        /// The input's own bytes, its metadata edited: an image no `decode` opened, or a movie
        /// (with what a `<video>` element needs of it, once `decode` has read its header).
        case original(movie: MovieFacts?)
        /// The input's primary picture as the stages shaped it (an image's; set by `decode`).
        case picture(Picture)
        /// A movie's frame as the stages shaped it (set by `poster`): goes to `write.posterPath`.
        case poster(Picture)
        /// A web rendition of the movie, encoded (or remuxed) by `write` (set by `video`).
        case rendition(VideoRendition, movie: MovieFacts)
        /// A file beside the input that travels with an output (set by `write`): its bytes, location
        /// removed when the outputs' is; `stamp` is its size and time when planned, for the state database.
        case sidecar(Sidecar, stamp: String)
    }

    init(format: MediaFormat, quality: Int, effort: Int?, content: Content = .original(movie: nil), variant: Variant? = nil) {
        self.format = format
        self.quality = quality
        self.effort = effort
        self.content = content
        self.variant = variant
    }

    struct Variant: Codable, Hashable, Sendable {
        let size: VariantSize
        let pixels: PixelSize
    }

    /// The picture it encodes: an image's, or a movie's poster frame; nil for the others.
    var picture: Picture? {
        switch content {
        case .picture(let picture), .poster(let picture): return picture
        case .original, .rendition, .sidecar: return nil
        }
    }

    /// Its picture through `transform`, as picture or poster as it was (the others stay).
    mutating func mapPicture(_ transform: (Picture) -> Picture) {
        switch content {
        case .picture(let picture): content = .picture(transform(picture))
        case .poster(let picture): content = .poster(transform(picture))
        case .original, .rendition, .sidecar: break
        }
    }

    /// A movie output's size, length and codec: the movie's own, or a rendition's.
    var movie: MovieFacts? {
        get {
            switch content {
            case .original(let movie): return movie
            case .rendition(_, let movie): return movie
            case .picture, .poster, .sidecar: return nil
            }
        }
        set {
            switch content {
            case .original: content = .original(movie: newValue)
            case .rendition(let rendition, _): if let newValue { content = .rendition(rendition, movie: newValue) }
            case .picture, .poster, .sidecar: break
            }
        }
    }

    var rendition: VideoRendition? {
        if case .rendition(let rendition, _) = content { return rendition }
        return nil
    }

    var sidecar: (Sidecar, stamp: String)? {
        if case .sidecar(let sidecar, let stamp) = content { return (sidecar, stamp) }
        return nil
    }

    /// What the state database and the report call its format: a sidecar's kind, else the format's name.
    var formatName: String { sidecar?.0.match.kind.rawValue ?? format.rawValue }

    /// The frame a poster is, for its spec and its path.
    var posterTime: PosterStage.Time? {
        guard case .poster(let picture) = content, case .movieFrame(let time) = picture.source.decoder else { return nil }
        return time
    }

    /// Whether `write` copies the input's coded bytes (their metadata edited) rather than
    /// encoding pixels: a movie, an image no stage decoded, or one whose picture no stage changed
    /// in its own format.
    func isCopy(of format: MediaFormat) -> Bool {
        switch content {
        case .original: return true
        case .rendition, .sidecar: return false
        case .picture(let picture), .poster(let picture): return picture.isUntouched && self.format == format
        }
    }

    /// What the output is to a video item (its poster, or the movie itself) or to any item (a
    /// sidecar); nil for a still's picture.
    var role: OutputRole? {
        switch content {
        case .poster: return .poster
        case .sidecar: return .sidecar
        case .original, .rendition: return format.isVideo ? .video : nil
        case .picture: return nil
        }
    }

    /// The picture's gain map goes in (an HDR photo, in a format that carries one).
    var plansGainMap: Bool { picture?.keepsGainMap == true && format.carriesGainMap }

    /// An animation's frames as its file holds them (a copy keeps the input's) and their length in
    /// seconds, the delays summed; nil for a single frame.
    var animation: (frames: Int, duration: Double)? {
        guard let picture else { return nil }
        let frames = picture.isUntouched ? picture.source.frames : picture.frames
        guard frames > 1 else { return nil }
        return (frames, Double(picture.source.frameDelays.prefix(frames).reduce(0, +)) / 1000)
    }

    /// An animation written as its first frame alone: why, for the report; nil otherwise.
    var firstFrameOnly: String? {
        guard let frames = picture?.source.frames, frames > 1, animation == nil else { return nil }
        return format.row.animates ? "decode's animated is false" : "\(format.rawValue) does not animate"
    }

    /// The output carries its picture's gain map, as written.
    var carriesGainMap: Bool { plansGainMap && !gainMapLeftOut }

    /// What shapes this output beyond what every output of the item shares, for the state
    /// database: an output is reused only when this and the shared recipe are unchanged.
    var spec: String {
        // A rendition is made by the video stage alone: its settings are all of its recipe but the input.
        if let rendition { return "\(format.rawValue) rendition \(rendition.fingerprint)" }
        if let (sidecar, stamp) = sidecar { return "sidecar \(sidecar.relativePath) \(stamp)" }
        let variantPart = variant.map { " size \($0.size.text) \($0.pixels.width)x\($0.pixels.height)" } ?? ""
        let copyPart = picture?.isUntouched == false ? "" : " copy"
        let gainMapPart = plansGainMap ? " gain map" : ""
        let framingPart = picture?.framing.map { " " + $0.spec(alpha: format.row.encoder?.codec.keepsAlpha == true) } ?? ""
        // A poster's picture is made by stages that leave the movie's own output alone: its size is its own.
        let posterPart = posterTime.map { " poster \($0.fingerprint) \(picture?.size.width ?? 0)x\(picture?.size.height ?? 0)" } ?? ""
        return "\(format.rawValue) q\(quality)\(effort.map { " effort \($0)" } ?? "")\(variantPart)\(copyPart)\(gainMapPart)\(framingPart)\(posterPart)"
    }
}

extension PlannedOutput {
    private enum CodingKeys: String, CodingKey { case format, quality, effort, content, path, variant, reused, gainMapLeftOut }

    // Every output crosses the worker pipes three times an item (verdict, pixel job, outcome), so
    // its JSON holds what is set: a flag when true, a quality when there is one (a sidecar's is 0).
    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(MediaFormat.self, forKey: .format)
        quality = try container.decodeIfPresent(Int.self, forKey: .quality) ?? 0
        effort = try container.decodeIfPresent(Int.self, forKey: .effort)
        content = try container.decode(Content.self, forKey: .content)
        path = try container.decodeIfPresent(String.self, forKey: .path)
        variant = try container.decodeIfPresent(Variant.self, forKey: .variant)
        reused = try container.decodeIfPresent(Bool.self, forKey: .reused) ?? false
        gainMapLeftOut = try container.decodeIfPresent(Bool.self, forKey: .gainMapLeftOut) ?? false
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        if quality != 0 { try container.encode(quality, forKey: .quality) }
        try container.encodeIfPresent(effort, forKey: .effort)
        try container.encode(content, forKey: .content)
        try container.encodeIfPresent(path, forKey: .path)
        try container.encodeIfPresent(variant, forKey: .variant)
        if reused { try container.encode(reused, forKey: .reused) }
        if gainMapLeftOut { try container.encode(gainMapLeftOut, forKey: .gainMapLeftOut) }
    }
}

/// One web rendition of a movie, as `video` planned it.
struct VideoRendition: Codable, Equatable, Sendable {
    let rendition: VideoStage.Rendition
    let maxPixelSize: Int?
    let maxFps: Int
    let reencode: VideoStage.Reencode

    var fingerprint: String {
        "\(rendition.fingerprint),maxPixelSize=\(maxPixelSize.map(String.init) ?? "*"),maxFps=\(maxFps),reencode=\(reencode.rawValue)"
    }
}

/// A movie output's size as shown, length and video codec, from its input's header (a copy's are its input's).
struct MovieFacts: Codable, Equatable, Sendable {
    let size: PixelSize
    let seconds: Double?
    /// libavcodec's name: "h264", "hevc"…
    let codec: String?
    /// A rendition's RFC 6381 `codecs` parameter (`avc1.64001F`), set by `write` once it is made.
    var codecs: String?
}

/// What an output is to a video item, in reports and the manifest (a site build's `<video poster=…>`).
public enum OutputRole: String, Codable, Sendable {
    case poster, video
    /// An XMP, AAE or Takeout JSON beside an output (`input.sidecars`).
    case sidecar
}

struct PixelSize: Codable, Equatable, Hashable, Sendable {
    let width: Int
    let height: Int

    var longestSide: Int { max(width, height) }

    /// Scaled so that the longest side is `longestSide`, each side at least 1 pixel.
    func fitting(longestSide target: Int) -> PixelSize {
        let scale = Double(target) / Double(longestSide)
        func side(_ value: Int) -> Int { value == longestSide ? target : max(1, Int((Double(value) * scale).rounded())) }
        return PixelSize(width: side(width), height: side(height))
    }
}
