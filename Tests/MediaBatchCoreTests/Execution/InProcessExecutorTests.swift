import Foundation
@testable import MediaBatchCore
import MediaFormats
import PipelineModel
import RunState
import MediaTestSupport
import TestSupport
@testable import VipsKit
import XCTest

/// The executor of trusted runs (and of each worker process), driven directly: header verdicts
/// with their plan, then the pixel phase following the plan the run claimed.
final class InProcessExecutorTests: XCTestCase, RunsPipelines {
    override class func setUp() {
        try! Vips.start()
    }

    static let webPipeline = #"{"stage": "filter", "match": "images"}, "# + """
        {"stage": "decode"}, {"stage": "downsample", "maxPixelSize": 2048},
        {"stage": "transcode", "to": "jpeg"}, {"stage": "stripLocation"}, {"stage": "write", "path": "web/{stem}.{ext}"}
        """

    /// An executor for `stages` writing under `output`, and the job the header phase would send it for `sample`.
    static func executor(_ stages: String = webPipeline, output: URL, keepsContexts: Bool = true,
                         limits: String = "{}") throws -> InProcessExecutor {
        let pipeline = try pipeline(stages, limits: limits)
        return InProcessExecutor(stages: StageList.runnable(pipeline), environment: environment(output, limits: pipeline.limits),
                                 keepsContexts: keepsContexts)
    }

    static func job(_ sample: String) throws -> ItemJob {
        let item = try Self.item(sample)
        return ItemJob(input: item.input, format: item.format, bytesIn: item.bytesIn, contentHash: item.contentHash)
    }

    func testTheHeaderPlansOutputAndCostAndThePixelsWriteIt() throws {
        let output = Fixtures.temporaryFolder()
        let executor = try Self.executor(output: output)
        var job = try Self.job("heic/IMG_1034.heic")
        let verdict = executor.header(job)
        XCTAssertNil(verdict.error)
        XCTAssertEqual(verdict.kinds, [.images])
        let plan = try XCTUnwrap(verdict.plan)
        XCTAssertEqual(plan.outputs.map(\.format), [.jpeg])
        XCTAssertEqual(plan.outputs.map(\.path), ["web/IMG_1034.jpg"])
        XCTAssertEqual(plan.outputs.first?.picture?.size, PixelSize(width: 2048, height: 1536))
        var header = CostEstimator.ImageHeader(format: .heic, width: 4032, height: 3024, bitsPerSample: 8)
        header.heifTile = PixelSize(width: 512, height: 512)
        XCTAssertEqual(plan.estimatedBytes, CostEstimator.estimate(image: header, maxPixelSize: 2048))
        job.plan = plan
        let outcome = try Self.published(executor.pixels(job), under: output)
        XCTAssertNil(outcome.error)
        let written = output.appendingPathComponent("web/IMG_1034.jpg")
        XCTAssertEqual(outcome.outputs, [WrittenOutput(planned: plan.outputs[0], planIndex: 0,
                                                       bytes: try XCTUnwrap(try written.resourceValues(forKeys: [.fileSizeKey]).fileSize),
                                                       contentHash: try ContentHash.ofFile(atPath: written.path))], "hashed as written")
        XCTAssertEqual(outcome.removedMetadata, ["EXIF GPS"])
        let image = try VImage.open(written.path)
        XCTAssertEqual([image.width, image.height, image.orientation], [2048, 1536, 1])
    }

    func testFilteredAndFailedItemsAreNotPlanned() throws {
        let executor = try Self.executor(output: Fixtures.temporaryFolder(), limits: #"{"maxPixels": 1000000}"#)
        let movie = executor.header(try Self.job("video/sample.3gp"))
        XCTAssertEqual(movie.skipReason, "filtered out (3gp: videos)")
        XCTAssertNil(movie.plan)
        let large = executor.header(try Self.job("jpeg/apple_iphone_4.jpg"))
        XCTAssertEqual(large.error?.code, .tooManyPixels)
        XCTAssertEqual(large.error?.stage, .decode)
        XCTAssertNil(large.plan)
    }

    /// A worker answers each request afresh: the pixel phase reads the header again and writes
    /// where the job's plan (the one the run claimed) says, not where it would plan itself.
    func testWithoutAKeptContextThePixelsFollowTheJobsPlan() throws {
        let output = Fixtures.temporaryFolder()
        for keepsContexts in [false, true] {
            let executor = try Self.executor(output: output, keepsContexts: keepsContexts)
            var job = try Self.job("jpeg/apple_iphone_4.jpg")
            var plan = try XCTUnwrap(executor.header(job).plan)
            plan.outputs[0].path = "claimed/\(keepsContexts).jpg"
            executor.forget(job)
            job.plan = plan
            let outcome = try Self.published(executor.pixels(job), under: output)
            XCTAssertEqual(outcome.outputs.map(\.path), ["claimed/\(keepsContexts).jpg"])
            let image = try VImage.open(output.appendingPathComponent("claimed/\(keepsContexts).jpg").path)
            XCTAssertEqual([image.width, image.height], [1296, 968])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("web").path))
    }

    func testReadsLivePhotoIdentifiersOfBothHalves() throws {
        let executor = try Self.executor(output: Fixtures.temporaryFolder())
        for (sample, format) in [("livephoto/train.jpg", MediaFormat.jpeg), ("livephoto/train.mov", .mov)] {
            XCTAssertEqual(executor.contentIdentifier(path: Fixtures.sample(sample), format: format),
                           "E905E6C6-C747-4805-942F-9904A0281F02", sample)
        }
        XCTAssertNil(executor.contentIdentifier(path: Fixtures.sample("jpeg/apple_iphone_4.jpg"), format: .jpeg))
    }
}
