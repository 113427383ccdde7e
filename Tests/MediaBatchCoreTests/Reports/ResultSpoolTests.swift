import Foundation
@testable import MediaBatchCore
import TestSupport
import XCTest

/// The spool hands back every result once, in input order, whatever order they finished in,
/// and leaves nothing behind.
final class ResultSpoolTests: XCTestCase {
    private func result(_ input: String, ok: Bool) -> ItemResult {
        ItemResult(.init(input: input, format: "jpeg", kinds: nil, livePhoto: nil, status: ok ? .ok : .failed, change: .new,
                   output: ok ? input + ".jpg" : nil, reason: nil, removedMetadata: nil, error: nil,
                   bytesIn: input.utf8.count, bytesOut: ok ? 1 : 0, milliseconds: 1, estimatedBytes: nil))
    }

    func testResultsComeBackInInputOrderAcrossLevelsOfMergedRuns() throws {
        var random = SplitMix(seed: 17)
        // Names that sort differently by bytes, by folder and by length; finished in a shuffled order.
        let inputs = (0..<2_000).map { "f\($0 % 13)/\($0 % 7 == 0 ? "é" : "")photo \(UInt32.random(in: 0...999_999, using: &random))-\($0)" }
        let folder = Fixtures.temporaryFolder()
        // 7 to a run, 3 runs to a merge: 2 000 results make merged runs on four levels.
        let spool = ResultSpool(folder: folder, runLength: 7, fanIn: 3)
        for input in inputs.shuffled(using: &random) { spool.append(result(input, ok: input.count % 2 == 0)) }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        XCTAssertGreaterThan(files.count, 3)
        XCTAssertLessThan(files.count, 20, "runs are merged as they pile up: \(files.count) files")

        var read: [ItemResult] = []
        try spool.forEachInOrder { read.append($0) }
        XCTAssertEqual(read.map(\.input), inputs.sorted())
        XCTAssertEqual(read.map(\.status), inputs.sorted().map { $0.count % 2 == 0 ? .ok : .failed })
        XCTAssertEqual(spool.total, RunSummary.Totals(read))
        XCTAssertEqual(spool.total.items, 2_000)

        spool.remove()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    func testASpoolThatCannotBeWrittenFailsTheReadingNotTheRun() throws {
        let spool = ResultSpool(folder: URL(fileURLWithPath: "/nonexistent-\(getpid())"), runLength: 2)
        for index in 0..<5 { spool.append(result("\(index).jpg", ok: true)) }
        XCTAssertEqual(spool.total.ok, 5, "every item still counts")
        XCTAssertThrowsError(try spool.forEachInOrder { _ in }) { error in
            XCTAssertTrue("\(error)".contains("the report's spool in /nonexistent-\(getpid()) lost results"), "\(error)")
        }
    }
}
