import Foundation
@testable import MediaBatchCore
import PipelineModel
import XCTest

/// Inputs the pipeline-file fuzzer (fuzz/PipelineFileFuzzer.swift) found to trap or to break a
/// promise, reduced to the bytes that matter.
final class PipelineFuzzFindingsTests: XCTestCase {
    /// "{dir}../{stem}.{ext}" passes the template's ".." check, but an item at the input root has
    /// an empty {dir}, and a file named "...jpg" has the stem "..": both rendered a path out of
    /// the output root.
    func testRenderedPathsNeverClimbOutOfTheOutputRoot() throws {
        let document = #"{"version": 1, "stages": [{"stage": "write", "path": "{dir}../{stem}.{ext}"}]}"#
        let pipeline = try Pipeline.decode(Data(document.utf8), baseDirectory: URL(fileURLWithPath: "/p"))
        guard let write = pipeline.stage(WriteStage.self) else { return XCTFail("no write stage") }
        XCTAssertEqual(write.path.render(.init(dir: "", stem: "IMG_0001", ext: "jpg", inputExt: "heic")), "__/IMG_0001.jpg")
        XCTAssertEqual(write.path.render(.init(dir: "2024", stem: "IMG_0001", ext: "jpg", inputExt: "heic")), "2024../IMG_0001.jpg")
        XCTAssertEqual(try PathTemplate("{stem}/{inputHash:8}").render(.init(dir: "", stem: "..", ext: "jpg", inputExt: "heic")), "__/00000000")
    }

    /// Two members JSONDecoder refuses (it takes the valid JSON number 0e3 for no number): the
    /// message named whichever came first in the decoder's hash order, which changes from one
    /// decode to the next.
    func testTheSameBytesGiveTheSameMessage() {
        let document = Data(#"{"version": 1, "limits": {"a": 0e3, "b": 0e3, "c": 0e3, "d": 0e3, "e": 0e3}, "stages": []}"#.utf8)
        var messages: Set<String> = []
        var heldAllocations: [[UInt8]] = [] // so that each decode's dictionaries land elsewhere
        for round in 1...30 {
            heldAllocations.append([UInt8](repeating: 0, count: 48 * round))
            XCTAssertThrowsError(try Pipeline.decode(document, baseDirectory: URL(fileURLWithPath: "/p"))) {
                messages.insert(($0 as? PipelineError)?.message ?? "\($0)")
            }
        }
        XCTAssertEqual(messages.count, 1, "\(messages.sorted())")
        XCTAssertTrue(messages.first?.contains("limits.a") == true, "\(messages.sorted())")
    }
}
