import MediaFormats

/// How a pipeline file writes one stage: the `"stage"` spelling, its options, and the `Stage`
/// they make. The decoder finds stages here and the schema has one `oneOf` branch per entry, so
/// a new stage (or a new spelling of one, like `stripLocation`) is one entry in `all`.
struct StageSyntax {
    let spelling: String
    let name: Stage.Name
    let help: String
    let options: [DescribedKey]
    /// Options of which exactly one must be given.
    var exclusive: [String] = []
    /// What else the schema says of the options together.
    var rules: [String: JSONValue] = [:]
    let make: (ObjectReader) throws -> Stage

    /// Every spelling, in the order messages list them.
    static let all: [StageSyntax] = [filter, decode, poster, video, downsample, transcode, variants, stripMetadata, write, stripLocation]

    /// Every key of this stage's object, `"stage"` included.
    var keys: [DescribedKey] {
        [DescribedKey(name: "stage", required: true, schema: ["const": .string(spelling), "description": .string(help)])] + options
    }

    var schema: JSONValue {
        guard !exclusive.isEmpty else { return objectSchema(keys, extra: rules) }
        return objectSchema(keys, extra: rules.merging(["oneOf": .array(exclusive.map { ["required": [.string($0)]] })]) { _, new in new })
    }

    /// "Each stage at most once", for the stage list's schema: one rule per stage kind.
    static var atMostOnce: [JSONValue] {
        Stage.Name.allCases.map { name in
            let spellings = all.filter { $0.name == name }.map { JSONValue.string($0.spelling) }
            return ["contains": ["type": "object", "required": ["stage"], "properties": ["stage": ["enum": .array(spellings)]]],
                    "minContains": 0, "maxContains": 1]
        }
    }
}

extension StageSyntax {
    static let filter = StageSyntax(
        spelling: "filter", name: .filter,
        help: "Keeps the items that match; the others are skipped, not failed. Reads headers only; comes before decode.",
        options: [FilterKeys.match.described, FilterKeys.livePhotoVideo.described]) { object in
            .filter(.init(match: try object.value(FilterKeys.match), livePhotoVideo: try object.value(FilterKeys.livePhotoVideo)))
        }

    static let decode = StageSyntax(
        spelling: "decode", name: .decode,
        help: "Opens each item header-first (libvips for images, LibRaw for camera RAW, libavformat for videos); stages that shape pictures need it before them.",
        options: [DecodeKeys.animated.described, DecodeKeys.raw.described]) { object in
            .decode(.init(animated: try object.value(DecodeKeys.animated), raw: try object.value(DecodeKeys.raw)))
        }

    static let poster = StageSyntax(
        spelling: "poster", name: .poster,
        help: "Gives each video a picture, one of its frames (upright, HDR tone-mapped to sRGB), for the image stages after it; "
            + "written at write.posterPath. Images pass through. After decode, before the stages that shape pictures.",
        options: [PosterKeys.at.described, PosterKeys.movie.described]) { object in
            .poster(.init(at: try object.value(PosterKeys.at), movie: try object.value(PosterKeys.movie)))
        }

    static let video = StageSyntax(
        spelling: "video", name: .video,
        help: "Gives each video web renditions, one per codec (MP4, or WebM for vp9), upright, at most maxPixelSize and maxFps, "
            + "+faststart, location removed; streams that already fit are copied (reencode needed). Images pass through. After decode.",
        options: [VideoKeys.codec.described, VideoKeys.maxPixelSize.described, VideoKeys.quality.described, VideoKeys.maxFps.described,
                  VideoKeys.audio.described, VideoKeys.reencode.described, VideoKeys.hdr.described]) { object in
            let codecs = try object.value(VideoKeys.codec)
            let quality = try object.videoQuality(for: codecs)
            let audio = try object.optionalValue(VideoKeys.audio), hdr = try object.optionalValue(VideoKeys.hdr)
            for codec in codecs {
                if let audio, ![.copy, .none].contains(audio), !codec.audioCodecs.contains(audio) {
                    throw try object.required(VideoKeys.audio.name).expected(
                        "\(codec.audioCodecs.map(\.rawValue).joined(separator: " or ")), copy or none: \(codec.rawValue) is written as "
                        + "\(codec.container.rawValue), which holds no \(audio.rawValue)")
                }
                if hdr == .keep, !codec.keepsHDR {
                    throw try object.required(VideoKeys.hdr.name).expected("tonemap: keep writes 10-bit HEVC or AV1, and \(codec.rawValue) is listed")
                }
            }
            return .video(.init(renditions: codecs.map { .init(codec: $0, quality: quality[$0], audio: audio, hdr: hdr) },
                                maxPixelSize: try object.optionalValue(VideoKeys.maxPixelSize),
                                maxFps: try object.value(VideoKeys.maxFps), reencode: try object.value(VideoKeys.reencode)))
        }

