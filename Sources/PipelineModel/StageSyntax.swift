/// How a pipeline file writes one stage: the `"stage"` spelling, its options, and the `Stage`
/// they make. The decoder finds stages here and the schema has one `oneOf` branch per entry, so
/// a new stage (or a new spelling of one, like `stripLocation`) is one entry in `all`.
struct StageSyntax {
    let spelling: String
    let name: Stage.Name
    let help: String
    let options: [DescribedKey]
    let make: (ObjectReader) throws -> Stage

    /// Every spelling, in the order messages list them.
    static let all: [StageSyntax] = [filter, decode, downsample, transcode, variants, stripMetadata, write, stripLocation]

    /// Every key of this stage's object, `"stage"` included.
    var keys: [DescribedKey] {
        [DescribedKey(name: "stage", required: true, schema: ["const": .string(spelling), "description": .string(help)])] + options
    }

    var schema: JSONValue { objectSchema(keys) }

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
        help: "Opens each item header-first (libvips for images, libavformat for videos); pixel stages need it before them.",
        options: []) { _ in .decode }

    static let downsample = StageSyntax(
        spelling: "downsample", name: .downsample,
        help: "Shrinks images so that the longest side is at most maxPixelSize, never upscaling; orientation applied; comes before transcode.",
        options: [DownsampleKeys.maxPixelSize.described]) { object in
            .downsample(maxPixelSize: try object.value(DownsampleKeys.maxPixelSize))
        }

    static let transcode = StageSyntax(
        spelling: "transcode", name: .transcode,
        help: "Converts images (those in from, or all) to sRGB in another format.",
        options: [TranscodeKeys.from.described, TranscodeKeys.to.described, TranscodeKeys.quality.described]) { object in
            let to = try object.value(TranscodeKeys.to)
            return .transcode(.init(from: try object.optionalValue(TranscodeKeys.from).map(Set.init), to: to,
                                    quality: try object.optionalValue(TranscodeKeys.quality) ?? Defaults.quality[to] ?? Defaults.keptFormatQuality))
        }

    static let variants = StageSyntax(
        spelling: "variants", name: .variants,
        help: "One decode, many outputs: every size in every format, upright, sRGB, never upscaled; in place of downsample and transcode.",
        options: [VariantsKeys.sizes.described, VariantsKeys.formats.described, VariantsKeys.quality.described,
                  VariantsKeys.placeholder.described]) { object in
            let formats = try object.value(VariantsKeys.formats)
            var quality = Defaults.quality.filter { formats.contains($0.key) }
            if let given = object.optional(VariantsKeys.quality.name) {
                for (format, value) in try VariantsKeys.quality.syntax.read(given) {
                    guard formats.contains(format) else {
                        throw given.child(format.rawValue, .string(format.rawValue))
                            .expected("a lossy format of this stage's formats (one of \(formats.filter(\.isLossy).map(\.rawValue).joined(separator: ", ")))")
                    }
                    quality[format] = value
                }
            }
            return .variants(.init(sizes: try object.value(VariantsKeys.sizes), formats: formats, quality: quality,
                                   placeholder: try object.optionalValue(VariantsKeys.placeholder)))
        }

    static let stripMetadata = StageSyntax(
        spelling: "stripMetadata", name: .stripMetadata,
        help: "Removes the named metadata groups; what is not named stays.",
        options: [StripMetadataKeys.remove.described]) { object in
            .stripMetadata(Set(try object.value(StripMetadataKeys.remove)))
        }

    static let write = StageSyntax(
        spelling: "write", name: .write,
        help: "Writes each item's output atomically under the output root; the last stage.",
        options: [WriteKeys.path.described]) { object in
            .write(.init(path: try object.value(WriteKeys.path)))
        }

    static let stripLocation = StageSyntax(
        spelling: "stripLocation", name: .stripMetadata,
        help: "stripMetadata with remove: [\"location\"]: GPS, place names and QuickTime location go; everything else stays.",
        options: []) { _ in .stripMetadata([.location]) }
}

enum FilterKeys {
    static let match = Key("match", .mediaMatch, .required, "What the item must be: a media kind, a predicate, or any/all/not of them.")
    static let livePhotoVideo = Key("livePhotoVideo", .choice("what to do with a Live Photo's movie"), .value(Defaults.livePhotoVideo),
                                    "A Live Photo's movie that match does not select: keepWithStill goes along with its selected still, drop filters it out.")
}

enum DownsampleKeys {
    static let maxPixelSize = Key("maxPixelSize", .positiveInteger, .required, "The longest side's maximum, in pixels.")
}

enum TranscodeKeys {
    static let from = Key("from", ValueSyntax<MediaFormat>.choice("an image format", from: MediaFormat.allCases.filter { !$0.isVideo }).oneOrMore(),
                          .noDefault, "The image formats converted; absent: every image.")
    static let to = Key<OutputFormat>("to", .choice("an output format"), .required, "The output format.")
    static let quality = Key("quality", .integer(in: 1...100), .noDefault,
                             "Encoder quality; by default JPEG and WebP 80, AVIF 62, HEIC 44 (PNG is lossless).")
}

enum VariantsKeys {
    static let sizes = Key("sizes", ValueSyntax<Int>.positiveInteger.distinctList(of: "size"), .required,
                           "The longest side of each variant, in pixels; sizes at or above an image's own collapse into one at its size.")
    static let formats = Key("formats", ValueSyntax<OutputFormat>.choice("an output format").distinctList(of: "format"), .required,
                             "Every size is written in every one of these formats.")
    static let quality = Key("quality", .qualities, .noDefault,
                             "Quality of each lossy format among formats; by default JPEG and WebP 80, AVIF 62, HEIC 44.")
    static let placeholder = Key("placeholder", ValueSyntax<Stage.Placeholder>.choice("a placeholder"), .noDefault,
                                 "thumbhash: a ThumbHash of each item in the manifest, for blurred previews.")
}

enum StripMetadataKeys {
    static let remove = Key("remove", ValueSyntax<MetadataGroup>.choice("a metadata group").list(minItems: 1, empty: "expected at least one metadata group"),
                            .required, "The groups removed.")
}

enum WriteKeys {
    static let path = Key("path", .pathTemplate, .value(try! PathTemplate(Defaults.writePath)),
                          "Output path relative to the output root: {dir}, {stem}, {ext}, {date:yyyy-MM-dd}, {hash:N}, and with variants "
                          + "{size}, {width}, {height}; {stem} or {hash:N} required.")
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

extension ValueSyntax where Value == [OutputFormat: Int] {
    /// `{"avif": 50, "webp": 75}`: a quality for any lossy format.
    static let qualities: ValueSyntax = {
        let lossy = OutputFormat.allCases.filter(\.isLossy)
        let quality = ValueSyntax<Int>.integer(in: 1...100)
        let schema = objectSchema(lossy.map { DescribedKey(name: $0.rawValue, required: false, schema: quality.schema) })
        return ValueSyntax(schema: schema, read: { reader in
            let object = try reader.object()
            var qualities: [OutputFormat: Int] = [:]
            for key in object.keys {
                let format = try reader.child(key, .string(key)).oneOf("a lossy format", lossy.map { ($0.rawValue, $0) })
                qualities[format] = try quality.read(object.required(key))
            }
            try object.finish()
            return qualities
        }, json: nil)
    }()
}
