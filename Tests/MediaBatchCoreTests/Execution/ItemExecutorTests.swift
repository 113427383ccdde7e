import Foundation
@testable import MediaBatchCore
import PipelineModel
import XCTest

/// A worker's reply names each output by its place in the plan: what `write` set comes back, the
/// rest from the plan the run holds.
final class ItemExecutorTests: XCTestCase {
    func testAWrittenOutputComesBackFromItsPlan() throws {
        var plan = ItemPlan(format: .jpeg)
        plan.outputs[0].path = "web/{hash:8}.jpg"
        plan.outputs.append(PlannedOutput(format: .webp, quality: 75, effort: 4))
        plan.outputs[1].path = "web/photo.webp"
        var written = plan.outputs[0]
        written.path = "web/0123abcd.jpg"
        written.gainMapLeftOut = true
        let outputs = [WrittenOutput(planned: written, planIndex: 0, bytes: 1200, contentHash: "0123abcd"),
                       WrittenOutput(planned: plan.outputs[1], planIndex: 1, bytes: 800, contentHash: nil)]
        let data = try JSONEncoder().encode(outputs)
        let decoder = JSONDecoder()
        decoder.userInfo[WrittenOutput.planKey] = plan
        XCTAssertEqual(try decoder.decode([WrittenOutput].self, from: data), outputs)
        XCTAssertFalse(String(decoding: data, as: UTF8.self).contains("quality"), "the planned output stays in the run")
        XCTAssertThrowsError(try JSONDecoder().decode([WrittenOutput].self, from: data), "no plan to take it from")
    }
}
