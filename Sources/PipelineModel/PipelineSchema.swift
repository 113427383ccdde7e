import Foundation

/// The JSON Schema (draft 2020-12) of pipeline files, built from the keys, stages and filter
/// conditions the decoder reads (`PipelineKeys.swift`, `StageSyntax.swift`, `MediaMatch.swift`),
/// so that editors check a file as `mediabatch validate` does. What it cannot say: the order of
/// stages and what they need before them, dates a month lacks (31 February), sizes under a byte,
/// durations past 68 years, and whether folders exist.
public enum PipelineSchema {
    public static let dialect = "https://json-schema.org/draft/2020-12/schema"

    static var document: JSONValue {
        objectSchema(TopLevelKeys.all, description: "A mediabatch pipeline: what to read, the stages to run, where outputs go.", extra: [
            "$schema": .string(dialect),
            "title": .string("mediabatch pipeline, version \(Defaults.supportedVersion)"),
            "$defs": [
                "stage": ["description": "One stage, told by its \"stage\" key.", "oneOf": .array(StageSyntax.all.map(\.schema))],
                "match": MediaMatch.schema,
            ],
        ])
    }

    /// The schema as pretty-printed JSON with sorted keys, ending with a newline.
    public static func text() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(document), as: UTF8.self) + "\n"
    }
}
