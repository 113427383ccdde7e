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
    static let all: [StageSyntax] = [filter, decode, downsample, transcode, stripMetadata, write, stripLocation]

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
            .transcode(.init(from: try object.optionalValue(TranscodeKeys.from).map(Set.init), to: try object.value(TranscodeKeys.to),
                             quality: try object.value(TranscodeKeys.quality)))
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
    static let quality = Key("quality", .integer(in: 1...100), .value(Defaults.quality), "Encoder quality (JPEG, WebP).")
}

enum StripMetadataKeys {
    static let remove = Key("remove", ValueSyntax<MetadataGroup>.choice("a metadata group").list(minItems: 1, empty: "expected at least one metadata group"),
                            .required, "The groups removed.")
}

enum WriteKeys {
    static let path = Key("path", .pathTemplate, .value(try! PathTemplate(Defaults.writePath)),
                          "Output path relative to the output root: {dir}, {stem}, {ext}, {date:yyyy-MM-dd}, {hash:N}; {stem} or {hash:N} required.")
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
