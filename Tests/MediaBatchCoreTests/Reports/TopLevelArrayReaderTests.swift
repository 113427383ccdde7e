import Foundation
@testable import MediaBatchCore
import TestSupport
import XCTest

/// The array's elements come out whole and in order, whatever their strings hold, and the rest
/// of the document decodes on its own.
final class TopLevelArrayReaderTests: XCTestCase {
    func testElementsAndTheRestOfTheDocument() throws {
        let document = #"""
            {"before": {"items": [1, 2]}, "note": "items", "items" : [
              {"input": "a \"[{\" b", "n": [1, {"x": "}]"}]},
              {"input": "c\\", "items": []}
            ], "after": [3], "s": "\u005d"}
            """#
        let file = Fixtures.temporaryFolder().appendingPathComponent("document.json")
        try Data(document.utf8).write(to: file)
        let reader = try TopLevelArrayReader(file, key: "items")
        var elements: [String] = []
        while let element = try reader.next() { elements.append(String(decoding: element, as: UTF8.self)) }
        XCTAssertEqual(elements, [#"{"input": "a \"[{\" b", "n": [1, {"x": "}]"}]}"#, #"{"input": "c\\", "items": []}"#])
        for element in elements { XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(element.utf8))) }
        let rest = try JSONSerialization.jsonObject(with: reader.remainder()) as? NSDictionary
        XCTAssertEqual(rest, ["before": ["items": [1, 2]], "note": "items", "items": [], "after": [3], "s": "]"] as NSDictionary)
    }
}