    static let downsample = StageSyntax(
        spelling: "downsample", name: .downsample,
        help: "Fits images to a box (maxPixelSize, or width and/or height) as fit says, never upscaling; orientation applied first.",
        options: [DownsampleKeys.maxPixelSize.described, DownsampleKeys.width.described, DownsampleKeys.height.described] + FitKeys.described,
        rules: DownsampleKeys.rules.merging(FitKeys.rules) { _, new in new }) { object in
            let side = try object.optionalValue(DownsampleKeys.maxPixelSize)
            let width = try object.optionalValue(DownsampleKeys.width), height = try object.optionalValue(DownsampleKeys.height)
            let fit = try object.fit()
            if side != nil, let other = object.optional(width != nil ? DownsampleKeys.width.name : DownsampleKeys.height.name) {
                throw other.fail("maxPixelSize is the box maxPixelSize × maxPixelSize: give it, or width and height, not both")
            }
            guard let box = side.map({ Box(width: $0, height: $0) }) ?? (width ?? height).map({ _ in Box(width: width, height: height) }) else {
                throw object.reader.fail("expected \"maxPixelSize\", \"width\" or \"height\": the box images are fitted to")
            }
            return .downsample(.init(box: box, fit: fit))
        }

    static let transcode = StageSyntax(
        spelling: "transcode", name: .transcode,
        help: "Converts images (those in from, or all) to sRGB in another format.",
        options: [TranscodeKeys.from.described, TranscodeKeys.to.described, TranscodeKeys.quality.described,
                  TranscodeKeys.effort.described, HDRKeys.hdr.described]) { object in
            let to = try object.value(TranscodeKeys.to)
            return .transcode(.init(from: try object.optionalValue(TranscodeKeys.from).map(Set.init), to: to,
                                    quality: try object.optionalValue(TranscodeKeys.quality) ?? to.quality?.default ?? Defaults.keptFormatQuality,
                                    effort: try object.effort(for: to), hdr: try object.value(HDRKeys.hdr)))
        }

    static let variants = StageSyntax(
        spelling: "variants", name: .variants,
        help: "One decode, many outputs: every size in every format, upright, sRGB, never upscaled; in place of downsample and transcode.",
        options: [VariantsKeys.sizes.described, VariantsKeys.formats.described, VariantsKeys.quality.described,
                  VariantsKeys.effort.described, VariantsKeys.placeholder.described, HDRKeys.hdr.described] + FitKeys.described,
        rules: FitKeys.rules) { object in
            let formats = try object.value(VariantsKeys.formats)
            return .variants(.init(sizes: try object.value(VariantsKeys.sizes), formats: formats,
                                   quality: try object.perFormat(VariantsKeys.quality, of: formats, default: \.quality),
                                   effort: try object.perFormat(VariantsKeys.effort, of: formats, default: \.effort),
                                   placeholder: try object.optionalValue(VariantsKeys.placeholder), hdr: try object.value(HDRKeys.hdr),
                                   fit: try object.fit()))
        }

    static let stripMetadata = StageSyntax(
        spelling: "stripMetadata", name: .stripMetadata,
        help: "Removes metadata: the groups remove names (what is not named stays), or all but what keep names.",
        options: [StripMetadataKeys.remove.described, StripMetadataKeys.keep.described],
        exclusive: [StripMetadataKeys.remove.name, StripMetadataKeys.keep.name]) { object in
            let remove = try object.optionalValue(StripMetadataKeys.remove), keep = try object.optionalValue(StripMetadataKeys.keep)
            switch (remove, keep) {
            case (let remove?, nil): return .stripMetadata(.remove(Set(remove)))
            case (nil, let keep?): return .stripMetadata(.keep(Set(keep)))
            case (nil, nil): throw object.reader.fail("expected \"remove\" (the groups that go) or \"keep\" (all that stays)")
            case (.some, .some):
                throw try object.required(StripMetadataKeys.keep.name)
                    .fail("keep and remove cannot be combined: keep names all that stays, remove what goes")
            }
        }

