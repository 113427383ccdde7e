import DuplicateKit
import Foundation
import MediaBatchCore
import PipelineModel
import MediaTestSupport
import RunState
import TestSupport
import VipsKit
import XCTest

/// The fingerprint stage over one photo's real copies, made at test time as a library gets them
/// (libvips, exiftool, ffmpeg), and over photos that only look alike: what `duplicates` groups.
final class FingerprintStageTests: XCTestCase, RunsPipelines {
    /// One run of decode + fingerprint over the folder below, shared by the tests that read it.
    private static let scanned: (folder: URL, report: RunReport, state: URL, groups: [DuplicateGroup], candidates: [DuplicateCandidate],
                                 prints: [Int: PhotoFingerprint]) = {
        try! Vips.start()
        let folder = try! makeLibrary()
        let state = Fixtures.temporaryFolder().appendingPathComponent("state.sqlite")
        let report = try! run(try! pipeline(#"{"stage": "decode"}, {"stage": "fingerprint"}"#), input: folder, output: Fixtures.temporaryFolder(),
                              statePath: state)
        var found = DuplicateScan.Found()
        for item in report.items { if let reading = FingerprintReading(item.readings) { found.add(reading, path: item.input) } }
        return (folder, report, state, found.groups, found.candidates, found.fingerprints)
    }()

    /// A phone photo and its copies, a HEIC and the JPEG exported from it, two frames of a burst,
    /// an unrelated photo, and flat frames.
    private static func makeLibrary() throws -> URL {
        let folder = Fixtures.temporaryFolder("library")
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func vips(_ arguments: String...) throws {
            let made = try runProcess("vips", arguments)
            precondition(made.exitCode == 0, made.stderr)
        }
        func tool(_ name: String, _ arguments: [String]) throws {
            let made = try runProcess(name, arguments)
            precondition(made.exitCode == 0, made.stderr)
        }
        try vips("copy", Fixtures.sample("jpeg/apple_iphone_4.jpg"), path("photo.jpg"))
        try tool("exiftool", ["-q", "-overwrite_original", "-tagsFromFile", Fixtures.sample("jpeg/apple_iphone_4.jpg"), "-all:all", path("photo.jpg")])
        try vips("copy", path("photo.jpg"), path("photo_q60.jpg[Q=60]"))
        try vips("resize", path("photo.jpg"), path("photo_half.jpg"), "0.5")
        try vips("crop", path("photo.jpg"), path("photo_crop5.jpg"), "32", "24", "1231", "920")
        try FileManager.default.copyItem(atPath: path("photo.jpg"), toPath: path("photo_stripped.jpg"))
        try tool("exiftool", ["-q", "-overwrite_original", "-all=", path("photo_stripped.jpg")])
        // Pixels stored turned a quarter anticlockwise, shown upright by Orientation 6.
        try vips("rot", path("photo.jpg"), path("photo_turned.jpg"), "d270")
        try tool("exiftool", ["-q", "-overwrite_original", "-Orientation#=6", path("photo_turned.jpg")])
        try FileManager.default.copyItem(atPath: Fixtures.sample("heic/IMG_1034.heic"), toPath: path("IMG_1034.heic"))
        try vips("copy", path("IMG_1034.heic"), path("IMG_1034.jpg[Q=85]"))
        // Frames 0.3 s apart of a real clip in which the train moves: a burst.
        for (name, time) in [("burst_1.jpg", "0.2"), ("burst_2.jpg", "0.5")] {
            try tool("ffmpeg", ["-v", "error", "-y", "-ss", time, "-i", Fixtures.sample("livephoto/train.mov"), "-frames:v", "1", "-q:v", "2", path(name)])
        }
        try FileManager.default.copyItem(atPath: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg"), toPath: path("other.jpg"))
        try vips("black", path("black.png"), "640", "480")
        try vips("linear", path("black.png"), path("white.jpg"), "1", "255")
        try vips("black", path("black_small.jpg"), "320", "240")
        return folder
    }

    private func group(of path: String) -> DuplicateGroup? {
        let candidates = Self.scanned.candidates
        return Self.scanned.groups.first { $0.tier != .similar && $0.members.contains { candidates[$0].path == path } }
    }

    private func paths(_ group: DuplicateGroup?) -> Set<String> {
        Set(group?.members.map { Self.scanned.candidates[$0].path } ?? [])
    }

    func testEveryCopyOfAPhotoIsOneGroupKeepingTheOriginal() throws {
        let photo = try XCTUnwrap(group(of: "photo.jpg"))
        XCTAssertEqual(photo.tier, .samePhoto)
        XCTAssertEqual(paths(photo), ["photo.jpg", "photo_q60.jpg", "photo_half.jpg", "photo_crop5.jpg", "photo_stripped.jpg", "photo_turned.jpg"])
        XCTAssertEqual(Self.scanned.candidates[photo.keeper].path, "photo.jpg", photo.why)
        let heic = try XCTUnwrap(group(of: "IMG_1034.heic"))
        XCTAssertEqual(paths(heic), ["IMG_1034.heic", "IMG_1034.jpg"])
        XCTAssertEqual(Self.scanned.candidates[heic.keeper].path, "IMG_1034.heic")
        XCTAssertEqual(heic.why, "heic: the more original format over jpeg")
    }

    /// Burst frames where something moved are `similar`, never one photo. (Frames of a scene where
    /// nothing moves are, at this grid's resolution: bench/README.md.)
    func testBurstFramesOtherPhotosAndFlatFramesAreNeverOnePhoto() throws {
        XCTAssertNil(group(of: "burst_1.jpg"), "\(paths(group(of: "burst_1.jpg")))")
        let burst = try XCTUnwrap(Self.scanned.groups.first { paths($0).contains("burst_1.jpg") })
        XCTAssertEqual(burst.tier, .similar)
        XCTAssertEqual(paths(burst), ["burst_1.jpg", "burst_2.jpg"])
        XCTAssertNil(group(of: "other.jpg"))
        for flat in ["black.png", "white.jpg", "black_small.jpg"] {
            XCTAssertNil(group(of: flat), flat)
            let reading = try XCTUnwrap(result(Self.scanned.report, flat)?.readings["fingerprint"])
            XCTAssertEqual(reading["flat"], true, "\(flat): no fingerprint")
            XCTAssertNil(reading["hashes"])
            XCTAssertNil(reading["picture"])
        }
    }

    /// The reading is the report's, the state database's and the manifest's, with the file's SHA-256 and upright size.
    func testTheReadingIsRecordedWithTheFilesHash() throws {
        let item = try XCTUnwrap(result(Self.scanned.report, "photo_turned.jpg"))
        let reading = try XCTUnwrap(item.readings["fingerprint"])
        XCTAssertEqual(reading["sha256"], .string(try ContentHash.ofFile(atPath: Self.scanned.folder.appendingPathComponent("photo_turned.jpg").path)))
        XCTAssertEqual(reading["width"], 1296, "upright")
        XCTAssertEqual(reading["height"], 968)
        XCTAssertEqual(reading["format"], "jpeg")
        var recorded: [String: String] = [:], light: [String: String] = [:]
        let store = try XCTUnwrap(StateStore(readingExisting: Self.scanned.state.path))
        // What `duplicates --state` reads first (the hashes, not the pictures), and whole for the pairs they find.
        try store.forEachReadings { light[$0] = $1 }
        recorded = try store.readings(of: Array(light.keys) + ["nothing.jpg"])
        XCTAssertEqual(Set(recorded.keys), Set(light.keys))
        XCTAssertEqual(recorded.count, Self.scanned.candidates.count)
        XCTAssertTrue(try XCTUnwrap(recorded["photo_turned.jpg"]).contains(#""picture""#))
        XCTAssertFalse(try XCTUnwrap(light["photo_turned.jpg"]).contains(#""picture""#))
        XCTAssertEqual(try store.item("photo_turned.jpg")?.readings, recorded["photo_turned.jpg"])
        let turned = try XCTUnwrap(Self.scanned.candidates.firstIndex { $0.path == "photo_turned.jpg" })
        XCTAssertEqual(FingerprintReading(readingsText: try XCTUnwrap(recorded["photo_turned.jpg"]))?.print, Self.scanned.prints[turned])
        XCTAssertEqual(Self.scanned.prints[turned]?.hashes, Self.scanned.candidates[turned].hashes?.values)
        let encoded = try JSONEncoder().encode(item)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        XCTAssertNotNil(object["fingerprint"] as? [String: Any], "beside the report item's own fields")
        XCTAssertEqual(try JSONDecoder().decode(ItemResult.self, from: encoded), item)
    }

    /// With `write`, the reading comes from the picture it rendered: the item is decoded once, and
    /// the fingerprint is the one a decode of its own gives (within a few bits, the grids within a level).
    func testWithWriteTheRenderedPictureIsRead() throws {
        let input = try Self.folder(of: ["jpeg/apple_iphone_4.jpg"])
        let decodes = VImage.decodes
        let report = try Self.run(try pipeline(#"{"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 512}, {"stage": "transcode", "to": "webp"}, {"stage": "fingerprint"}, {"stage": "write"}"#),
                                  input: input, output: Fixtures.temporaryFolder(), concurrency: 1)
        XCTAssertEqual(VImage.decodes - decodes, 1)
        let rendered = try XCTUnwrap(report.items.first.flatMap { FingerprintReading($0.readings) }?.print)
        let own = try XCTUnwrap(Self.scanned.prints[Self.scanned.candidates.firstIndex { $0.path == "photo.jpg" }!])
        XCTAssertLessThanOrEqual((rendered.hash ^ own.hash).nonzeroBitCount, 4)
        let shape = PixelShape(width: 1296, height: 968)
        XCTAssertLessThan(FingerprintDistance.between((rendered, shape), (own, shape), enough: 0), DuplicateSearch.samePhotoSameSize)
    }

    func testValidateSaysWhatItDoesAndWhereItGoes() throws {
        let pipeline = try pipeline(#"{"stage": "decode"}, {"stage": "fingerprint"}, {"stage": "write"}"#)
        XCTAssertEqual(pipeline.stages[1].explanation(among: pipeline.stages), "each photo's fingerprint, for mediabatch duplicates")
        XCTAssertThrowsError(try Self.pipeline(#"{"stage": "fingerprint"}, {"stage": "decode"}"#)) {
            XCTAssertEqual("\($0)", #"stages[0]: "fingerprint" needs a "decode" stage before it (a fingerprint is of the decoded photo)"#)
        }
    }
}

extension JSONValue {
    fileprivate subscript(_ key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }
}
