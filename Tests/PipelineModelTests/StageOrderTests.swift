import Foundation
@testable import PipelineModel
import XCTest

/// The order checks read only what each stage declares (`StagePlacement`): shown here on stages
/// of the tests' own, without mediabatch's (MediaBatchCore's StageListTests check those).
final class StageOrderTests: XCTestCase {
    /// Opens what the others shape, like `decode`.
    struct Open: Stage {
        static let syntax = [StageSyntax(spelling: "open", help: "opens", options: []) { _ in Open() }]
        static let placement = StagePlacement()
        var fingerprint: String { "open" }
    }

    /// Chooses before anything is opened, like `filter`.
    struct Pick: Stage {
        static let syntax = [StageSyntax(spelling: "pick", help: "picks", options: []) { _ in Pick() }]
        static let placement = StagePlacement(rules: [.before(StageName("open")), .notAfterLast])
        var fingerprint: String { "pick" }
    }

    /// Makes a picture the shaping stages shape, like `poster`.
    struct Frame: Stage {
        static let syntax = [StageSyntax(spelling: "frame", help: "frames", options: []) { _ in Frame() }]
        static let placement = StagePlacement(rules: [.notAfterLast, .after(StageName("open")), .beforeShaping])
        var fingerprint: String { "frame" }
    }

    /// Shapes pictures, like `downsample`; also spelled `halve`.
    struct Shape: Stage {
        static let syntax = [
            StageSyntax(spelling: "shape", help: "shapes", options: []) { _ in Shape() },
            StageSyntax(spelling: "halve", name: StageName("shape"), help: "shapes by half", options: []) { _ in Shape() },
        ]
        static let placement = StagePlacement(rules: [.after(StageName("open"), why: " (it shapes)"), .notAfterLast], shapesPictures: true,
                                              needsLast: true)
        var fingerprint: String { "shape" }
    }

    /// Does the shaping stage's work itself, like `variants`.
    struct Every: Stage {
        static let syntax = [StageSyntax(spelling: "every", help: "every shape", options: []) { _ in Every() }]
        static let placement = StagePlacement(rules: [.after(StageName("open")), .notAfterLast], shapesPictures: true,
                                              replaces: ([StageName("shape")], "every shape is made here"), needsLast: true)
        var fingerprint: String { "every" }
    }

    /// Writes, like `write`.
    struct Last: Stage {
        static let syntax = [StageSyntax(spelling: "last", help: "writes", options: []) { _ in Last() }]
        static let placement = StagePlacement(rules: [], isLast: true)
        var fingerprint: String { "last" }
    }

    let catalog = StageCatalog([Pick.self, Open.self, Frame.self, Shape.self, Every.self, Last.self])

    func decode(_ stages: String) throws -> Pipeline {
        try Pipeline.decode(Data(#"{"version": 1, "stages": [\#(stages)]}"#.utf8), baseDirectory: URL(fileURLWithPath: "/"), catalog: catalog)
    }

    func failure(_ stages: String) -> String {
        do {
            _ = try decode(stages)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    func testEachRuleIsCheckedWithWhatItSays() {
        let cases: [(String, String)] = [
            (#"{"stage": "open"}, {"stage": "pick"}"#, #"stages[1]: "pick" must come before "open""#),
            (#"{"stage": "halve"}, {"stage": "open"}, {"stage": "last"}"#, #"stages[0]: "halve" needs a "open" stage before it (it shapes)"#),
            (#"{"stage": "open"}, {"stage": "last"}, {"stage": "shape"}"#, #"stages[2]: "last" must be the last stage"#),
            (#"{"stage": "open"}, {"stage": "shape"}, {"stage": "frame"}, {"stage": "last"}"#,
             #"stages[2]: "frame" must come before "shape": the stages after it shape the frame"#),
            (#"{"stage": "open"}, {"stage": "shape"}, {"stage": "every"}, {"stage": "last"}"#,
             #"stages[2]: "every" and "shape" (stages[1]) cannot be combined: every shape is made here"#),
            (#"{"stage": "open"}, {"stage": "every"}, {"stage": "halve"}, {"stage": "last"}"#,
             #"stages[2]: "shape" and "every" (stages[1]) cannot be combined: every shape is made here"#),
            (#"{"stage": "open"}, {"stage": "shape"}, {"stage": "halve"}, {"stage": "last"}"#,
             #"stages[2]: "halve" appears twice; a pipeline runs each stage once"#),
            (#"{"stage": "open"}, {"stage": "halve"}"#, #"stages: "halve" has no effect without a "last" stage"#),
            (#"{"stage": "crop"}"#, #"stages[0].stage: expected a stage name (one of pick, open, frame, shape, every, last, halve), found "crop""#),
        ]
        for (stages, expected) in cases {
            XCTAssertEqual(failure(stages), expected, stages)
        }
    }

    /// Rules are checked in the order a stage lists them: `frame` after `last` and without `open`
    /// is told it comes after the last stage first.
    func testAStageThatBreaksSeveralRulesIsToldTheFirst() {
        XCTAssertEqual(failure(#"{"stage": "last"}, {"stage": "frame"}"#), #"stages[1]: "last" must be the last stage"#)
        XCTAssertEqual(failure(#"{"stage": "last"}, {"stage": "shape"}"#), #"stages[1]: "shape" needs a "open" stage before it (it shapes)"#)
    }

    func testEveryOrderWithAMeaningIsAccepted() throws {
        for stages in [#"{"stage": "pick"}, {"stage": "open"}, {"stage": "frame"}, {"stage": "halve"}, {"stage": "last"}"#,
                       #"{"stage": "open"}, {"stage": "every"}, {"stage": "last"}"#, #"{"stage": "open"}"#] {
            XCTAssertEqual(failure(stages), "accepted", stages)
        }
        XCTAssertEqual(try decode(#"{"stage": "open"}, {"stage": "halve"}, {"stage": "last"}"#).stages.map(\.name.rawValue), ["open", "shape", "last"])
    }

    /// One `oneOf` branch a spelling, each kind at most once, in the catalog's order.
    func testTheSchemaListsEverySpelling() throws {
        let schema = try JSONSerialization.jsonObject(with: Data(PipelineSchema.text(catalog).utf8)) as! [String: Any]
        let branches = ((schema["$defs"] as! [String: Any])["stage"] as! [String: Any])["oneOf"] as! [[String: Any]]
        XCTAssertEqual(branches.map { (($0["properties"] as! [String: Any])["stage"] as! [String: Any])["const"] as! String },
                       ["pick", "open", "frame", "shape", "every", "last", "halve"])
        let stages = (schema["properties"] as! [String: Any])["stages"] as! [String: Any]
        XCTAssertEqual((stages["allOf"] as! [Any]).count, 6)
    }
}
