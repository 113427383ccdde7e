import Foundation
@testable import MediaBatchCore
@testable import PipelineModel
import XCTest

/// The schema is built from what the decoder reads; these check the parts a real validator
/// (mediabatch's SchemaCommandTests, with Python's jsonschema) cannot see from outside.
final class StageSchemaTests: XCTestCase {
    let base = URL(fileURLWithPath: "/jobs/pipelines")

    var schema: [String: Any] {
        try! JSONSerialization.jsonObject(with: Data(PipelineSchema.text().utf8)) as! [String: Any]
    }

    /// A file that spells out every default the schema states decodes to the same pipeline as
    /// one that leaves them out: the schema's defaults are mediabatch's.
    func testSpelledOutSchemaDefaultsDecodeAsTheDefaults() throws {
        let properties = schema["properties"] as! [String: Any]
        func defaults(_ object: String) -> [String: Any] {
            let keys = (properties[object] as! [String: Any])["properties"] as! [String: [String: Any]]
            return keys.compactMapValues { $0["default"] }
        }
        let stageSchemas = (schema["$defs"] as! [String: Any])["stage"] as! [String: Any]
        var stages: [[String: Any]] = []
        for case let stage as [String: Any] in stageSchemas["oneOf"] as! [Any] {
            let keys = stage["properties"] as! [String: [String: Any]]
            let name = keys["stage"]!["const"] as! String
            guard ["filter", "decode", "transcode", "write"].contains(name) else { continue }
            let required: [String: Any] = ["filter": ["match": "images"], "transcode": ["to": "webp"]][name] as? [String: Any] ?? [:]
            stages.append(keys.compactMapValues { $0["default"] }.merging(required) { $1 }.merging(["stage": name]) { $1 })
        }
        XCTAssertEqual(stages.count, 4)
        let spelled: [String: Any] = ["version": 1, "input": defaults("input"), "limits": defaults("limits"),
                                      "onError": properties["onError"].flatMap { ($0 as! [String: Any])["default"] }!, "stages": stages]
        XCTAssertEqual(defaults("input").count, 9)
        XCTAssertEqual(defaults("limits").count, 6, "maxPixels' default depends on the decoder: the schema states none")
        let bare = #"{"version": 1, "stages": [{"stage": "filter", "match": "images"}, {"stage": "decode"}, {"stage": "transcode", "to": "webp"}, {"stage": "write"}]}"#
        let (spelledOut, left) = (try Pipeline.decode(JSONSerialization.data(withJSONObject: spelled), baseDirectory: base),
                                  try Pipeline.decode(Data(bare.utf8), baseDirectory: base))
        XCTAssertEqual(spelledOut.input, left.input)
        XCTAssertEqual(spelledOut.limits, left.limits)
        XCTAssertEqual(spelledOut.onError, left.onError)
        XCTAssertEqual(spelledOut.stages.map(\.fingerprint), left.stages.map(\.fingerprint))
    }

    /// Every stage kind has a spelling, every spelling one `oneOf` branch, in the order the
    /// decoder's messages list them.
    func testEveryStageHasItsBranch() {
        let spellings = StageList.catalog.syntaxes.map(\.spelling)
        let types = StageList.catalog.types
        XCTAssertEqual(Array(spellings.prefix(types.count)), types.map { $0.syntax[0].spelling }, "each type's own, in the list's order, then presets")
        XCTAssertEqual(spellings.last, "stripLocation")
        XCTAssertEqual(Set(StageList.catalog.types.map { $0.name }).count, StageList.catalog.types.count, "a stage type a kind")
        let branches = ((schema["$defs"] as! [String: Any])["stage"] as! [String: Any])["oneOf"] as! [[String: Any]]
        XCTAssertEqual(branches.map { (($0["properties"] as! [String: Any])["stage"] as! [String: Any])["const"] as! String }, spellings)
    }
}