    static let write = StageSyntax(
        spelling: "write", name: .write,
        help: "Writes each item's output atomically under the output root; the last stage.",
        options: [WriteKeys.path.described, WriteKeys.posterPath.described]) { object in
            .write(.init(path: try object.value(WriteKeys.path), posterPath: try object.value(WriteKeys.posterPath)))
        }

    static let stripLocation = StageSyntax(
        spelling: "stripLocation", name: .stripMetadata,
        help: "stripMetadata with remove: [\"location\"]: GPS, place names and QuickTime location go; everything else stays.",
        options: []) { _ in .stripMetadata(.remove([.location])) }
}

enum FilterKeys {
    static let match = Key("match", .mediaMatch, .required, "What the item must be: a media kind, a predicate, or any/all/not of them.")
    static let livePhotoVideo = Key("livePhotoVideo", .choice("what to do with a Live Photo's movie"), .value(Defaults.livePhotoVideo),
                                    "A Live Photo's movie that match does not select: keepWithStill goes along with its selected still, drop filters it out.")
}

enum DecodeKeys {
    static let animated = Key("animated", .boolean, .value(Defaults.animated),
                              "An animated GIF or WebP keeps every frame, its delays and loop count in formats that animate "
                              + "(GIF, WebP; the others get its first frame, and the report says so); false: the first frame only.")
    static let raw = Key("raw", ValueSyntax<Stage.RawSource>.choice("auto, develop or preview"), .value(Defaults.rawSource),
                         "A camera RAW's picture: auto takes its embedded preview where its longest side is at least what the later "
                         + "stages need, else develops it with LibRaw (at half size where they need at most half); develop always "
                         + "develops; preview always takes the preview, even smaller than asked.")
}

enum DownsampleKeys {
    static let maxPixelSize = Key("maxPixelSize", .positiveInteger, .noDefault,
                                  "The box maxPixelSize × maxPixelSize: with fit inside, the longest side's maximum, in pixels. Not with width or height.")
    static let width = Key("width", .positiveInteger, .noDefault, "The box's width, in pixels; alone, images are scaled to it.")
    static let height = Key("height", .positiveInteger, .noDefault, "The box's height, in pixels; alone, images are scaled to it.")

    /// maxPixelSize, or width and/or height.
    static let rules: [String: JSONValue] = [
        "anyOf": .array([maxPixelSize, width, height].map { ["required": [.string($0.name)]] }),
        "not": ["required": [.string(maxPixelSize.name)], "anyOf": [["required": [.string(width.name)]], ["required": [.string(height.name)]]]],
    ]
}

/// How `downsample` and `variants` fit pictures to their boxes, as sharp's `fit`.
enum FitKeys {
    static let fit = Key("fit", ValueSyntax<Fit.Mode>.choice("a fit"), .value(Defaults.fit),
                         "inside: within the box; cover: filling it, cut at position; contain: within it, padded with background; "
                         + "fill: stretched to it; outside: covering it, nothing cut. Aspect ratio kept but by fill; never upscaled "
                         + "(a box larger than the image shrinks, keeping its own aspect ratio).")
    static let position = Key("position", .position, .value(Defaults.position),
                              "With fit cover, the part kept: centre, a compass point (north, northeast, …, northwest), "
                              + "entropy or attention (libvips' smartcrop), or {\"focus\": [x, y]} (fractions of the upright image).")
    static let background = Key("background", .background, .noDefault,
                                "With fit contain, the padding: [r, g, b], [r, g, b, a] (0–255) or \"#rrggbb\"; by default white, "
                                + "or transparent where the output format has alpha.")

    static var described: [DescribedKey] { [fit.described, position.described, background.described] }

