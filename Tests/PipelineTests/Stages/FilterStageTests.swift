import Foundation
@testable import MediaBatchCore
import MetadataKit
import PipelineModel
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// The filter stage in real runs: which items a composition selects, and how a Live Photo's
/// movie follows its still.
final class FilterStageTests: XCTestCase {
    static var library: URL!

    /// A small library: a Live Photo, a plain photo, two screenshots, a panorama, two videos.
    override class func setUp() {
        try! Vips.start()
        library = Fixtures.temporaryFolder("filter-library")
        let files = [
            "camera/IMG_0001.JPG": Fixtures.sample("livephoto/train.jpg"),
            "camera/IMG_0001.MOV": Fixtures.sample("livephoto/train.mov"),
            "camera/IMG_0002.JPG": Fixtures.sample("jpeg/apple_iphone_4.jpg"),
            "camera/pano.jpg": Fixtures.fixtures.appendingPathComponent("kinds/images/panorama_gpano_equirect.jpg").path,
            "screens/mac.png": Fixtures.sample("png/macos_screenshot_exif.png"),
            "screens/phone.jpg": Fixtures.fixtures.appendingPathComponent("kinds/images/screenshot_ios.jpg").path,
            "video/clip.3gp": Fixtures.sample("video/sample.3gp"),
            "video/slomo.mov": Fixtures.fixtures.appendingPathComponent("kinds/videos/slomo-240fps.mov").path,
        ]
        for (name, source) in files {
            let url = library.appendingPathComponent(name)
            try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try! FileManager.default.copyItem(atPath: source, toPath: url.path)
        }
    }

