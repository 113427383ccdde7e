import Foundation
import MediaFormats

// The keys of a pipeline file, object by object, each with its syntax, default and meaning.
// `PipelineDecoder` reads every key through these and `PipelineSchema` describes every `all`
// list, so the schema says what the decoder reads. Defaults come from `Defaults`.

enum TopLevelKeys {
    static let schema = Key("$schema", .string, .noDefault,
                            "The JSON Schema this file follows, for editors (mediabatch schema prints it); mediabatch ignores it.")
    static let version = Key("version", .version, .required,
                             "The pipeline format's version. A newer one is refused: upgrade mediabatch.")
    static let input = Key("input", .object(InputKeys.all), .noDefault, "What is read.")
    static let output = Key("output", .object(OutputKeys.all), .noDefault, "Where outputs go.")
    static let limits = Key("limits", .object(LimitsKeys.all), .noDefault, "Concurrency, memory and per-item limits.")
    static let onError = Key("onError", .choice("what a failed item does to the run"), .value(Defaults.onError),
                             "continue: report a failed item and go on; stop: admit no more items after the first failure.")
    static func stages(_ catalog: StageCatalog) -> Key<[JSONReader]> {
        Key("stages", .stageList(catalog), .required, "The stages, in order; each at most once (stripLocation and stripMetadata are one stage).")
    }

    static func all(_ catalog: StageCatalog) -> [DescribedKey] {
        [schema.described, version.described, input.described, output.described, limits.described, onError.described, stages(catalog).described]
    }
}

enum InputKeys {
    static let root = Key("root", .folder, .noDefault,
                          "Folder of inputs; a relative path resolves against the pipeline file's folder. Default: --input.")
    static let include = Key("include", ValueSyntax.string.list(), .value(Defaults.include),
                             "Globs over paths relative to the root: * and ? within a folder name, **/ across folders.")
    static let exclude = Key("exclude", ValueSyntax.string.list(), .value(Defaults.exclude),
                             "Globs; an excluded folder is not entered (hidden folders by default).")
    static let formats = Key("formats", ValueSyntax<MediaFormat>.choice("a format", from: MediaFormat.inputs).oneOrMore(minItems: 1, empty: "expected at least one format"),
                             .value(MediaFormat.inputs),
                             "Formats read, decided from the bytes; others are skipped and their libvips loaders blocked.")
    static let extensionMismatch = Key("extensionMismatch", .choice("what to do when a file's content contradicts its extension"),
                                       .value(Defaults.extensionMismatch),
                                       "fail: a file whose bytes contradict its extension fails formatMismatch; process: read it as what it is.")
    static let followSymlinks = Key("followSymlinks", .boolean, .value(Defaults.followSymlinks),
                                    "Follow symlinks leading out of the input root, and symlinked folders.")
    static let trusted = Key("trusted", .boolean, .value(Defaults.trusted),
                             "Run decoders in mediabatch's own process: faster, but a decoder crash ends the run and limits.timeout cannot stop a stuck decode.")

    static let rawJpegPairs = Key("rawJpegPairs", .choice("which file of a RAW+JPEG pair is processed"), .value(Defaults.rawJpegPairs),
                                  "A RAW beside a JPEG or HEIF of the same name in the same folder is one photo. jpeg: the camera's "
                                  + "JPEG is processed, the RAW skipped (pairedWithJpeg); raw: the reverse (pairedWithRaw); both: "
                                  + "both, and write.path must tell them apart ({inputExt} or {hash:N}).")

    static let duplicates = Key("duplicates", .choice("which copies of a photo are processed"), .value(Defaults.duplicates),
                                "all: every file; keeper: each photo's keeper alone, its copies (identical bytes, or one photo "
                                + "re-encoded, resized, cut) skipped as duplicateOf, as mediabatch duplicates groups them.")

    static let timeZone = Key("timeZone", ValueSyntax<TimeZone>.timeZone, .noDefault,
                              "Where the library was shot, an IANA name (\"Europe/Paris\"): a camera's time without an offset gets "
                              + "this zone's, and a time known only in UTC (a movie's mvhd, a Pixel's file name, Takeout) is "
                              + "read on this zone's clock for {date:…}. Default: zoneless times stay zoneless, UTC ones UTC.")
    static let sidecars = Key("sidecars", .choice("what becomes of the XMP, AAE and Takeout JSON files beside a photo"),
                              .value(Defaults.sidecars),
                              "copy: each is written beside its photo's outputs under their name, its location removed with "
                              + "stripMetadata's location; ignore: none is written. Never items of their own either way.")

    static let all = [root.described, include.described, exclude.described, formats.described, extensionMismatch.described,
                      followSymlinks.described, trusted.described, rawJpegPairs.described, duplicates.described,
                      timeZone.described, sidecars.described]
}

extension ValueSyntax where Value == TimeZone {
    /// An IANA time zone name the system knows ("Europe/Paris", "UTC").
    static let timeZone = ValueSyntax.text(#"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$"#,
                                           expected: "an IANA time zone name such as \"Europe/Paris\"",
                                           { TimeZone(identifier: $0) })
}

enum OutputKeys {
    static let root = Key("root", .folder, .noDefault,
                          "Folder for outputs, created as needed; must not be the input root. Default: --output.")

    static let manifest = Key("manifest", .relativeFile, .noDefault,
                              "A file under the output root where each run writes the manifest of every item's outputs (for a site build).")

    static let all = [root.described, manifest.described]
}