    /// position with cover only, background with contain only.
    static let rules: [String: JSONValue] = {
        func only(_ key: String, with mode: Fit.Mode) -> JSONValue {
            let fitIs: JSONValue = ["required": [.string(fit.name)], "properties": .object([fit.name: ["const": .string(mode.rawValue)]])]
            return ["if": ["not": fitIs], "then": ["not": ["required": [.string(key)]]]]
        }
        return ["allOf": [only(position.name, with: .cover), only(background.name, with: .contain)]]
    }()
}

enum TranscodeKeys {
    static let from = Key("from", ValueSyntax<MediaFormat>.choice("an image format", from: MediaFormat.inputs.filter { !$0.isVideo }).oneOrMore(),
                          .noDefault, "The image formats converted; absent: every image.")
    static let to = Key<MediaFormat>("to", .choice("an output format", from: MediaFormat.outputs), .required,
                                     "The output format: " + MediaFormat.outputs.map { $0.row.help }.joined(separator: "; ") + ".")
    static let quality = Key("quality", .integer(in: 1...100), .noDefault,
                             "Encoder quality; by default \(FormatTable.defaults(\.quality)) (PNG is lossless).")
    static let effort = Key("effort", .integer(in: 0...9), .noDefault,
                            "Encoder CPU effort, for \(FormatTable.ranges(\.effort)) (by default \(FormatTable.defaults(\.effort))): "
                                + "lower is faster, with larger files.")
}

enum VariantsKeys {
    static let sizes = Key("sizes", ValueSyntax<VariantSize>.variantSize.distinctList(of: "size"), .required,
                           "Each variant's box: a number N (N × N: with fit inside, the longest side) or {\"width\": W, \"height\": H} "
                           + "({size} is then WxH); sizes that would give an image the same output collapse into one.")
    static let formats = Key("formats", ValueSyntax<MediaFormat>.choice("an output format", from: MediaFormat.outputs).distinctList(of: "format"), .required,
                             "Every size is written in every one of these formats.")
    static let quality = Key("quality", .perFormat("a lossy format", MediaFormat.outputs.filter(\.isLossy)) { .integer(in: $0.quality!.range) },
                             .noDefault, "Quality of each lossy format among formats; by default \(FormatTable.defaults(\.quality)).")
    static let effort = Key("effort", .perFormat("a format with an effort", MediaFormat.outputs.filter { $0.effort != nil }) {
                                .integer(in: $0.effort!.range)
                            }, .noDefault, "Encoder CPU effort of \(FormatTable.ranges(\.effort)) among formats (by default "
                                + "\(FormatTable.defaults(\.effort))): lower is faster, with larger files.")
    static let placeholder = Key("placeholder", ValueSyntax<Stage.Placeholder>.choice("a placeholder"), .noDefault,
                                 "thumbhash: a ThumbHash of each item in the manifest, for blurred previews.")
}

enum HDRKeys {
    static let hdr = Key("hdr", ValueSyntax<Stage.HDR>.choice("keep or drop"), .value(Defaults.hdr),
                         "An HDR photo's gain map: keep writes it where the output format carries one (JPEG, as Ultra HDR: "
                         + "SDR viewers see the same picture, HDR screens brighter highlights), resized with the picture; "
                         + "drop writes SDR only, smaller.")
}

enum StripMetadataKeys {
    static let remove = Key("remove", ValueSyntax<MetadataGroup>.choice("a metadata group").list(minItems: 1, empty: "expected at least one metadata group"),
                            .noDefault, "The groups removed; what is not named stays. Not with keep.")
    static let keep = Key("keep", ValueSyntax<KeptMetadata>.choice("kept metadata").distinctList(of: "name", allowingEmpty: true), .noDefault,
                          "All that stays (copyright, icc, orientation, camera, date, livePhoto, xmp, iptc); everything else goes, "
                          + "location always. An empty list keeps nothing. Not with remove.")
}

enum PosterKeys {
    static let at = Key("at", .posterTime, .value(Defaults.posterTime),
                        "auto: the most representative keyframe of the first third, never black, faded or blurred (a movie under 2 s: "
                        + "its sharpest frame); a number: seconds from the start (past the end: the last frame); \"N%\": percent of the duration.")
    static let movie = Key("movie", ValueSyntax<Stage.PosterMovie>.choice("keep or drop"), .value(Defaults.posterMovie),
                           "keep: the movie is written too (copied, or the video stage's renditions); drop: the poster alone, "
                           + "the movie not written (not with a video stage).")
}