    func run(_ stages: String, dryRun: Bool = true) throws -> (report: RunReport, output: URL) {
        let pipeline = try Pipeline.decode(Data(#"{"version": 1, "stages": [\#(stages)]}"#.utf8), baseDirectory: Fixtures.repositoryRoot)
        let output = Fixtures.temporaryFolder()
        let options = RunOptions(inputRoot: Self.library, outputRoot: output, concurrency: 2,
                                 memoryBudget: pipeline.limits.memoryBudget, pipelineName: "test", dryRun: dryRun)
        return (try RunReport(PipelineRunner(pipeline: pipeline, options: options).run()), output)
    }

    func selected(_ match: String, livePhotoVideo: String? = nil) throws -> [String] {
        let option = livePhotoVideo.map { #", "livePhotoVideo": "\#($0)""# } ?? ""
        let report = try run(#"{"stage": "filter", "match": \#(match)\#(option)}, {"stage": "decode"}, {"stage": "write"}"#).report
        XCTAssertEqual(report.totals.failed, 0, "\(report.items.filter { $0.status == .failed })")
        return report.items.filter { $0.status == .planned }.map(\.input)
    }

    /// `rawPhotos` and `{"format": …}` go by content: a TIFF image is no RAW, a CR3 no movie.
    func testRawPhotosAndEveryFormatSelectByContent() throws {
        let library = Fixtures.temporaryFolder()
        try CameraRawFile.writeCameraFolder(library, withLocation: false)
        try FileManager.default.copyItem(atPath: Fixtures.fixtures.appendingPathComponent("metadata/tiff-location-everywhere.tif").path,
                                         toPath: library.appendingPathComponent("scan.tif").path)
        try FileManager.default.copyItem(atPath: Fixtures.sample("video/sample.3gp"), toPath: library.appendingPathComponent("clip.3gp").path)
        func selected(_ match: String) throws -> [String] {
            let pipeline = try Pipeline.decode(Data(#"{"version": 1, "stages": [{"stage": "filter", "match": \#(match)}, {"stage": "write"}]}"#.utf8),
                                               baseDirectory: Fixtures.repositoryRoot)
            let options = RunOptions(inputRoot: library, outputRoot: Fixtures.temporaryFolder(), concurrency: 2,
                                     memoryBudget: pipeline.limits.memoryBudget, pipelineName: "test", dryRun: true)
            let report = try RunReport(PipelineRunner(pipeline: pipeline, options: options).run())
            XCTAssertEqual(report.totals.failed, 0, "\(report.items.filter { $0.status == .failed })")
            return report.items.filter { $0.status == .planned }.map(\.input)
        }
        XCTAssertEqual(try selected(#""rawPhotos""#), ["DSC_0002.NEF", "IMG_0001.DNG", "IMG_0003.CR2", "IMG_0004.CR3"])
        XCTAssertEqual(try selected(#"{"all": ["images", {"not": "rawPhotos"}]}"#), ["scan.tif"])
        XCTAssertEqual(try selected(#""videos""#), ["clip.3gp"], "a CR3 is no movie")
        XCTAssertEqual(try selected(#"{"format": ["dng", "cr3"]}"#), ["IMG_0001.DNG", "IMG_0004.CR3"])
        XCTAssertEqual(try selected(#"{"format": "tiff"}"#), ["scan.tif"])
        XCTAssertEqual(try selected(#"{"format": ["nef", "cr2", "3gp"]}"#), ["DSC_0002.NEF", "IMG_0003.CR2", "clip.3gp"])
    }

    func testSkippedItemsSayWhatTheyAre() throws {
        let report = try run(#"{"stage": "filter", "match": "videos"}, {"stage": "decode"}, {"stage": "write"}"#).report
        let screenshot = report.items.first { $0.input == "screens/mac.png" }
        XCTAssertEqual(screenshot?.status, .skipped)
        XCTAssertEqual(screenshot?.reason, "filtered out (png: images, screenshots)")
        XCTAssertEqual(screenshot?.kinds, [.images, .screenshots])
    }

    /// A still converted to JPEG takes its movie along under its own stem (the movie is a copy,
    /// its own extension kept); location goes from both halves, the content identifier stays in
    /// both, and the report shows the pair.
    func testALivePhotoStaysAPairThroughAConversion() throws {
        let (report, output) = try run("""
            {"stage": "filter", "match": {"all": ["images", {"not": "screenshots"}]}}, {"stage": "decode"},
            {"stage": "downsample", "maxPixelSize": 1024}, {"stage": "transcode", "to": "jpeg"},
            {"stage": "stripLocation"}, {"stage": "write", "path": "{dir}/{stem}-web.{ext}"}
            """, dryRun: false)
        XCTAssertEqual(report.totals.failed, 0, "\(report.items.filter { $0.status == .failed })")
        let still = report.items.first { $0.input == "camera/IMG_0001.JPG" }
        let movie = report.items.first { $0.input == "camera/IMG_0001.MOV" }
        XCTAssertEqual(still?.output, "camera/IMG_0001-web.jpg")
        XCTAssertEqual(movie?.output, "camera/IMG_0001-web.MOV")
        XCTAssertEqual(movie?.livePhoto, LivePhotoPair(role: .video, partner: "camera/IMG_0001.JPG",
                                                       contentIdentifier: Fixtures.livePhotoIdentifier))
        XCTAssertEqual(still?.livePhoto?.partner, "camera/IMG_0001.MOV")

        let movieOut = output.appendingPathComponent("camera/IMG_0001-web.MOV").path
        let stillOut = output.appendingPathComponent("camera/IMG_0001-web.jpg").path
        XCTAssertEqual(try exiftool(movieOut)["Keys:ContentIdentifier"] as? String, Fixtures.livePhotoIdentifier)
        XCTAssertEqual(try exiftool(stillOut)["Apple:MediaGroupUUID"] as? String, Fixtures.livePhotoIdentifier)
        XCTAssertEqual(try locationTags(movieOut), [])
        XCTAssertEqual(try locationTags(stillOut), [])
        // The pair is still a pair to mediabatch itself.
        let reread = try Inspection.read(path: stillOut)
        XCTAssertEqual(reread.kinds, [.images, .livePhotos])
        XCTAssertEqual(reread.livePhotoPartner, "IMG_0001-web.MOV")
    }

    func testADryRunWritesNothing() throws {
        let (report, output) = try run(#"{"stage": "decode"}, {"stage": "transcode", "to": "webp"}, {"stage": "write"}"#)
        XCTAssertTrue(report.dryRun)
        XCTAssertEqual(report.totals.planned, 8)
        XCTAssertEqual(report.items.first { $0.input == "screens/mac.png" }?.output, "screens/mac.webp")
        XCTAssertEqual(report.items.first { $0.input == "video/clip.3gp" }?.output, "video/clip.3gp")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path), [])
    }

    func testTheIssuesCompositionsSelectExactlyTheExpectedItems() throws {
        // The Live Photo's movie is not an image; it goes with its still unless told otherwise.
        XCTAssertEqual(try selected(#"{"all": ["images", {"not": "screenshots"}]}"#),
                       ["camera/IMG_0001.JPG", "camera/IMG_0001.MOV", "camera/IMG_0002.JPG", "camera/pano.jpg"])
        XCTAssertEqual(try selected(#"{"all": ["images", {"not": "screenshots"}]}"#, livePhotoVideo: "drop"),
                       ["camera/IMG_0001.JPG", "camera/IMG_0002.JPG", "camera/pano.jpg"])
        XCTAssertEqual(try selected(#"{"any": ["videos", "livePhotos"]}"#),
                       ["camera/IMG_0001.JPG", "camera/IMG_0001.MOV", "video/clip.3gp", "video/slomo.mov"])
        XCTAssertEqual(try selected(#"{"all": ["images", {"not": {"any": ["screenshots", "panoramas"]}}]}"#),
                       ["camera/IMG_0001.JPG", "camera/IMG_0001.MOV", "camera/IMG_0002.JPG"])
        XCTAssertEqual(try selected(#""sloMoVideos""#), ["video/slomo.mov"])
        XCTAssertEqual(try selected(#"{"all": ["screenshots", {"format": "png"}]}"#), ["screens/mac.png"])
    }
}
