import Foundation
import MediaFormats
@testable import MediaBatchCore
@testable import PipelineModel
import XCTest

final class PipelineDecoderTests: XCTestCase {
    let base = URL(fileURLWithPath: "/jobs/pipelines")

    func decode(_ json: String) throws -> Pipeline {
        try Pipeline.decode(Data(json.utf8), baseDirectory: base)
    }

    /// The message a document gets, as `path: message`.
    func failure(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try decode(json)
            XCTFail("expected an error", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func stages(_ list: String) -> String {
        #"{"version": 1, "stages": [\#(list)]}"#
    }

    func testIssueExampleDecodesWithTypedOptions() throws {
        let pipeline = try decode("""
            {
              "version": 1,
              "input":  { "root": "../samples", "include": ["**/*"], "exclude": ["**/.*"] },
              "output": { "root": "../out/web" },
              "limits": { "concurrency": 2, "memoryBudget": "1GiB", "maxPixels": 268402689 },
              "stages": [
                { "stage": "filter", "match": { "all": ["images", { "not": { "format": "gif" } }] } },
                { "stage": "decode" },
                { "stage": "downsample", "maxPixelSize": 2048 },
                { "stage": "transcode", "from": "heic", "to": "jpeg", "quality": 80 },
                { "stage": "stripLocation" },
                { "stage": "write", "path": "{dir}/{stem}.{ext}" }
              ]
            }
            """)
        XCTAssertEqual(pipeline.input.root?.path, "/jobs/samples")
        XCTAssertEqual(pipeline.output.root?.path, "/jobs/out/web")
        XCTAssertEqual(pipeline.limits, .init(concurrency: 2, memoryBudget: ByteSize(bytes: 1 << 30), maxPixels: 268_402_689,
                                              maxFileBytes: Defaults.maxFileBytes, maxFrames: Defaults.maxFrames,
                                              maxVideoDurationSeconds: Defaults.maxVideoDurationSeconds, maxVideoFrames: Defaults.maxVideoFrames,
                                              timeoutSeconds: Defaults.timeoutSeconds))
        XCTAssertEqual(pipeline.stages.map(\.name), [.filter, .decode, .downsample, .transcode, .stripMetadata, .write])
        assertStage(pipeline.stages[0], FilterStage(match: .all([.kind(.images), .not(.format([.gif]))]), livePhotoVideo: .keepWithStill))
        assertStage(pipeline.stages[2], DownsampleStage(box: Box(width: 2048, height: 2048)))
        assertStage(pipeline.stages[3], TranscodeStage(from: [.heic], to: .jpeg, quality: 80, effort: nil))
        assertStage(pipeline.stages[4], StripMetadataStage(edit: .remove([.location])))
    }

    func testStripMetadataNamesWhatGoesOrAllThatStays() throws {
        let remove = try decode(stages(
            #"{"stage": "decode"}, {"stage": "stripMetadata", "remove": ["location", "serialNumbers", "makerNotes"]}, {"stage": "write"}"#))
        assertStage(remove.stages[1], StripMetadataStage(edit: .remove([.location, .serialNumbers, .makerNotes])))
        let keep = try decode(stages(#"{"stage": "decode"}, {"stage": "stripMetadata", "keep": ["copyright", "icc"]}, {"stage": "write"}"#))
        assertStage(keep.stages[1], StripMetadataStage(edit: .keep([.copyright, .icc])))
        let nothing = try decode(stages(#"{"stage": "decode"}, {"stage": "stripMetadata", "keep": []}, {"stage": "write"}"#))
        assertStage(nothing.stages[1], StripMetadataStage(edit: .keep([])))
    }

    func testDefaultsFillWhatTheFileLeavesOut() throws {
        let pipeline = try decode(stages(#"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "write"}"#))
        XCTAssertNil(pipeline.input.root)
        XCTAssertEqual(pipeline.input.include.map(\.pattern), Defaults.include)
        XCTAssertEqual(pipeline.input.exclude.map(\.pattern), Defaults.exclude)
        XCTAssertEqual(pipeline.limits, .init(concurrency: nil, memoryBudget: Defaults.memoryBudget, maxPixels: nil,
                                              maxFileBytes: Defaults.maxFileBytes, maxFrames: Defaults.maxFrames,
                                              maxVideoDurationSeconds: Defaults.maxVideoDurationSeconds, maxVideoFrames: Defaults.maxVideoFrames,
                                              timeoutSeconds: Defaults.timeoutSeconds))
        XCTAssertEqual(pipeline.input.formats, Set(MediaFormat.inputs))
        XCTAssertEqual([pipeline.input.extensionMismatch == .fail, pipeline.input.followSymlinks, pipeline.input.trusted],
                       [true, false, false])
        XCTAssertEqual(pipeline.onError, .continue)
        assertStage(pipeline.stages[1], TranscodeStage(from: nil, to: .jpeg, quality: 80, effort: nil))
        guard let write = pipeline.stages[2] as? WriteStage else { return XCTFail("write expected") }
        XCTAssertEqual(write.path.text, WriteStage.defaultPath.text)
    }

    func testHostileInputOptionsDecode() throws {
        let pipeline = try decode("""
            {
              "version": 1,
              "input": { "formats": ["jpeg", "heic"], "extensionMismatch": "process", "followSymlinks": true, "trusted": true },
              "limits": { "maxFileBytes": "50MiB", "maxFrames": 10, "timeout": "2m" },
              "onError": "stop",
              "stages": [{ "stage": "decode" }]
            }
            """)
        XCTAssertEqual(pipeline.input.formats, [.jpeg, .heic])
        XCTAssertEqual(pipeline.input.extensionMismatch, .process)
        XCTAssertTrue(pipeline.input.followSymlinks)
        XCTAssertTrue(pipeline.input.trusted)
        XCTAssertEqual(pipeline.limits.maxFileBytes, ByteSize(bytes: 50 << 20))
        XCTAssertEqual(pipeline.limits.maxFrames, 10)
        XCTAssertEqual(pipeline.limits.timeoutSeconds, 120)
        XCTAssertEqual(pipeline.onError, .stop)
        XCTAssertEqual(try decode(#"{"version": 1, "limits": {"timeout": 45}, "stages": [{"stage": "decode"}]}"#).limits.timeoutSeconds, 45)
        XCTAssertEqual(try decode(#"{"version": 1, "limits": {"timeout": "1h"}, "stages": [{"stage": "decode"}]}"#).limits.timeoutSeconds, 3600)
    }

    func testTranscodeFromAcceptsAList() throws {
        let pipeline = try decode(stages(#"{"stage": "decode"}, {"stage": "transcode", "from": ["heic", "avif"], "to": "webp", "quality": 1}, {"stage": "write"}"#))
        assertStage(pipeline.stages[1], TranscodeStage(from: [.heic, .avif], to: .webp, quality: 1, effort: MediaFormat.webp.effort?.default))
    }

    func testTranscodeEffortIsInTheRangeOfTheFormatWritten() throws {
        func transcode(_ options: String) -> String { stages(#"{"stage": "decode"}, {"stage": "transcode", \#(options)}, {"stage": "write"}"#) }
        assertStage(try decode(transcode(#""to": "webp", "effort": 0"#)).stages[1], TranscodeStage(from: nil, to: .webp, quality: 80, effort: 0))
        assertStage(try decode(transcode(#""to": "avif", "effort": 9"#)).stages[1], TranscodeStage(from: nil, to: .avif, quality: 62, effort: 9))
        assertStage(try decode(transcode(#""to": "avif""#)).stages[1], TranscodeStage(from: nil, to: .avif, quality: 62, effort: 2))
        XCTAssertEqual(failure(transcode(#""to": "webp", "effort": 7"#)), "stages[1].effort: expected an integer from 0 to 6 for webp, found 7")
        XCTAssertEqual(failure(transcode(#""to": "avif", "effort": 10"#)), "stages[1].effort: expected an integer from 0 to 9, found 10")
        XCTAssertEqual(failure(transcode(#""to": "jpeg", "effort": 3"#)),
                       "stages[1].effort: expected no effort: jpeg takes none (webp 0–6, avif 0–9, jxl 1–9 do), found 3")
    }

    /// `hdr` on transcode and variants: keep by default, drop when asked, anything else named;
    /// the default leaves the fingerprint as pipelines written before the option had it.
    func testHDRIsKeptUnlessDroppedAndTheDefaultKeepsFingerprints() throws {
        func transcode(_ options: String) -> String { stages(#"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"\#(options)}, {"stage": "write"}"#) }
        let kept = try decode(transcode("")).stages[1], dropped = try decode(transcode(#", "hdr": "drop""#)).stages[1]
        assertStage(kept, TranscodeStage(from: nil, to: .jpeg, quality: 80, effort: nil, hdr: .keep))
        assertStage(dropped, TranscodeStage(from: nil, to: .jpeg, quality: 80, effort: nil, hdr: .drop))
        XCTAssertEqual(kept.fingerprint, "transcode(*->jpeg,q=80)")
        XCTAssertEqual(dropped.fingerprint, "transcode(*->jpeg,q=80,hdr=drop)")
        let variants = try decode(stages(#"{"stage": "decode"}, {"stage": "variants", "sizes": [640], "formats": ["jpeg"], "hdr": "drop"}, {"stage": "write"}"#))
        guard let options = variants.stage(VariantsStage.self) else { return XCTFail("no variants") }
        XCTAssertEqual(options.hdr, .drop)
        XCTAssertTrue(variants.stages[1].fingerprint.hasSuffix(",hdr=drop)"), variants.stages[1].fingerprint)
        XCTAssertEqual(failure(transcode(#", "hdr": "bright""#)), #"stages[1].hdr: expected keep or drop (one of keep, drop), found "bright""#)
    }

    /// `raw` on decode: auto by default (the stage's fingerprint as before the option), develop
    /// and preview when asked, anything else named with its JSON path.
    func testDecodeRawIsAutoUnlessAskedAndTheDefaultKeepsFingerprints() throws {
        func decoded(_ options: String) throws -> any Stage { try decode(stages(#"{"stage": "decode"\#(options)}, {"stage": "write"}"#)).stages[0] }
        assertStage(try decoded(""), DecodeStage(raw: .auto))
        assertStage(try decoded(#", "raw": "develop""#), DecodeStage(raw: .develop))
        assertStage(try decoded(#", "raw": "preview""#), DecodeStage(raw: .preview))
        XCTAssertEqual(try decoded("").fingerprint, "decode(animated=true)")
        XCTAssertEqual(try decoded(#", "raw": "develop""#).fingerprint, "decode(animated=true,raw=develop)")
        XCTAssertEqual(failure(stages(#"{"stage": "decode", "raw": "thumbnail"}, {"stage": "write"}"#)),
                       #"stages[0].raw: expected auto, develop or preview (one of auto, develop, preview), found "thumbnail""#)
        XCTAssertEqual(failure(stages(#"{"stage": "decode", "raw": true}, {"stage": "write"}"#)),
                       #"stages[0].raw: expected auto, develop or preview (one of auto, develop, preview), found true"#)
    }

    func testPosterMovieIsKeptUnlessDroppedAndTheDefaultKeepsFingerprints() throws {
        func decoded(_ options: String) throws -> any Stage {
            try decode(stages(#"{"stage": "decode"}, {"stage": "poster"\#(options)}, {"stage": "write"}"#)).stages[1]
        }
        assertStage(try decoded(""), PosterStage(at: .auto, movie: .keep))
        assertStage(try decoded(#", "movie": "drop", "at": "10%""#), PosterStage(at: .percent(10), movie: .drop))
        XCTAssertEqual(try decoded("").fingerprint, "poster(at=auto)", "keep, the default: the text from before the option")
        XCTAssertEqual(try decoded(#", "movie": "drop""#).fingerprint, "poster(at=auto,movie=drop)")
        XCTAssertTrue(PosterStage(movie: .drop).explanation(among: [])!.hasSuffix("through the image stages after it; the movie itself is not written"))
        XCTAssertFalse(PosterStage().explanation(among: [])!.contains("not written"))
        XCTAssertEqual(failure(stages(#"{"stage": "decode"}, {"stage": "poster", "movie": false}, {"stage": "write"}"#)),
                       #"stages[1].movie: expected keep or drop (one of keep, drop), found false"#)
        // Beside a video stage that comes before or after it.
        XCTAssertEqual(failure(stages(#"{"stage": "decode"}, {"stage": "video"}, {"stage": "poster", "movie": "drop"}, {"stage": "write"}"#)),
                       #"stages[2].movie: expected keep: the "video" stage (stages[1]) writes the movie's renditions, and drop writes no movie, found "drop""#)
        XCTAssertNoThrow(try decode(stages(#"{"stage": "decode"}, {"stage": "video"}, {"stage": "poster", "movie": "keep"}, {"stage": "write"}"#)))
    }

    func testMistakesNameTheJSONPathAndWhatWasExpected() {
        let cases: [(String, String)] = [
            (#"{"version": 1, "stages": [{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": "big"}, {"stage": "write"}]}"#,
             #"stages[1].maxPixelSize: expected a positive integer, found "big""#),
            (stages(#"{"stage": "resize"}"#),
             #"stages[0].stage: expected a stage name (one of \#(StageList.catalog.syntaxes.map(\.spelling).joined(separator: ", "))), found "resize""#),
            (stages(#"{"stage": "decode", "fast": true}"#),
             #"stages[0].fast: unknown key; expected one of "animated", "raw", "stage""#),
            (#"{"version": 2, "stages": [{"stage": "decode"}]}"#,
             "version: this mediabatch reads pipeline version 1, found 2; upgrade mediabatch"),
            (#"{"stages": [{"stage": "decode"}]}"#,
             #"missing required key "version""#),
            (stages(#"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg", "quality": 101}, {"stage": "write"}"#),
             "stages[1].quality: expected an integer from 1 to 100, found 101"),
            (stages(#"{"stage": "filter", "match": {"all": ["images", {"not": "photos"}]}}"#),
             #"stages[0].match.all[1].not: expected a media kind (one of "# + MediaKind.allCases.map(\.rawValue).joined(separator: ", ") + #"), found "photos""#),
            (stages(#"{"stage": "filter", "match": {"format": "svg"}}"#),
             #"stages[0].match.format: expected a format (one of jpeg, png, gif, webp, tiff, heic, avif, jxl, bmp, psd, dng, cr2, cr3, nef, arw, pef, srw, orf, rw2, raf, 3fr, iiq, crw, mrw, x3f, raw, mov, mp4, m4v, 3gp, 3g2, avi, mts, mpg, mkv, webm, wmv), found "svg""#),
            (stages(#"{"stage": "filter", "match": {"some": ["images"]}}"#),
             #"stages[0].match.some: unknown condition; expected one of "any", "all", "not", "format", "hasLocation", "hasGainMap", "minPixels", "maxPixels", "capturedAfter", "capturedBefore", "camera", "name""#),
            (stages(#"{"stage": "filter", "match": {"any": []}}"#),
             "stages[0].match.any: expected at least one condition"),
            (stages(#"{"stage": "filter", "match": "images", "livePhotoVideo": "keep"}"#),
             #"stages[0].livePhotoVideo: expected what to do with a Live Photo's movie (one of keepWithStill, drop), found "keep""#),
            (stages(#"{"stage": "filter", "match": {"camera": ""}}"#),
             #"stages[0].match.camera: expected a non-empty string, found """#),
            (#"{"version": 1, "limits": {"memoryBudget": "lots"}, "stages": [{"stage": "decode"}]}"#,
             #"limits.memoryBudget: expected a size such as "600MiB", "1GiB" or a number of bytes, found "lots""#),
            (#"{"version": 1, "limits": {"concurrency": 0}, "stages": [{"stage": "decode"}]}"#,
             "limits.concurrency: expected a positive integer, found 0"),
            (#"{"version": 1, "limits": {"timeout": "soon"}, "stages": [{"stage": "decode"}]}"#,
             #"limits.timeout: expected a duration such as "90s", "2m" or a number of seconds, found "soon""#),
            (#"{"version": 1, "limits": {"timeout": "0s"}, "stages": [{"stage": "decode"}]}"#,
             #"limits.timeout: expected a duration such as "90s", "2m" or a number of seconds, found "0s""#),
            (#"{"version": 1, "limits": {"maxFrames": -1}, "stages": [{"stage": "decode"}]}"#,
             "limits.maxFrames: expected a positive integer, found -1"),
            (#"{"version": 1, "input": {"formats": ["jpeg", "svg"]}, "stages": [{"stage": "decode"}]}"#,
             #"input.formats[1]: expected a format (one of jpeg, png, gif, webp, tiff, heic, avif, jxl, bmp, psd, dng, cr2, cr3, nef, arw, pef, srw, orf, rw2, raf, 3fr, iiq, crw, mrw, x3f, raw, mov, mp4, m4v, 3gp, 3g2, avi, mts, mpg, mkv, webm, wmv), found "svg""#),
            (#"{"version": 1, "input": {"formats": []}, "stages": [{"stage": "decode"}]}"#,
             "input.formats: expected at least one format"),
            (#"{"version": 1, "input": {"extensionMismatch": "ignore"}, "stages": [{"stage": "decode"}]}"#,
             #"input.extensionMismatch: expected what to do when a file's content contradicts its extension (one of fail, process), found "ignore""#),
            (#"{"version": 1, "input": {"trusted": "yes"}, "stages": [{"stage": "decode"}]}"#,
             #"input.trusted: expected true or false, found "yes""#),
            (#"{"version": 1, "onError": "abort", "stages": [{"stage": "decode"}]}"#,
             #"onError: expected what a failed item does to the run (one of continue, stop), found "abort""#),
            (stages(#"{"stage": "downsample", "maxPixelSize": 10}, {"stage": "decode"}, {"stage": "write"}"#),
             #"stages[0]: "downsample" needs a "decode" stage before it"#),
            (stages(#"{"stage": "stripMetadata", "keep": ["icc"]}, {"stage": "decode"}, {"stage": "write"}"#),
             #"stages[0]: "stripMetadata" needs a "decode" stage before it (a keep-list without icc or orientation converts or turns the pictures)"#),
            (stages(#"{"stage": "decode"}, {"stage": "write"}, {"stage": "stripLocation"}"#),
             #"stages[2]: "write" must be the last stage"#),
            (stages(#"{"stage": "decode", "animated": "yes"}, {"stage": "write"}"#),
             #"stages[0].animated: expected true or false, found "yes""#),
            (stages(#"{"stage": "decode"}, {"stage": "decode"}"#),
             #"stages[1]: "decode" appears twice; a pipeline runs each stage once"#),
            (stages(#"{"stage": "decode"}, {"stage": "stripLocation"}"#),
             #"stages: "stripLocation" has no effect without a "write" stage"#),
            (stages(#"{"stage": "decode"}, {"stage": "write", "path": "../{stem}.{ext}"}"#),
             #"stages[1].path: ".." would leave the output root, found "../{stem}.{ext}""#),
            (stages(#"{"stage": "decode"}, {"stage": "write", "path": "{dir}/{name}.{ext}"}"#),
             "stages[1].path: unknown placeholder {name}; expected {dir}, {stem}, {ext}, {inputExt}, {date:yyyy-MM-dd}, {hash:N}, {inputHash:N}, "
             + "{size}, {width}, {height} or {codec}"),
            (stages(#"{"stage": "decode"}, {"stage": "write", "path": "/tmp/{stem}.{ext}"}"#),
             #"stages[1].path: expected a path relative to the output root, found "/tmp/{stem}.{ext}""#),
            (stages(#"{"stage": "decode"}, {"stage": "stripMetadata", "remove": ["location", "faces"]}, {"stage": "write"}"#),
             #"stages[1].remove[1]: expected a metadata group (one of location, serialNumbers, cameraOwner, makerNotes, xmp, iptc), found "faces""#),
            (stages(#"{"stage": "decode"}, {"stage": "stripMetadata", "remove": []}, {"stage": "write"}"#),
             "stages[1].remove: expected at least one metadata group"),
            (stages(#"{"stage": "decode"}, {"stage": "stripMetadata"}, {"stage": "write"}"#),
             #"stages[1]: expected "remove" (the groups that go) or "keep" (all that stays)"#),
            (stages(#"{"stage": "decode"}, {"stage": "stripMetadata", "remove": ["xmp"], "keep": ["icc"]}, {"stage": "write"}"#),
             "stages[1].keep: keep and remove cannot be combined: keep names all that stays, remove what goes"),
            (stages(#"{"stage": "decode"}, {"stage": "stripMetadata", "keep": ["copyright", "gps"]}, {"stage": "write"}"#),
             #"stages[1].keep[1]: expected kept metadata (one of copyright, icc, orientation, camera, date, livePhoto, xmp, iptc), found "gps""#),
            (stages(#"{"stage": "decode"}, {"stage": "stripMetadata", "keep": ["icc", "icc"]}, {"stage": "write"}"#),
             "stages[1].keep[1]: this name appears twice"),
            (stages(#"{"stage": "decode"}, {"stage": "stripLocation", "remove": ["xmp"]}, {"stage": "write"}"#),
             #"stages[1].remove: unknown key; expected one of "stage""#),
            (stages(#"{"stage": "decode"}, {"stage": "stripLocation"}, {"stage": "stripMetadata", "remove": ["xmp"]}, {"stage": "write"}"#),
             #"stages[2]: "stripMetadata" appears twice; a pipeline runs each stage once"#),
            (#"{"version": 1, "stages": []}"#, "stages: expected at least one stage"),
            (#"{"version": 1, "stages": [], "extra": 1}"#, "stages: expected at least one stage"),
            (#"{"version": 1, "input": {"root": 5}, "stages": [{"stage": "decode"}]}"#,
             "input.root: expected a string, found 5"),
            (#"[1, 2]"#, "expected an object, found an array"),
        ]
        for (json, expected) in cases {
            XCTAssertEqual(failure(json), expected, json)
        }
    }

    /// Pixel stages in any order between them, and metadata edits without a `decode` (applied
    /// to the file as it is): refused only where an order means nothing.
    func testEveryOrderWithAMeaningIsAccepted() throws {
        let accepted = [
            #"{"stage": "stripLocation"}, {"stage": "write"}"#,
            #"{"stage": "stripMetadata", "keep": ["icc", "orientation"]}, {"stage": "filter", "match": "images"}, {"stage": "write"}"#,
            #"{"stage": "decode"}, {"stage": "transcode", "to": "jpeg"}, {"stage": "downsample", "maxPixelSize": 10}, {"stage": "write"}"#,
            #"{"stage": "decode"}, {"stage": "stripMetadata", "keep": []}, {"stage": "transcode", "to": "png"}, {"stage": "downsample", "maxPixelSize": 10}, {"stage": "write"}"#,
            #"{"stage": "decode"}, {"stage": "stripMetadata", "keep": []}, {"stage": "variants", "sizes": [10], "formats": ["jpeg"]}, {"stage": "write"}"#,
        ]
        for list in accepted {
            XCTAssertNoThrow(try Pipeline.decode(Data(stages(list).utf8), baseDirectory: URL(fileURLWithPath: "/")), list)
        }
    }

    func testVariantsDecodeWithEachFormatsQuality() throws {
        let pipeline = try decode(stages(#"""
            {"stage": "decode"}, {"stage": "variants", "sizes": [640, 1280], "formats": ["avif", "webp", "png"],
             "quality": {"webp": 75}, "placeholder": "thumbhash"}, {"stage": "write", "path": "{stem}-{width}.{ext}"}
            """#))
        guard let variants = pipeline.stage(VariantsStage.self) else { return XCTFail("no variants") }
        XCTAssertEqual(variants.sizes, [640, 1280])
        XCTAssertEqual(variants.formats, [.avif, .webp, .png])
        XCTAssertEqual(variants.quality, [.avif: MediaFormat.avif.quality!.default, .webp: 75], "PNG is lossless: no quality")
        XCTAssertEqual(variants.effort, [.avif: MediaFormat.avif.effort!.default, .webp: MediaFormat.webp.effort!.default], "PNG takes no effort")
        XCTAssertEqual(variants.placeholder, .thumbhash)
    }

    func testVariantsMistakesNameBothStagesOrWhatIsMissing() {
        let variants = #"{"stage": "variants", "sizes": [320, 640], "formats": ["webp", "jpeg"]}"#
        let write = #"{"stage": "write", "path": "{stem}-{size}.{ext}"}"#, decode = #"{"stage": "decode"}"#
        func only(_ options: String) -> String { stages(#"\#(decode), {"stage": "variants", \#(options)}, \#(write)"#) }
        let combination = #"cannot be combined: "variants" sizes and encodes every output itself, in place of "downsample" and "transcode""#
        let cases: [(String, String)] = [
            (stages(#"\#(decode), {"stage": "downsample", "maxPixelSize": 100}, \#(variants), \#(write)"#),
             #"stages[2]: "variants" and "downsample" (stages[1]) \#(combination)"#),
            (stages(#"\#(decode), \#(variants), {"stage": "transcode", "to": "jpeg"}, \#(write)"#),
             #"stages[2]: "transcode" and "variants" (stages[1]) \#(combination)"#),
            (stages(#"\#(decode), \#(variants), {"stage": "write", "path": "{stem}.{ext}"}"#),
             #"stages[2].path: with 2 variant sizes, expected {size} or {width} in "{stem}.{ext}", or every size would be written to the same file"#),
            (stages(#"\#(decode), {"stage": "variants", "sizes": [320], "formats": ["webp", "jpeg"]}, {"stage": "write", "path": "{stem}-{size}"}"#),
             #"stages[2].path: with 2 variant formats, expected {ext} in "{stem}-{size}", or every format would be written to the same file"#),
            (stages(#"\#(decode), {"stage": "write", "path": "{stem}-{width}.{ext}"}"#),
             #"stages[1].path: {width} names a variant: it needs a "variants" stage"#),
            (only(#""sizes": [], "formats": ["jpeg"]"#), "stages[1].sizes: expected at least one size"),
            (only(#""sizes": [320, 320], "formats": ["jpeg"]"#), "stages[1].sizes[1]: this size appears twice"),
            (only(#""sizes": [0], "formats": ["jpeg"]"#), "stages[1].sizes[0]: expected a positive integer, found 0"),
            (only(#""sizes": [320], "formats": ["jpeg", "gif"]"#),
             #"stages[1].formats[1]: expected an output format (one of jpeg, png, webp, avif, heic, jxl), found "gif""#),
            (only(#""sizes": [320], "formats": ["jpeg", "png"], "quality": {"png": 50}"#),
             #"stages[1].quality.png: expected a lossy format (one of jpeg, webp, avif, heic, jxl), found "png""#),
            (only(#""sizes": [320], "formats": ["jpeg"], "quality": {"webp": 50}"#),
             #"stages[1].quality.webp: expected one of this stage's formats that takes quality (jpeg), found "webp""#),
            (only(#""sizes": [320], "formats": ["jpeg"], "quality": {"jpeg": 101}"#),
             "stages[1].quality.jpeg: expected an integer from 1 to 100, found 101"),
            (only(#""sizes": [320], "formats": ["jpeg", "webp"], "effort": {"webp": 7}"#),
             "stages[1].effort.webp: expected an integer from 0 to 6, found 7"),
            (only(#""sizes": [320], "formats": ["jpeg", "webp"], "effort": {"jpeg": 1}"#),
             #"stages[1].effort.jpeg: expected a format with an effort (one of webp, avif, jxl), found "jpeg""#),
            (only(#""sizes": [320], "formats": ["jpeg", "webp"], "effort": {"avif": 1}"#),
             #"stages[1].effort.avif: expected one of this stage's formats that takes effort (webp), found "avif""#),
            (only(#""sizes": [320], "formats": ["jpeg", "webp"], "effort": {"webp": "fast"}"#),
             #"stages[1].effort.webp: expected an integer from 0 to 6, found "fast""#),
            (only(#""sizes": [320], "formats": ["jpeg"], "placeholder": "blurhash""#),
             #"stages[1].placeholder: expected a placeholder (one of thumbhash), found "blurhash""#),
            (stages(#"\#(variants), \#(decode), \#(write)"#), #"stages[0]: "variants" needs a "decode" stage before it"#),
            (stages(#"\#(decode), \#(variants)"#), #"stages: "variants" has no effect without a "write" stage"#),
            (#"{"version": 1, "output": {"manifest": "../m.json"}, "stages": [\#(decode)]}"#,
             #"output.manifest: expected a file path relative to the output root, without empty, "." or ".." parts, found "../m.json""#),
        ]
        for (json, expected) in cases {
            XCTAssertEqual(failure(json), expected, json)
        }
    }

    func testUnknownTopLevelKeyIsAnError() {
        XCTAssertEqual(failure(#"{"version": 1, "stages": [{"stage": "decode"}], "stagez": []}"#),
                       #"stagez: unknown key; expected one of "$schema", "input", "limits", "onError", "output", "stages", "version""#)
    }

    /// Editors read "$schema" (`mediabatch schema` prints what it should point at); mediabatch ignores it.
    func testSchemaKeyIsAllowedAtTopLevelOnlyAndMustBeAString() throws {
        let pipeline = try Pipeline.decode(Data(#"{"$schema": "file:///usr/share/mediabatch/pipeline.schema.json", "version": 1, "stages": [{"stage": "decode"}]}"#.utf8),
                                           baseDirectory: base)
        XCTAssertEqual(pipeline.stages.count, 1)
        assertStage(pipeline.stages[0], DecodeStage())
        let failures = [
            #"{"$schema": 1, "version": 1, "stages": [{"stage": "decode"}]}"#: "$schema: expected a string, found 1",
            #"{"$id": "x", "version": 1, "stages": [{"stage": "decode"}]}"#:
                #"$id: unknown key; expected one of "$schema", "input", "limits", "onError", "output", "stages", "version""#,
            #"{"version": 1, "input": {"$schema": "x"}, "stages": [{"stage": "decode"}]}"#:
                #"input.$schema: unknown key; expected one of "duplicates", "exclude", "extensionMismatch", "followSymlinks", "formats", "include", "rawJpegPairs", "root", "sidecars", "timeZone", "trusted""#,
            #"{"version": 1, "stages": [{"stage": "decode", "$schema": "x"}]}"#: #"stages[0].$schema: unknown key; expected one of "animated", "raw", "stage""#,
        ]
        for (json, message) in failures {
            XCTAssertThrowsError(try Pipeline.decode(Data(json.utf8), baseDirectory: base), json) { XCTAssertEqual("\($0)", message) }
        }
    }

    func testSyntaxErrorsSayTheFileIsNotJSON() {
        XCTAssertTrue(failure(#"{"version": 1,"#).hasPrefix("not valid JSON"))
    }

    func testLoadPrefixesTheFileName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("pipeline.json")
        try Data(stages(#"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": "big"}, {"stage": "write"}"#).utf8).write(to: file)
        XCTAssertThrowsError(try Pipeline.load(contentsOf: file, displayName: "pipeline.json")) { error in
            XCTAssertEqual("\(error)", #"pipeline.json: stages[1].maxPixelSize: expected a positive integer, found "big""#)
        }
    }
}
