import Foundation
@testable import MediaBatchCore
import MediaTestSupport
import PipelineModel
import TestSupport
import VipsKit
import XCTest

/// A library folder mixing every date source and sidecar style, made with exiftool at test time, copied
/// into dated folders with its location stripped: every output in its month, every sidecar beside its
/// output, no location anywhere exiftool looks, every other tag kept; and the incremental move.
final class SidecarFilesTests: XCTestCase, RunsPipelines {
    static let byDate = #"{"stage": "stripLocation"}, {"stage": "write", "path": "{date:yyyy}/{date:MM}/{stem}.{ext}"}"#

    override func setUpWithError() throws {
        try Vips.start()
    }

    /// An XMP sidecar for `photo` as exiftool writes one (`-o`), with a location, a rating and a keyword.
    private func xmpSidecar(_ path: String, from photo: String, _ tags: [String] = []) throws {
        let gps = Fixtures.sample("jpeg/nikon_d5000_xmp_gps_only.jpg")
        let made = try runProcess("exiftool", ["-q", "-o", path, "-TagsFromFile", gps, "-xmp:all", "-XMP-xmp:Rating=4",
                                               "-XMP-dc:Subject=harbour", "-XMP-photoshop:City=Paris"] + tags + [photo])
        XCTAssertEqual(made.exitCode, 0, made.stderr)
    }

    private static let takeout = #"""
        {
          "title": "PXL_20230102_030405123.jpg",
          "description": "the harbour",
          "photoTakenTime": {"timestamp": "1672628645", "formatted": "2 Jan 2023, 03:04:05 UTC"},
          "geoData": {"latitude": 48.8584, "longitude": 2.2945, "altitude": 35.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0},
          "geoDataExif": {"latitude": 48.8584, "longitude": 2.2945, "altitude": 35.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0},
          "people": [{"name": "Ann"}]
        }
        """#

    /// The library: a photo and its darktable XMP; a dateless photo dated by its Lightroom XMP; a Pixel photo
    /// with its Takeout JSON; a photo with Apple's AAE; a Live Photo; a RAW+JPEG pair with the RAW's XMP;
    /// a sidecar without its photo and a malformed one.
    private func library() throws -> URL {
        let folder = Fixtures.temporaryFolder()
        func file(_ name: String) -> String { folder.appendingPathComponent(name).path }
        _ = try CaptureTimeTests.photo("IMG_0001.jpg", in: folder, tags: ["-DateTimeOriginal=2023:12:24 18:30:00", "-OffsetTimeOriginal=+01:00",
                                                                          "-GPSLatitude=48.8", "-GPSLatitudeRef=N", "-Artist=Ann"])
        try xmpSidecar(file("IMG_0001.jpg.xmp"), from: file("IMG_0001.jpg"))
        _ = try CaptureTimeTests.photo("DSC_0002.jpg", in: folder)
        try xmpSidecar(file("DSC_0002.xmp"), from: file("DSC_0002.jpg"), ["-XMP-photoshop:DateCreated=2022-05-01T10:00:00+02:00"])
        _ = try CaptureTimeTests.photo("PXL_20230102_030405123.jpg", in: folder)
        try Data(Self.takeout.utf8).write(to: URL(fileURLWithPath: file("PXL_20230102_030405123.jpg.json")))
        _ = try CaptureTimeTests.photo("IMG_0003.jpg", in: folder, tags: ["-DateTimeOriginal=2021:08:01 09:00:00"])
        try Data(Self.aae.utf8).write(to: URL(fileURLWithPath: file("IMG_0003.AAE")))
        for half in ["train.jpg", "train.mov"] { try FileManager.default.copyItem(atPath: Fixtures.sample("livephoto/" + half), toPath: file(half)) }
        try DevelopableDNG.write(to: URL(fileURLWithPath: file("IMG_0004.dng")), width: 400)
        _ = try CaptureTimeTests.photo("IMG_0004.jpg", in: folder)
        let dated = try runProcess("exiftool", ["-q", "-overwrite_original", "-DateTimeOriginal=2020:02:02 20:20:20", file("IMG_0004.dng"), file("IMG_0004.jpg")])
        XCTAssertEqual(dated.exitCode, 0, dated.stderr)
        try xmpSidecar(file("IMG_0004.xmp"), from: file("IMG_0004.jpg"))
        try xmpSidecar(file("lonely.jpg.xmp"), from: file("IMG_0001.jpg"))
        _ = try CaptureTimeTests.photo("broken.jpg", in: folder, tags: ["-DateTimeOriginal=2019:01:01 00:00:00"])
        try Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF".utf8).write(to: URL(fileURLWithPath: file("broken.jpg.xmp")))
        return folder
    }

    static let aae = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict>
        <key>adjustmentBaseVersion</key><integer>0</integer>
        <key>adjustmentData</key><data>bWVkaWFiYXRjaA==</data>
        <key>adjustmentEditorBundleID</key><string>com.apple.mobileslideshow</string>
        <key>adjustmentFormatIdentifier</key><string>com.apple.photo</string>
        <key>adjustmentFormatVersion</key><string>1.4</string>
        <key>adjustmentTimestamp</key><date>2021-08-01T09:05:00Z</date>
        </dict></plist>
        """

