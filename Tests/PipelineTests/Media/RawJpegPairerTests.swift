import Foundation
@testable import MediaBatchCore
import PipelineModel
import MediaTestSupport
import TestSupport
import VipsKit
import XCTest

/// A camera set to RAW+JPEG: `IMG_0001.CR2` beside `IMG_0001.JPG` is one photo. Runs over made
/// RAWs (`CameraRawFile`) and real JPEGs, copied with their location stripped, so each output is
/// the bytes of the file that stood for the photo.
final class RawJpegPairerTests: XCTestCase, RunsPipelines {
    let jpeg = Fixtures.sample("jpeg/nikon_d5000_xmp_gps_only.jpg")

    override func setUpWithError() throws {
        try Vips.start()
    }

    /// A camera's folder: two pairs (one named in another case), a lone RAW, a lone JPEG, and a
    /// TIFF beside a JPEG (a TIFF is no RAW).
    func cameraFolder() throws -> URL {
        let folder = Fixtures.temporaryFolder()
        try CameraRawFile.cr2.write(to: folder.appendingPathComponent("IMG_0001.CR2").path)
        try CameraRawFile.nef.write(to: folder.appendingPathComponent("dsc_0005.nef").path)
        try CameraRawFile.dng.write(to: folder.appendingPathComponent("IMG_0002.DNG").path)
        for name in ["IMG_0001.JPG", "DSC_0005.JPG", "IMG_0003.JPG", "scan.jpg"] {
            try FileManager.default.copyItem(atPath: jpeg, toPath: folder.appendingPathComponent(name).path)
        }
        let tiff = try runProcess("vips", ["copy", jpeg, folder.appendingPathComponent("scan.tif").path])
        XCTAssertEqual(tiff.exitCode, 0, tiff.stderr)
        return folder
    }

    func run(_ folder: URL, _ policy: String, output: URL = Fixtures.temporaryFolder(), path: String = "{dir}/{stem}.{ext}",
             statePath: URL? = nil) throws -> RunReport {
        let stages = #"{"stage": "stripLocation"}, {"stage": "write", "path": "\#(path)"}"#
        return try Self.run(try pipeline(stages, input: #"{"rawJpegPairs": "\#(policy)"}"#), input: folder, output: output,
                            statePath: statePath, prune: statePath != nil)
    }

    func testEachPolicyProcessesItsFileOfAPairAndSkipsTheOther() throws {
        let folder = try cameraFolder()
        let raws = ["IMG_0001.CR2", "dsc_0005.nef"], jpegs = ["IMG_0001.JPG", "DSC_0005.JPG"]
        let alone = ["IMG_0002.DNG", "IMG_0003.JPG", "scan.jpg", "scan.tif"]
        for (policy, processed, skipped, code) in [("jpeg", jpegs, raws, "pairedWithJpeg"), ("raw", raws, jpegs, "pairedWithRaw"),
                                                   ("both", raws + jpegs, [], "")] {
            let report = try run(folder, policy)
            for name in processed + alone {
                XCTAssertEqual(result(report, name)?.status, .ok, "\(policy): \(name) \(String(describing: result(report, name)))")
            }
            for name in skipped {
                let item = try XCTUnwrap(result(report, name))
                XCTAssertEqual(item.status, .skipped, "\(policy): \(name)")
                XCTAssertTrue(item.reason?.hasPrefix("\(code): ") == true, "\(policy): \(String(describing: item.reason))")
                XCTAssertNil(item.output, "\(policy): \(name) writes nothing")
            }
            XCTAssertEqual(result(report, "IMG_0001.CR2")?.rawJpegPair,
                           RawJpegPair(role: .raw, partner: "IMG_0001.JPG", processed: policy != "jpeg"), policy)
            XCTAssertEqual(result(report, "DSC_0005.JPG")?.rawJpegPair,
                           RawJpegPair(role: .jpeg, partner: "dsc_0005.nef", processed: policy != "raw"), "\(policy): stems match in any case")
            for name in alone { XCTAssertNil(result(report, name)?.rawJpegPair, "\(policy): \(name) has no pair") }
        }
    }

    /// A pair whose other file the pipeline does not read (`input.formats`) is no pair.
    func testAFileTheRunDoesNotReadPairsWithNothing() throws {
        let folder = try cameraFolder()
        let report = try Self.run(try pipeline(#"{"stage": "stripLocation"}, {"stage": "write"}"#, input: #"{"formats": ["cr2", "nef", "dng"]}"#),
                                  input: folder, output: Fixtures.temporaryFolder())
        XCTAssertEqual(result(report, "IMG_0001.CR2")?.status, .ok)
        XCTAssertNil(result(report, "IMG_0001.CR2")?.rawJpegPair)
    }

    /// Changing the policy hands the photo's output from one file to the other: no collision with
    /// what the earlier run recorded, the file on disk is the new one's (`--prune` does not remove
    /// it as the other file's stale output), and the state stands unchanged on the next run.
    func testChangingThePolicyHandsTheOutputOver() throws {
        let folder = try cameraFolder(), output = Fixtures.temporaryFolder()
        let state = Fixtures.temporaryFolder().appendingPathComponent("state.sqlite")
        // No extension in the name: the RAW's copy and the JPEG's copy would be the same file.
        for (policy, source) in [("jpeg", "IMG_0001.JPG"), ("raw", "IMG_0001.CR2"), ("jpeg", "IMG_0001.JPG")] {
            let report = try run(folder, policy, output: output, path: "{dir}/{stem}", statePath: state)
            let item = try XCTUnwrap(result(report, source))
            XCTAssertEqual(item.status, .ok, "\(policy): \(String(describing: item.error))")
            XCTAssertEqual(item.output, "IMG_0001")
            let written = try [UInt8](Data(contentsOf: output.appendingPathComponent("IMG_0001")))
            XCTAssertEqual(written.prefix(4), try [UInt8](Data(contentsOf: folder.appendingPathComponent(source))).prefix(4),
                           "\(policy): \(source)'s bytes")
            let again = try run(folder, policy, output: output, path: "{dir}/{stem}", statePath: state)
            XCTAssertEqual(result(again, source)?.status, .unchanged, policy)
        }
    }
}
