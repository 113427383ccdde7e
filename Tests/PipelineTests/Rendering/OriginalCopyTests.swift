import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// A pipeline that changes no pixel (`stripLocation, write`) copies each still: over every still
/// committed (and every one of the shared corpus, where it is beside the repository), the coded
/// image is the input's byte for byte, decodes to the same pixels, exiftool reads back every tag
/// but the location ones, finds no location and no new warning, and the file is no larger.
final class OriginalCopyTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    /// Tags that change by design: Photoshop's digest of IPTC-IIM (computed again), a motion
    /// photo's embedded video (its location removed), a thumbnail a damaged file points at data
    /// that is not one.
    static let changedByDesign: Set<String> = ["Photoshop:IPTCDigest", "File:CurrentIPTCDigest", "QuickTime:MotionPhotoVideo",
                                               "Samsung:EmbeddedVideoFile"]

    func testEveryStillKeepsItsCodedImageAndEveryTagButItsLocation() throws {
        let input = try Self.stillsFolder()
        let output = Fixtures.temporaryFolder("original-copy")
        let report = try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#, input: #"{"trusted": true}"#),
                                  input: input, output: output)
        XCTAssertEqual(report.totals.failed, 0, "\(report.items.compactMap(\.error))")
        let names = report.items.map(\.input)
        XCTAssertGreaterThanOrEqual(names.count, 40)
        let before = try Self.exiftoolTags(input), after = try Self.exiftoolTags(output)
        let locationBefore = try Self.exiftoolTags(input, ["-Location:all", "-GPS:all"])
        let locationAfter = try Self.exiftoolTags(output, ["-Location:all", "-GPS:all"])
        let warningsBefore = try Self.warnings(input), warningsAfter = try Self.warnings(output)
        for name in names {
            let (source, copy) = (input.appendingPathComponent(name).path, output.appendingPathComponent(name).path)
            XCTAssertEqual(Array(locationAfter[name, default: [:]].keys).filter { $0 != "SourceFile" }, [], "no location left: \(name)")
            XCTAssertTrue(warningsAfter[name, default: []].isSubset(of: warningsBefore[name, default: []]), "no new warning: \(name)")
            let removed = Set(locationBefore[name, default: [:]].keys)
            for mismatch in Self.tagMismatches(before[name, default: [:]], after[name, default: [:]], removed: removed) {
                XCTFail("\(name): \(mismatch)")
            }
            try assertSameImage(source, copy, name)
        }
    }

    /// A camera RAW keeps its name, its sensor data where it was and every tag but its
    /// location (EXIF GPS directory, XMP), edited in place: as the TIFF it is, or a CR3's boxes.
    func testCameraRawsLoseOnlyTheirLocationUnderTheirOwnName() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        try CameraRawFile.writeCameraFolder(input, withLocation: true)
        let report = try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#), input: input, output: output)
        let before = try Self.exiftoolTags(input), after = try Self.exiftoolTags(output)
        let locationBefore = try Self.exiftoolTags(input, ["-Location:all", "-GPS:all"])
        for (name, _) in CameraRawFile.cameraNames {
            let item = try XCTUnwrap(result(report, name))
            XCTAssertEqual(item.status, .ok, "\(name): \(String(describing: item.error))")
            XCTAssertEqual(item.output, name, "name and extension kept")
            XCTAssertEqual(item.format, (name as NSString).pathExtension.lowercased())
            let removed = Set(locationBefore[name, default: [:]].keys).subtracting(["SourceFile"])
            XCTAssertTrue(removed.isSuperset(of: ["GPS:GPSLatitude", "XMP-photoshop:City"]), "\(name): \(removed)")
            XCTAssertEqual(try locationTags(output.appendingPathComponent(name).path), [], name)
            XCTAssertEqual(Self.tagMismatches(before[name, default: [:]], after[name, default: [:]], removed: removed), [], name)
            XCTAssertEqual("\(after[name]?["XMP-xmp:Rating"] ?? "missing")", "3", "\(name): the rest of the XMP stays")
            let (source, copy) = try [input, output].map { try [UInt8](Data(contentsOf: $0.appendingPathComponent(name))) }.pair
            XCTAssertEqual(copy.count, source.count, "\(name): edited in place")
            let sensor = try XCTUnwrap(source.firstRange(of: CameraRawFile.sensorData), name)
            XCTAssertEqual(Array(copy[sensor]), CameraRawFile.sensorData, "\(name): the sensor data untouched where it was")
        }
        XCTAssertEqual(result(report, "IMG_0004.CR3")?.removedMetadata?.isEmpty, false)
    }

    /// Only location can go from a CR3's EXIF in place: a keep-list fails it, and writes nothing.
    func testACR3ThatWouldLoseMoreThanItsLocationFails() throws {
        let input = Fixtures.temporaryFolder(), output = Fixtures.temporaryFolder()
        try Data(CameraRawFile.cr3(withLocation: true)).write(to: input.appendingPathComponent("IMG_0004.CR3"))
        let report = try Self.run(try pipeline(#"{"stage": "stripMetadata", "keep": ["date", "icc", "orientation"]}, {"stage": "write"}"#), input: input, output: output)
        XCTAssertEqual(report.items.first?.error?.code, .unsupportedMetadata, "\(report.items)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("IMG_0004.CR3").path))
    }

    private func assertSameImage(_ source: String, _ copy: String, _ name: String) throws {
        let sizes = try [source, copy].map { try XCTUnwrap(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) }
        XCTAssertLessThanOrEqual(sizes[1], sizes[0] + 64, "no larger than the input plus a few bytes: \(name)")
        if let coded = try CodedImage.data(of: source) {
            XCTAssertEqual(try CodedImage.data(of: copy), coded, "coded image byte for byte: \(name)")
        }
        // An image sequence libvips 8.14 cannot open (AVIF's avis) is compared by its bytes alone.
        guard let image = try? VImage.open(source) else { return XCTAssertThrowsError(try VImage.open(copy), name) }
        guard image.width * image.height <= 24_000_000, image.pageCount == 1 else { return }
        XCTAssertEqual(try VImage.open(copy).pixels(), try image.pixels(), "the same pixels: \(name)")
    }

    /// Every tag of `before` but those `removed` (the input's location and GPS tags, and the
    /// location copies ImageMagick keeps as PNG text) is in `after` with its value.
    static func tagMismatches(_ before: [String: Any], _ after: [String: Any], removed: Set<String>) -> [String] {
        before.compactMap { tag, value -> String? in
            let group = String(tag.prefix { $0 != ":" })
            guard !["System", "ExifTool", "Composite", "SourceFile"].contains(group), !removed.contains(tag),
                  !(group == "GPS" && !removed.isEmpty), !changedByDesign.contains(tag), !isLocationCopy(tag),
                  !(tag == "IFD1:ThumbnailImage" && !"\(value)".hasPrefix("base64:/9j/")) else { return nil }
            guard let kept = after[tag] else { return "lost \(tag)" }
            return "\(kept)" == "\(value)" ? nil : "changed \(tag)"
        }.sorted()
    }

    /// ImageMagick's one-property copies of location (`exif:GPSLatitude` as PNG text), which
    /// exiftool does not file under Location.
    static func isLocationCopy(_ tag: String) -> Bool {
        tag.hasPrefix("PNG:ExifGPS") || ["PNG:PhotoshopCity", "PNG:PhotoshopState", "PNG:PhotoshopCountry"].contains(tag)
    }

    /// exiftool's tags of every file under `folder`, by path relative to it (binary values as base64).
    static func exiftoolTags(_ folder: URL, _ arguments: [String] = ["-b"]) throws -> [String: [String: Any]] {
        let result = try runProcess("exiftool", ["-j", "-a", "-G1", "-r"] + arguments + ["."], in: folder)
        let files = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return Dictionary(files.compactMap { tags in
            (tags["SourceFile"] as? String).map { (String($0.dropFirst(2)), tags) }
        }) { first, _ in first }
    }

    /// Every warning exiftool gives about each file (`-Warning` alone shows only the first),
    /// without the count exiftool 13 adds to a repeated one ("… [x65]"): a copy without its
    /// location chunks repeats a warning about chunk order fewer times.
    static func warnings(_ folder: URL) throws -> [String: Set<String>] {
        let text = try runProcess("exiftool", ["-a", "-s3", "-Warning", "-r", "."], in: folder).stdout
        var warnings: [String: Set<String>] = [:], file = ""
        for line in text.split(separator: "\n") {
            if line.hasPrefix("======== ./") {
                file = String(line.dropFirst(11))
            } else if !line.hasPrefix(" ") {
                warnings[file, default: []].insert(line.replacingOccurrences(of: #" \[x\d+\]$"#, with: "", options: .regularExpression))
            }
        }
        return warnings
    }

    /// Every still of `Tests/Fixtures` (but the broken ones) and `samples/`, and of the shared
    /// corpus (`MEDIABATCH_CORPUS`, or `../shared/corpus`) where there is one, in one folder.
    static func stillsFolder() throws -> URL {
        let folder = Fixtures.temporaryFolder("stills")
        let corpus = Fixtures.corpus
        let sources = [("fixtures", Fixtures.fixtures.appendingPathComponent("kinds/images")), ("metadata", Fixtures.fixtures.appendingPathComponent("metadata")),
                       ("samples", Fixtures.samples), ("corpus", corpus)]
        for (name, root) in sources {
            guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let path as String in walker where !path.hasPrefix("broken") {
                let source = root.appendingPathComponent(path)
                guard let format = try? FormatSniffer.format(of: source.path), !format.isVideo else { continue }
                try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent("\(name)-" + path.replacingOccurrences(of: "/", with: "-")))
            }
        }
        return folder
    }
}

private extension Array {
    /// A list of two as a tuple.
    var pair: (Element, Element) { (self[0], self[1]) }
}
