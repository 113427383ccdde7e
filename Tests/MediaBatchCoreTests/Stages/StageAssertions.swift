@testable import MediaBatchCore
import PipelineModel
import XCTest

/// A decoded stage is `expected`: of its type, with its options.
func assertStage<S: Stage & Equatable>(_ stage: @autoclosure () throws -> any Stage, _ expected: S,
                                       file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(try stage() as? S, expected, file: file, line: line)
}
