import Foundation
import XCTest

/// Compares text with a golden file; `MEDIABATCH_RECORD_GOLDENS=1` rewrites the goldens instead.
public func assertMatchesGolden(_ actual: String, _ golden: URL, file: StaticString = #filePath, line: UInt = #line) {
    if ProcessInfo.processInfo.environment["MEDIABATCH_RECORD_GOLDENS"] == "1" {
        try! actual.write(to: golden, atomically: true, encoding: .utf8)
        return
    }
    guard let expected = try? String(contentsOf: golden, encoding: .utf8) else {
        XCTFail("missing golden \(golden.lastPathComponent); run with MEDIABATCH_RECORD_GOLDENS=1", file: file, line: line)
        return
    }
    XCTAssertEqual(actual, expected, "golden \(golden.lastPathComponent)", file: file, line: line)
}