enum VideoKeys {
    static let codec = Key("codec", ValueSyntax<VideoCodec>.choice("a video codec").oneOrDistinct(of: "codec"), .value(Defaults.videoCodecs),
                           "h264 (libx264, High, 8-bit), hevc (libx265, hvc1), av1 (SVT-AV1) or vp9 (WebM), or a list of them: one "
                           + "rendition each, named apart by {codec} in write.path.")
    static let maxPixelSize = Key("maxPixelSize", .positiveInteger, .noDefault,
                                  "The longest side's maximum, in pixels; by default the movie's own size. Never upscaled.")
    static let quality = Key("quality", .videoQuality, .noDefault,
                             "The encoder's CRF (lower: better, larger): a number, or one per codec ({\"av1\": 35, \"h264\": 23}); "
                             + "by default " + VideoCodec.allCases.map { "\($0.rawValue) \(Defaults.videoQuality($0))" }.joined(separator: ", ") + ".")
    static let maxFps = Key("maxFps", .positiveInteger, .value(Defaults.maxFps), "Frames per second at most; a faster movie drops frames to this rate.")
    static let audio = Key("audio", ValueSyntax<Stage.VideoAudio>.choice("aac, opus, copy or none"), .noDefault,
                           "aac or opus (re-encoded unless the source's already is), copy (the source's packets) or none; by default aac, "
                           + "opus in WebM (vp9).")
    static let reencode = Key("reencode", ValueSyntax<Stage.Reencode>.choice("needed or always"), .value(Defaults.reencode),
                              "needed: a stream that already fits (codec, size, rate, 8-bit 4:2:0 limited range, upright) is copied, not "
                              + "re-encoded; always: every stream is re-encoded.")
    static let hdr = Key("hdr", ValueSyntax<Stage.VideoHDR>.choice("tonemap or keep"), .noDefault,
                         "A PQ or HLG movie: tonemap to SDR BT.709, or keep as 10-bit with its transfer and primaries (hevc, av1); by "
                         + "default keep for hevc and av1, tonemap for h264 and vp9.")
}

/// `video.quality` as written: one CRF, or one per codec.
enum VideoQuality {
    case one(Int)
    case perCodec([VideoCodec: Int])
}

extension ValueSyntax where Value == VideoQuality {
    static let videoQuality: ValueSyntax = {
        let number = ValueSyntax<Int>.integer(in: 0...63)
        let perCodec = objectSchema(VideoCodec.allCases.map {
            DescribedKey(name: $0.rawValue, required: false, schema: ValueSyntax<Int>.integer(in: $0.qualityRange).schema)
        })
        return ValueSyntax(schema: ["anyOf": [number.schema, perCodec]], read: { reader in
            guard case .object = reader.value else { return .one(try number.read(reader)) }
            let object = try reader.object()
            var values: [VideoCodec: Int] = [:]
            for key in object.keys {
                let codec = try reader.child(key, .string(key)).oneOf("a video codec", VideoCodec.allCases.map { ($0.rawValue, $0) })
                values[codec] = try ValueSyntax<Int>.integer(in: codec.qualityRange).read(object.required(key))
            }
            try object.finish()
            return .perCodec(values)
        }, json: nil)
    }()
}

extension ObjectReader {
    /// `video.quality` for each of `codecs`: a number is the one codec's, in its range; an object
    /// names only codecs listed. A codec not given takes its default (see `Stage.Rendition`).
    func videoQuality(for codecs: [VideoCodec]) throws -> [VideoCodec: Int] {
        guard let given = optional(VideoKeys.quality.name) else { return [:] }
        switch try VideoKeys.quality.syntax.read(given) {
        case .one(let value):
            guard codecs.count == 1 else {
                throw given.expected("one CRF per codec, as {\"\(codecs[0].rawValue)\": …}: \(codecs.count) codecs are listed and their scales differ")
            }
            guard codecs[0].qualityRange.contains(value) else {
                throw given.expected("an integer from \(codecs[0].qualityRange.lowerBound) to \(codecs[0].qualityRange.upperBound) for \(codecs[0].rawValue)")
            }
            return [codecs[0]: value]
        case .perCodec(let values):
            if let stray = values.keys.sorted(by: { $0.rawValue < $1.rawValue }).first(where: { !codecs.contains($0) }) {
                throw given.child(stray.rawValue, .string(stray.rawValue))
                    .expected("one of this stage's codecs (\(codecs.map(\.rawValue).joined(separator: ", ")))")
            }
            return values
        }
    }
}

