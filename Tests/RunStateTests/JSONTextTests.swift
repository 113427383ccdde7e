import RunState
import XCTest

/// The in-place reader finds what a JSON parser finds, in texts as the state writes them and in
/// the corners of the syntax: escapes before quotes, nesting, space around values.
final class JSONTextTests: XCTestCase {
    func testMembersAndValuesMatchAParser() throws {
        let text = #"""
            { "a" : "say \"hi\" \\", "n": -12 , "t":true,"f" : false, "x": null,
              "o": {"deep": [1, {"k": "}]"}, "[\\"]}, "arr": [ "0123456789abcdef" ,"ff", 3 ], "e": {}, "l": [] }
            """#
        let json = JSONText(text)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let members = json.members(of: json.root)
        XCTAssertEqual(members.map(\.key), ["a", "n", "t", "f", "x", "o", "arr", "e", "l"])
        XCTAssertEqual(json.member("a", of: json.root).flatMap(json.string), parsed["a"] as? String)
        XCTAssertEqual(json.member("n", of: json.root).flatMap(json.integer), -12)
        XCTAssertEqual(json.member("t", of: json.root).flatMap(json.boolean), true)
        XCTAssertEqual(json.member("f", of: json.root).flatMap(json.boolean), false)
        XCTAssertNil(json.member("x", of: json.root).flatMap(json.string))
        XCTAssertNil(json.member("missing", of: json.root))

        // Each value's text parses to what the parser found there.
        for (key, value) in members {
            let alone = try JSONSerialization.jsonObject(with: Data(json.bytes[value]), options: .fragmentsAllowed)
            XCTAssertEqual(alone as? NSObject, parsed[key] as? NSObject, key)
        }
        let array = try XCTUnwrap(json.member("arr", of: json.root))
        XCTAssertEqual(json.elements(of: array).compactMap { json.stringBytes($0).map { String(decoding: $0, as: UTF8.self) } },
                       ["0123456789abcdef", "ff"])
        XCTAssertEqual(json.elements(of: array).count, 3)
        XCTAssertEqual(json.elements(of: try XCTUnwrap(json.member("l", of: json.root))).count, 0)
        XCTAssertEqual(json.members(of: try XCTUnwrap(json.member("e", of: json.root))).count, 0)
        let nested = try XCTUnwrap(json.member("o", of: json.root))
        XCTAssertEqual(json.members(of: nested).map(\.key), ["deep"])
    }

    func testAStringOfManyEscapedQuotesEndsAtItsOwnQuote() throws {
        // Quotes after one, two and three backslashes: odd counts escape the quote, even ones do not.
        let value = String(repeating: #"x\"\\"#, count: 300) + "\\"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: ["s": value, "after": 1]), as: UTF8.self)
        let json = JSONText(text)
        XCTAssertEqual(json.member("s", of: json.root).flatMap(json.string), value)
        XCTAssertEqual(json.member("after", of: json.root).flatMap(json.integer), 1)
    }
}
