import Foundation
@testable import PipelineModel
import XCTest

/// The schema's patterns are read by the decoder too: these show they are not stricter than the
/// parsers behind them (mediabatch's SchemaCommandTests check the whole schema with Python's jsonschema).
final class PipelineSchemaTests: XCTestCase {

    /// Text values are read through the schema's own patterns: what a pattern refuses, the
    /// decoder refuses, and these show the patterns are not stricter than the parsers behind them.
    func testPatternsAgreeWithTheParsers() throws {
        let date = try NSRegularExpression(pattern: ISODate.pattern)
        let dates = ["2024-05-01", "2024-05-01T13:45", "2024-05-01 13:45:00", "2024-05-01T13:45:00.250Z", "2024-05-01T13:45:00+02:00",
                     "2024-05-01T13:45:00-0700", "2024-05-01T23:59:60", "2024-5-1", "2024-05-01T24:00", "2024-05-01Z", "2024-00-10",
                     "2024-05-32", "2024-05-01T13:45:00+2", "yesterday", ""]
        for text in dates where ISODate.parse(text) != nil {
            XCTAssertTrue(date.matches(text), text)
        }
        XCTAssertEqual(dates.filter(date.matches), Array(dates.prefix(7)))
        XCTAssertTrue(date.matches("2024-02-30"))
        XCTAssertNil(ISODate.parse("2024-02-30"), "the one kind of date the pattern lets through")

        let size = try NSRegularExpression(pattern: ByteSize.pattern)
        for text in ["600MiB", "1.5 GiB", "512MB", "4096", "4096B", " 2 TiB ", "1e3MiB", "0x10", "-1GiB", "1,5GiB", "lots"] {
            XCTAssertEqual(size.matches(text), ByteSize(parsing: text) != nil, text)
        }
        XCTAssertEqual(ByteSize(bytes: 1 << 30).json, "1GiB")
        XCTAssertEqual(ByteSize(bytes: 1500).json, 1500)
    }

    func testPathTemplatePatternsAgreeWithTheParser() throws {
        let schema = PathTemplate.schema
        let templates = ["{dir}/{stem}.{ext}", "{date:yyyy}/{date:MM}/{stem}.{ext}", "{date:yyyy-MM-dd_HH.mm.ss}_{stem}.{ext}",
                         "{hash:8}.{ext}", "{hash:+08}.{ext}", "{hash}.{ext}", "a}b/{stem}", "web/{stem}-2048.{ext}",
                         "{inputHash}.{ext}", "{inputHash:12}/{stem}", "{inputHash:3}", "{hashes}.{ext}", "{inputhash}.{ext}",
                         "{hash:3}.{ext}", "{hash:65}", "{dir}/{name}.{ext}", "{stem", "/tmp/{stem}", "../{stem}", "a/../{stem}",
                         "{dir}.{ext}", "", "{date:}/{stem}", "{date:yyy}/{stem}", "{date:--}/{stem}", "{date:MMM}/{stem}", "..x/{stem}"]
        for template in templates {
            XCTAssertEqual(try Self.accepts(schema, template), (try? PathTemplate(template)) != nil, template)
        }
    }

    /// Whether a string schema made of `pattern`, `allOf` and `not` accepts `text`.
    static func accepts(_ schema: JSONValue, _ text: String) throws -> Bool {
        guard case .object(let members) = schema else { return false }
        if case .string(let pattern)? = members["pattern"], try !NSRegularExpression(pattern: pattern).matches(text) { return false }
        if case .array(let parts)? = members["allOf"], try !parts.allSatisfy({ try accepts($0, text) }) { return false }
        if let negated = members["not"], try accepts(negated, text) { return false }
        return true
    }
}

extension NSRegularExpression {
    /// Whether the pattern matches somewhere in `text` (as JSON Schema's `pattern` does).
    func matches(_ text: String) -> Bool {
        firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