enum LimitsKeys {
    static let concurrency = Key("concurrency", .positiveInteger, .noDefault,
                                 "Items in flight at once. Default: the CPUs this process may use (affinity mask and cgroup quota).")
    static let memoryBudget = Key("memoryBudget", .byteSize, .value(Defaults.memoryBudget),
                                  "Sum of the estimated peak memory of the items in flight; a bigger item runs alone.")
    static let maxPixels = Key("maxPixels", .positiveInteger, .noDefault,
                               "An image with more pixels (width × height, from its header) fails tooManyPixels before decoding. "
                                   + "By default \(Defaults.maxPixels) (16383²), \(Defaults.maxStreamedPixels) (32768²) where the decoder "
                                   + "streams (JPEG, PNG, TIFF); under the defaults a file of more than \(Defaults.bombPixelsPerByte) "
                                   + "pixels a byte over \(Defaults.maxPixels) is a decompression bomb, refused unread.")
    static let maxFileBytes = Key("maxFileBytes", .byteSize, .value(Defaults.maxFileBytes),
                                  "A larger input fails fileTooLarge before a byte is read.")
    static let maxFrames = Key("maxFrames", .positiveInteger, .value(Defaults.maxFrames),
                               "An image with more frames or pages fails tooManyFrames on its header.")
    static let maxVideoDuration = Key("maxVideoDuration", .duration, .value(Defaults.maxVideoDurationSeconds),
                                      "A movie longer than this (\"90s\", \"2m\", \"1h\" or seconds), from its header, fails tooLong before decoding.")
    static let maxVideoFrames = Key("maxVideoFrames", .positiveInteger, .value(Defaults.maxVideoFrames),
                                    "A movie with more frames (its length × its frame rate, from its header) fails tooManyFrames before decoding.")
    static let timeout = Key("timeout", .duration, .value(Defaults.timeoutSeconds),
                             "An item still running after this (\"90s\", \"2m\", \"1h\" or seconds) is abandoned and fails timedOut.")

    static let all = [concurrency.described, memoryBudget.described, maxPixels.described, maxFileBytes.described, maxFrames.described,
                      maxVideoDuration.described, maxVideoFrames.described, timeout.described]
}

extension ValueSyntax where Value == Int {
    /// A version from 1 to the newest this mediabatch reads.
    static let version = ValueSyntax(
        schema: ["type": "integer", "minimum": 1, "maximum": .number(Double(Defaults.supportedVersion))],
        read: { reader in
            let version = try reader.positiveInteger()
            guard version <= Defaults.supportedVersion else {
                throw reader.fail("this mediabatch reads pipeline version \(Defaults.supportedVersion), found \(version); upgrade mediabatch")
            }
            return version
        }, json: nil)

    /// Seconds: a positive number, or a count with a unit ("90s", "2m", "1h").
    static let duration: ValueSyntax = {
        let expected = "a duration such as \"90s\", \"2m\" or a number of seconds"
        let units = ["s": 1, "m": 60, "h": 3600]
        let text = ValueSyntax.text("^0*[1-9][0-9]*[smh]$", expected: expected) { text -> Int? in
            guard let unit = text.last.flatMap({ units[String($0)] }), let count = Int(text.dropLast()),
                  count <= Int(Int32.max) / unit else { return nil }
            return count * unit
        }
        var syntax = ValueSyntax.number(.positiveInteger, orText: text, expected: expected)
        syntax.json = { seconds in
            seconds % 3600 == 0 ? .string("\(seconds / 3600)h") : seconds % 60 == 0 ? .string("\(seconds / 60)m") : .number(Double(seconds))
        }
        return syntax
    }()
}

extension ValueSyntax where Value == ByteSize {
    /// Bytes: a positive number, or a count with a unit ("600MiB", "1GiB", "500MB").
    static let byteSize: ValueSyntax = {
        let expected = "a size such as \"600MiB\", \"1GiB\" or a number of bytes"
        var syntax = ValueSyntax.number(ValueSyntax<Int>.positiveInteger.map(ByteSize.init(bytes:)),
                                        orText: .text(ByteSize.pattern, expected: expected, ByteSize.init(parsing:)), expected: expected)
        syntax.json = { $0.json }
        return syntax
    }()
}

extension ValueSyntax where Value == String {
    /// A folder's path as written; the decoder resolves it against the pipeline file's folder.
    static let folder = ValueSyntax(schema: ["type": "string", "minLength": 1], read: { reader in
        let path = try reader.string()
        guard !path.isEmpty else { throw reader.expected("a folder path") }
        return path
    }, json: nil)

    /// A file under the output root: relative, without empty, "." or ".." parts.
    static let relativeFile = ValueSyntax.text(#"^(?!(.*/)?\.\.?(/|$))([^/]+/)*[^/]+$"#,
                                               expected: "a file path relative to the output root, without empty, \".\" or \"..\" parts") { $0 }
}

extension ValueSyntax where Value == JSONReader {
    /// An object with these keys, handed to the decoder to read key by key.
    static func object(_ keys: [DescribedKey]) -> ValueSyntax {
        ValueSyntax(schema: objectSchema(keys), read: { reader in
            _ = try reader.object()
            return reader
        }, json: nil)
    }
}

extension ValueSyntax where Value == [JSONReader] {
    /// The stage list: at least one stage, each one of the catalog's spellings, each kind at most once.
    static func stageList(_ catalog: StageCatalog) -> ValueSyntax {
        ValueSyntax(schema: [
            "type": "array", "minItems": 1, "items": ["$ref": "#/$defs/stage"],
            "allOf": .array(catalog.atMostOnce),
        ], read: { reader in
            let items = try reader.array()
            guard !items.isEmpty else { throw reader.fail("expected at least one stage") }
            return items
        }, json: nil)
    }
}
