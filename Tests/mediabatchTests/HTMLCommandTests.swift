import Foundation
import MediaBatchCore
import MediaTestSupport
import TestSupport
import XCTest

/// `mediabatch html` over a real run's manifest, its markup parsed by Python's `html.parser`
/// and checked against the manifest: every variant in a `srcset` at its width, the formats a
/// browser may not show as `<source>`s, the JPEG as the sized `<img>`, the photo's caption (as
/// exiftool reads it) as alt text, the ThumbHash; `--json` says the same.
final class HTMLCommandTests: XCTestCase {
    /// Start tags in order, each with its attributes, as Python's HTML parser reads them.
    static let parser = """
        import html.parser, json, sys
        class Tags(html.parser.HTMLParser):
            def __init__(self):
                super().__init__(); self.tags = []
            def handle_starttag(self, tag, attrs):
                self.tags.append({"tag": tag, "attrs": dict(attrs)})
        tags = Tags(); tags.feed(open(sys.argv[1], encoding="utf-8").read()); tags.close(); print(json.dumps(tags.tags))
        """

    struct Tag: Decodable {
        let tag: String
        let attrs: [String: String?]
        subscript(_ name: String) -> String? { attrs[name] ?? nil }
    }

    func testMarkupMatchesTheManifest() throws {
        let input = Fixtures.temporaryFolder("html-in"), output = Fixtures.temporaryFolder("html-out")
        for sample in ["jpeg/canon_eos_7d_iptc_city.jpg", "jpeg/iptc_reference_2019.jpg", "jpeg/apple_iphone_4.jpg"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: input.appendingPathComponent((sample as NSString).lastPathComponent).path)
        }
        let pipeline = Fixtures.temporaryFolder("html-pipeline").appendingPathComponent("p.json")
        try Data(#"""
            {"version": 1, "stages": [{"stage": "decode"},
              {"stage": "variants", "sizes": [160, 320], "formats": ["webp", "jpeg"], "placeholder": "thumbhash"},
              {"stage": "write", "path": "{stem} {size}.{ext}"}]}
            """#.utf8).write(to: pipeline)
        let manifestURL = output.appendingPathComponent("manifest.json")
        let ran = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                            "--quiet", "--manifest", manifestURL.path])
        XCTAssertEqual(ran.exitCode, 0, ran.stderr)
        let manifest = try ManifestDocument.read(manifestURL)
        let captions = try Dictionary(uniqueKeysWithValues: manifest.items.map { ($0.input, try Self.caption(input.appendingPathComponent($0.input))) })
        let printed = try runProcess(Fixtures.executable.path, ["html", manifestURL.path, "--base-url", "https://cdn.example/img/",
                                                                "--sizes", "(max-width: 600px) 100vw, 600px", "--class", "photo"])
        XCTAssertEqual(printed.exitCode, 0, printed.stderr)
        let markup = output.appendingPathComponent("../\(output.lastPathComponent).html").standardizedFileURL
        try Data(printed.stdout.utf8).write(to: markup)
        let parsed = try runProcess("python3", ["-c", Self.parser, markup.path])
        let tags = try JSONDecoder().decode([Tag].self, from: Data(parsed.stdout.utf8))
        XCTAssertEqual(tags.map(\.tag), Array(repeating: ["picture", "source", "img"], count: 3).flatMap { $0 })
        for (index, item) in manifest.items.enumerated() {
            let source = tags[index * 3 + 1], img = tags[index * 3 + 2]
            XCTAssertEqual(source["type"], "image/webp", item.input)
            XCTAssertEqual(source["srcset"], Self.srcset(item, "webp"), item.input)
            XCTAssertEqual(source["sizes"], "(max-width: 600px) 100vw, 600px")
            let jpegs = item.variants.filter { $0.format == "jpeg" }
            XCTAssertEqual(img["srcset"], Self.srcset(item, "jpeg"), item.input)
            XCTAssertEqual(img["src"], Self.url(jpegs.last!.path))
            XCTAssertEqual(img["width"], jpegs.last!.width.map(String.init))
            XCTAssertEqual(img["height"], jpegs.last!.height.map(String.init))
            XCTAssertEqual(img["alt"], captions[item.input], item.input)
            XCTAssertEqual([img["loading"], img["decoding"], img["class"]], ["lazy", "async", "photo"])
            XCTAssertEqual(img["data-thumbhash"], item.placeholder)
        }
        XCTAssertEqual(tags.compactMap { $0["alt"] }.filter { !$0.isEmpty }.count, 2, "the two photos with captions")

        let json = try runProcess(Fixtures.executable.path, ["html", manifestURL.path, "--json"])
        let elements = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(elements.map { $0["input"] as? String }, manifest.items.map(\.input))
        XCTAssertEqual(elements.map { $0["alt"] as? String }, manifest.items.map { captions[$0.input] })
    }

    /// A movie with a poster is a `<video>` at the movie's size showing the poster's largest JPEG,
    /// fetching nothing of the movie before it is played; the movie's own output is its source.
    /// `stages` run over a movie (the iPhone 6 one unless told) as `clip.mov`: the output folder and its manifest.
    func runOverAMovie(_ stages: String, sample: String = "video/iphone6_with-gps.mov") throws -> (output: URL, manifest: URL) {
        let input = Fixtures.temporaryFolder("html-in"), output = Fixtures.temporaryFolder("html-out")
        try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: input.appendingPathComponent("clip.mov").path)
        let pipeline = Fixtures.temporaryFolder("html-pipeline").appendingPathComponent("p.json")
        try Data(#"{"version": 1, "stages": [\#(stages)]}"#.utf8).write(to: pipeline)
        let manifest = output.appendingPathComponent("manifest.json")
        let ran = try runProcess(Fixtures.executable.path, ["run", pipeline.path, "--input", input.path, "--output", output.path,
                                                            "--quiet", "--manifest", manifest.path])
        XCTAssertEqual(ran.exitCode, 0, ran.stderr)
        return (output, manifest)
    }

    /// What `html` prints for `manifest`, and its tags as Python's `html.parser` reads them.
    func printedTags(_ manifest: URL) throws -> (text: String, tags: [Tag]) {
        let printed = try runProcess(Fixtures.executable.path, ["html", manifest.path])
        let markup = Fixtures.temporaryFolder("html-markup").appendingPathComponent("video.html")
        try Data(printed.stdout.utf8).write(to: markup)
        return (printed.stdout, try JSONDecoder().decode([Tag].self, from: Data(try runProcess("python3", ["-c", Self.parser, markup.path]).stdout.utf8)))
    }

    func testAMovieIsAVideoWithItsPoster() throws {
        let (_, manifestURL) = try runOverAMovie(#"""
            {"stage": "decode"}, {"stage": "poster"}, {"stage": "variants", "sizes": [160, 320], "formats": ["webp", "jpeg"]},
            {"stage": "stripLocation"}, {"stage": "write", "path": "{stem}-{size}.{ext}", "posterPath": "{stem}-poster-{size}.{ext}"}
            """#)
        let variants = try XCTUnwrap(try ManifestDocument.read(manifestURL).items.first?.variants)
        let movie = try XCTUnwrap(variants.first { $0.role == .video })
        let duration = try runProcess("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                                  Fixtures.sample("video/iphone6_with-gps.mov")]).stdout
        XCTAssertEqual([movie.width, movie.height], [320, 568], "the movie as shown, turned upright")
        XCTAssertEqual(movie.codec, "h264")
        XCTAssertEqual(try XCTUnwrap(movie.duration), try XCTUnwrap(Double(duration.trimmingCharacters(in: .whitespacesAndNewlines))), accuracy: 0.001)
        let poster = try XCTUnwrap(variants.filter { $0.role == .poster && $0.format == "jpeg" }.max { ($0.width ?? 0) < ($1.width ?? 0) })
        let (printed, tags) = try printedTags(manifestURL)
        XCTAssertEqual(tags.map(\.tag), ["video", "source"], printed)
        XCTAssertEqual([tags[0]["poster"], tags[0]["width"], tags[0]["height"], tags[0]["preload"]],
                       [poster.path, movie.width.map(String.init), movie.height.map(String.init), "none"])
        XCTAssertEqual([tags[1]["src"], tags[1]["type"]], [movie.path, "video/quicktime"])
    }

    /// A poster without its movie (`movie: drop`) is a picture: `<picture>` with the poster's
    /// sizes, no `<video>`.
    func testAPosterWithoutItsMovieIsAPicture() throws {
        let (_, manifestURL) = try runOverAMovie(#"""
            {"stage": "decode"}, {"stage": "poster", "movie": "drop"}, {"stage": "variants", "sizes": [160, 320], "formats": ["jpeg"]},
            {"stage": "write", "path": "{stem}-{size}.{ext}", "posterPath": "{stem}-poster-{size}.{ext}"}
            """#)
        let variants = try XCTUnwrap(try ManifestDocument.read(manifestURL).items.first?.variants)
        XCTAssertEqual(variants.map(\.role), [.poster, .poster])
        XCTAssertEqual(variants.map(\.path), ["clip-poster-160.jpg", "clip-poster-320.jpg"])
        let (printed, tags) = try printedTags(manifestURL)
        XCTAssertEqual(tags.map(\.tag), ["picture", "img"], printed)
        XCTAssertEqual(tags[1]["src"], "clip-poster-320.jpg", printed)
        XCTAssertEqual(tags[1]["srcset"], "clip-poster-160.jpg 90w, clip-poster-320.jpg 180w", printed)
    }

    /// Renditions in two codecs: AV1 first, H.264 (which every browser plays) last, each `type`
    /// naming its codecs as RFC 6381 does, so that a browser skips what it cannot play. A 1 s movie:
    /// AV1 encodes are slow.
    func testRenditionsAreSourcesWithTheirCodecsAV1First() throws {
        let (output, manifestURL) = try runOverAMovie(#"""
            {"stage": "decode"}, {"stage": "poster"}, {"stage": "video", "codec": ["h264", "av1"], "maxPixelSize": 320},
            {"stage": "write", "path": "{stem}.{codec}.{ext}"}
            """#, sample: "video/xmp480qt.mov")
        let variants = try XCTUnwrap(try ManifestDocument.read(manifestURL).items.first?.variants)
        XCTAssertEqual(variants.filter { $0.role == .video }.map(\.codec), ["av1", "h264"])
        let (printed, tags) = try printedTags(manifestURL)
        XCTAssertEqual(tags.map(\.tag), ["video", "source", "source"], printed)
        XCTAssertEqual(tags.dropFirst().map { $0["src"] }, ["clip.av1.mp4", "clip.h264.mp4"])
        for (tag, codec) in zip(tags.dropFirst(), ["av1", "h264"]) {
            let level = try XCTUnwrap(try Movies.probe(output.appendingPathComponent("clip.\(codec).mp4").path).streams.first?["level"] as? Int)
            let expected = codec == "av1" ? String(format: "av01.0.%02dM.08", level) : String(format: "avc1.6400%02X", level)
            XCTAssertEqual(tag["type"], "video/mp4; codecs=\"\(expected)\"", "as ffprobe reads \(codec)'s level")
        }
    }

    func testAFileThatIsNotAManifestExits2() throws {
        let file = Fixtures.temporaryFolder("html-bad").appendingPathComponent("m.json")
        try Data(#"{"items": 3}"#.utf8).write(to: file)
        let result = try runProcess(Fixtures.executable.path, ["html", file.path])
        XCTAssertEqual(result.exitCode, 2, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("error: "), result.stderr)
    }

    static func url(_ path: String) -> String {
        "https://cdn.example/img/" + path.replacingOccurrences(of: " ", with: "%20")
    }

    static func srcset(_ item: Manifest.Item, _ format: String) -> String {
        item.variants.filter { $0.format == format }.map { "\(url($0.path)) \($0.width!)w" }.joined(separator: ", ")
    }

    /// XMP dc:description, else IPTC Caption-Abstract, as exiftool reads them; empty without.
    static func caption(_ file: URL) throws -> String {
        let read = try runProcess("exiftool", ["-s3", "-XMP-dc:Description", "-IPTC:Caption-Abstract", file.path])
        return read.stdout.split(separator: "\n").first.map(String.init) ?? ""
    }
}