enum WriteKeys {
    static let path = Key("path", .pathTemplate, .value(try! PathTemplate(Defaults.writePath)),
                          "Output path relative to the output root: {dir}, {stem}, {ext}, {inputExt} (the input's own extension), "
                          + "{date:yyyy-MM-dd}, {hash} (the output's own bytes' SHA-256, 10 hex digits; {hash:N} for N, 4–64), "
                          + "{inputHash} (the input's; {inputHash:N}), and with variants {size}, {width}, {height}; {stem}, {hash} or "
                          + "{inputHash} required.")
    static let posterPath = Key("posterPath", .pathTemplate, .value(try! PathTemplate(Defaults.posterPath)),
                                "With a poster stage, where a movie's poster goes: the placeholders of path, {ext} the poster's format's.")
}

extension ValueSyntax where Value == PathTemplate {
    static let pathTemplate = ValueSyntax(schema: PathTemplate.schema, read: { reader in
        do {
            return try PathTemplate(reader.string())
        } catch let error as PathTemplate.TemplateError {
            throw reader.fail(error.message)
        }
    }, json: { .string($0.text) })
}

extension ValueSyntax where Value == [MediaFormat: Int] {
    /// `{"avif": 50, "webp": 75}`: a value for any of `formats`, each read by its own syntax.
    static func perFormat(_ what: String, _ formats: [MediaFormat], value: @escaping (MediaFormat) -> ValueSyntax<Int>) -> ValueSyntax {
        let schema = objectSchema(formats.map { DescribedKey(name: $0.rawValue, required: false, schema: value($0).schema) })
        return ValueSyntax(schema: schema, read: { reader in
            let object = try reader.object()
            var values: [MediaFormat: Int] = [:]
            for key in object.keys {
                let format = try reader.child(key, .string(key)).oneOf(what, formats.map { ($0.rawValue, $0) })
                values[format] = try value(format).read(object.required(key))
            }
            try object.finish()
            return values
        }, json: nil)
    }
}

extension ObjectReader {
    /// A per-format option of `variants` (`quality`, `effort`): each of the stage's `formats` that
    /// has the setting gets its default, overridden by what the stage gives, which may name only
    /// formats it writes.
    func perFormat(_ key: Key<[MediaFormat: Int]>, of formats: [MediaFormat],
                   default setting: KeyPath<FormatRow.Encoder, FormatRow.Setting?>) throws -> [MediaFormat: Int] {
        let takes = { (format: MediaFormat) in format.row.encoder?[keyPath: setting] != nil }
        var values = Dictionary(uniqueKeysWithValues: formats.compactMap { format in
            format.row.encoder?[keyPath: setting].map { (format, $0.default) }
        })
        guard let given = optional(key.name) else { return values }
        for (format, value) in try key.syntax.read(given) {
            guard formats.contains(format) else {
                let takers = formats.filter(takes).map(\.rawValue).joined(separator: ", ")
                throw given.child(format.rawValue, .string(format.rawValue))
                    .expected("one of this stage's formats that takes \(key.name) (\(takers.isEmpty ? "none does" : takers))")
            }
            values[format] = value
        }
        return values
    }

    /// `transcode.effort`, in the range of the format written; nil for a format without one.
    func effort(for format: MediaFormat) throws -> Int? {
        guard let given = optional(TranscodeKeys.effort.name) else { return format.effort?.default }
        guard let range = format.effort?.range else {
            throw given.expected("no effort: \(format.rawValue) takes none (\(FormatTable.ranges(\.effort)) do)")
        }
        let effort = try TranscodeKeys.effort.syntax.read(given)
        guard range.contains(effort) else { throw given.expected("an integer from \(range.lowerBound) to \(range.upperBound) for \(format.rawValue)") }
        return effort
    }
}