    /// exiftool's location tags of a file (GPS, XMP places, Takeout's geoData as exiftool's JSON reader names it), non-zero.
    private func locations(_ path: String) throws -> [String: Any] {
        try exiftool(path).filter { key, value in
            let location = key.contains("GPS") || key.hasSuffix(":City") || key.contains("GeoData") || key.contains("Location")
            return location && "\(value)" != "0" && "\(value)" != "0.0"
        }
    }

    private func sidecars(_ item: ItemResult?) -> [String: String] {
        guard case .array(let entries)? = item?.readings["sidecars"] else { return [:] }
        return Dictionary(entries.compactMap { entry -> (String, String)? in
            guard case .object(let fields) = entry, case .string(let source)? = fields["source"] else { return nil }
            if case .string(let path)? = fields["path"] { return (source, path) }
            if case .string(let error)? = fields["error"] { return (source, "error: " + error) }
            return nil
        }) { first, _ in first }
    }

    func testALibraryByDateWithItsSidecarsAndNoLocation() throws {
        let input = try library()
        let output = Fixtures.temporaryFolder()
        let pipeline = try pipeline(Self.byDate, input: #"{"rawJpegPairs": "both"}"#)
        let report = try Self.run(pipeline, input: input, output: output)
        let expected = [("IMG_0001.jpg", "2023/12/IMG_0001.jpg", ["IMG_0001.jpg.xmp": "2023/12/IMG_0001.jpg.xmp"]),
                        ("DSC_0002.jpg", "2022/05/DSC_0002.jpg", ["DSC_0002.xmp": "2022/05/DSC_0002.xmp"]),
                        ("PXL_20230102_030405123.jpg", "2023/01/PXL_20230102_030405123.jpg",
                         ["PXL_20230102_030405123.jpg.json": "2023/01/PXL_20230102_030405123.jpg.json"]),
                        ("IMG_0003.jpg", "2021/08/IMG_0003.jpg", ["IMG_0003.AAE": "2021/08/IMG_0003.AAE"]),
                        ("train.jpg", "2021/04/train.jpg", [:]), ("train.mov", "2021/04/train.mov", [:]),
                        ("IMG_0004.dng", "2020/02/IMG_0004.dng", ["IMG_0004.xmp": "2020/02/IMG_0004.xmp"]),
                        ("IMG_0004.jpg", "2020/02/IMG_0004.jpg", [:]),
                        ("broken.jpg", "2019/01/broken.jpg", [:])]
        for (name, written, sidecars) in expected {
            let item = result(report, name)
            XCTAssertEqual(item?.status, .ok, "\(String(describing: item))")
            XCTAssertEqual(item?.output, written, name)
            if !sidecars.isEmpty { XCTAssertEqual(self.sidecars(item), sidecars, name) }
        }
        XCTAssertTrue(sidecars(result(report, "broken.jpg"))["broken.jpg.xmp"]?.hasPrefix("error: ") == true, "\(sidecars(result(report, "broken.jpg")))")
        XCTAssertEqual(result(report, "lonely.jpg.xmp")?.status, .skipped)
        XCTAssertEqual(result(report, "lonely.jpg.xmp")?.reason, "a sidecar without its photo: not copied")
        XCTAssertEqual(report.items.count, expected.count + 1, "no sidecar is an item but the lonely one: \(report.items.map(\.input))")
        let written = try FileManager.default.subpathsOfDirectory(atPath: output.path).filter { !$0.hasPrefix(".") && !$0.contains("/.") }
            .filter { (try? FileManager.default.attributesOfItem(atPath: output.appendingPathComponent($0).path)[.type] as? FileAttributeType) == .typeRegular }
        XCTAssertEqual(written.count, 14, "\(written.sorted())")
        for path in written {
            XCTAssertEqual(try locations(output.appendingPathComponent(path).path).keys.sorted(), [], path)
        }
        try assertEverythingElseKept(input.appendingPathComponent("IMG_0001.jpg.xmp").path, output.appendingPathComponent("2023/12/IMG_0001.jpg.xmp").path)
        try assertEverythingElseKept(input.appendingPathComponent("PXL_20230102_030405123.jpg.json").path,
                                     output.appendingPathComponent("2023/01/PXL_20230102_030405123.jpg.json").path)
        XCTAssertEqual(try Data(contentsOf: output.appendingPathComponent("2021/08/IMG_0003.AAE")), Data(Self.aae.utf8), "an AAE is copied as it is")
        XCTAssertEqual(try exiftool(output.appendingPathComponent("2023/12/IMG_0001.jpg").path)["IFD0:Artist"] as? String, "Ann")
    }

    /// exiftool reads every tag of `original` but its location in `copy`, with the same values.
    private func assertEverythingElseKept(_ original: String, _ copy: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try exiftool(original), after = try exiftool(copy)
        let location = try locations(original)
        XCTAssertFalse(location.isEmpty, "the sidecar had a location", file: file, line: line)
        for (key, value) in before where location[key] == nil && !key.hasPrefix("System:") && !key.hasPrefix("File:") && key != "SourceFile" {
            XCTAssertEqual("\(after[key] ?? "missing")", "\(value)", key, file: file, line: line)
        }
    }

    /// A sidecar's new date moves the photo and its sidecar on the next run; `--prune` removes the old.
    func testADateChangedInASidecarMovesThePhoto() throws {
        let input = try library()
        let output = Fixtures.temporaryFolder()
        let state = output.appendingPathComponent(".mediabatch/state.sqlite")
        let pipeline = try pipeline(Self.byDate)
        _ = try Self.run(pipeline, input: input, output: output, statePath: state)
        let sidecar = input.appendingPathComponent("DSC_0002.xmp").path
        let edited = try runProcess("exiftool", ["-q", "-overwrite_original", "-XMP-photoshop:DateCreated=2021-01-02T10:00:00+02:00", sidecar])
        XCTAssertEqual(edited.exitCode, 0, edited.stderr)
        let again = try Self.run(pipeline, input: input, output: output, statePath: state)
        XCTAssertEqual(result(again, "DSC_0002.jpg")?.output, "2021/01/DSC_0002.jpg")
        XCTAssertEqual(result(again, "IMG_0001.jpg")?.status, .unchanged)
        for moved in ["2021/01/DSC_0002.jpg", "2021/01/DSC_0002.xmp", "2022/05/DSC_0002.jpg"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(moved).path), moved)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("2020/02/IMG_0004.xmp").path),
                      "the skipped RAW's XMP goes with the JPEG written")
        _ = try Self.run(pipeline, input: input, output: output, statePath: state, prune: true)
        for gone in ["2022/05/DSC_0002.jpg", "2022/05/DSC_0002.xmp"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent(gone).path), gone)
        }
    }

    /// A location that lives only in a sidecar (an XMP's, Takeout's geoData) counts for `hasLocation`.
    func testALocationInASidecarAloneCounts() throws {
        let input = try library()
        let filter = #"{"stage": "filter", "match": {"hasLocation": true}}, "# + Self.byDate
        let report = try Self.run(try pipeline(filter), input: input, output: Fixtures.temporaryFolder())
        for placed in ["DSC_0002.jpg", "PXL_20230102_030405123.jpg"] { XCTAssertEqual(result(report, placed)?.status, .ok, placed) }
        XCTAssertEqual(result(report, "IMG_0003.jpg")?.status, .skipped, "neither the photo nor its AAE places it")
    }

    /// A skipped RAW's sidecars go to its JPEG, but for one the JPEG has of the same kind and style, whose
    /// copy would take the same name.
    func testASkippedRawsSidecarsGoToItsJpegWithoutTwoOfAName() throws {
        let root = URL(fileURLWithPath: "/nowhere")
        func sidecar(_ name: String, for media: String, _ style: SidecarStyle) -> Sidecar {
            Sidecar(relativePath: name, match: SidecarMatch(sidecar: name, media: media, kind: .xmp, style: style))
        }
        var raw = InputItem(root: root, relativePath: "IMG_1.CR2"), jpeg = InputItem(root: root, relativePath: "IMG_1.JPG")
        raw.rawJpegPair = RawJpegPair(role: .raw, partner: "IMG_1.JPG", processed: false)
        jpeg.rawJpegPair = RawJpegPair(role: .jpeg, partner: "IMG_1.CR2", processed: true)
        raw.sidecars = [sidecar("IMG_1.CR2.xmp", for: "IMG_1.CR2", .appended), sidecar("IMG_1.xmp", for: "IMG_1.CR2", .replaced)]
        jpeg.sidecars = [sidecar("IMG_1.JPG.xmp", for: "IMG_1.JPG", .appended)]
        let handed = SidecarPairer.handOver([raw, jpeg])
        XCTAssertEqual(handed[0].sidecars, [])
        XCTAssertEqual(handed[1].sidecars.map(\.relativePath), ["IMG_1.JPG.xmp", "IMG_1.xmp"])
    }

    /// Beside an encoded output (no copy of the photo is written) the sidecar is named after it and loses its
    /// location; where `stripMetadata` removes the photo's XMP, its XMP sidecar is not written either.
    func testASidecarBesideAnEncodedOutput() throws {
        let input = Fixtures.temporaryFolder()
        let photo = try CaptureTimeTests.photo("IMG_0001.jpg", in: input)
        try xmpSidecar(input.appendingPathComponent("IMG_0001.jpg.xmp").path, from: photo)
        func run(_ strip: String) throws -> (ItemResult?, URL) {
            let output = Fixtures.temporaryFolder()
            let stages = #"{"stage": "decode"}, {"stage": "transcode", "to": "webp"}, "# + strip + #", {"stage": "write"}"#
            return (result(try Self.run(try pipeline(stages), input: input, output: output), "IMG_0001.jpg"), output)
        }
        let (item, output) = try run(#"{"stage": "stripLocation"}"#)
        XCTAssertEqual(item?.output, "IMG_0001.webp")
        XCTAssertEqual(sidecars(item), ["IMG_0001.jpg.xmp": "IMG_0001.webp.xmp"])
        let copy = output.appendingPathComponent("IMG_0001.webp.xmp").path
        XCTAssertEqual(try locations(copy).keys.sorted(), [])
        XCTAssertEqual(try exiftool(copy)["XMP-xmp:Rating"] as? Int, 4)
        XCTAssertEqual(try exiftool(copy)["XMP-dc:Subject"] as? String, "harbour")
        let (withoutXMP, bare) = try run(#"{"stage": "stripMetadata", "remove": ["xmp"]}"#)
        XCTAssertEqual(withoutXMP?.status, .ok)
        XCTAssertNil(withoutXMP?.readings["sidecars"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: bare.appendingPathComponent("IMG_0001.webp.xmp").path))
    }

    func testIgnoredSidecarsAreNeitherItemsNorCopied() throws {
        let input = try library()
        let output = Fixtures.temporaryFolder()
        let report = try Self.run(try pipeline(Self.byDate, input: #"{"sidecars": "ignore"}"#), input: input, output: output)
        XCTAssertFalse(report.items.contains { $0.input.hasSuffix(".json") || $0.input.hasSuffix(".AAE") || $0.input == "IMG_0001.jpg.xmp" })
        XCTAssertNil(result(report, "IMG_0001.jpg")?.readings["sidecars"])
        XCTAssertEqual(result(report, "DSC_0002.jpg")?.output, "2022/05/DSC_0002.jpg", "an ignored sidecar still dates its photo")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("2023/12/IMG_0001.jpg.xmp").path))
    }

    /// A sidecar crosses the worker pipes as one string: every mark, and a path with folders and spaces, come back.
    func testASidecarCrossesTheWorkerPipesAsItWas() throws {
        let marks: [SidecarMatch.Mark?] = [nil, .duplicate(suffix: "_01"), .supplemental, .original]
        for (mark, kind) in zip(marks, [SidecarKind.xmp, .xmp, .takeout, .aae]) {
            let name = "IMG 1234 (1).jpg.supplemental-metadata.json"
            let sidecar = Sidecar(relativePath: "2023/Trip to Ré/" + name,
                                  match: SidecarMatch(sidecar: name, media: "IMG 1234(1).jpg", kind: kind, style: .appended, mark: mark))
            XCTAssertEqual(try JSONDecoder().decode(Sidecar.self, from: JSONEncoder().encode(sidecar)), sidecar)
        }
        XCTAssertThrowsError(try JSONDecoder().decode(Sidecar.self, from: Data(#""xmp/appended/IMG_1.jpg.xmp""#.utf8)))
    }
}
