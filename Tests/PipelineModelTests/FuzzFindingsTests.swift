import Foundation
@testable import PipelineModel
import XCTest

/// Inputs the pipeline-file fuzzer (fuzz/PipelineFileFuzzer.swift) found to trap or to break a
/// promise, reduced to the bytes that matter.
final class PipelineModelFuzzFindingsTests: XCTestCase {
    /// "{dir}../{stem}.{ext}" passes the template's ".." check, but an item at the input root has
    /// an empty {dir}, and a file named "...jpg" has the stem "..": both rendered a path out of
    /// the output root.
    func testRenderedPathsNeverClimbOutOfTheOutputRoot() throws {
        let document = #"{"version": 1, "stages": [{"stage": "write", "path": "{dir}../{stem}.{ext}"}]}"#
        let pipeline = try Pipeline.decode(Data(document.utf8), baseDirectory: URL(fileURLWithPath: "/p"))
        guard case .write(let write)? = pipeline.stage(.write) else { return XCTFail("no write stage") }
        XCTAssertEqual(write.path.render(.init(dir: "", stem: "IMG_0001", ext: "jpg")), "__/IMG_0001.jpg")
        XCTAssertEqual(write.path.render(.init(dir: "2024", stem: "IMG_0001", ext: "jpg")), "2024../IMG_0001.jpg")
        XCTAssertEqual(try PathTemplate("{stem}/{hash:8}").render(.init(dir: "", stem: "..", ext: "jpg")), "__/00000000")
    }
}
