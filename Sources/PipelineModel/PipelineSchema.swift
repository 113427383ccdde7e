import Foundation

/// The JSON Schema (draft 2020-12) of pipeline files, built from the keys, stages and filter
/// conditions the decoder reads (`PipelineKeys.swift`, each stage's `syntax`, `MediaMatch.swift`),
/// so that editors check a file as `mediabatch validate` does. What it cannot say: the order of
/// stages and what they need before them, dates a month lacks (31 February), sizes under a byte,
/// durations past 68 years, and whether folders exist.
public enum PipelineSchema {
    public static let dialect = "https://json-schema.org/draft/2020-12/schema"

    static func document(_ catalog: StageCatalog) -> JSONValue {
        objectSchema(TopLevelKeys.all(catalog), description: "A mediabatch pipeline: what to read, the stages to run, where outputs go.", extra: [
            "$schema": .string(dialect),
            "title": .string("mediabatch pipeline, version \(Defaults.supportedVersion)"),
            "$defs": [
                "stage": ["description": "One stage, told by its \"stage\" key.", "oneOf": .array(catalog.syntaxes.map(\.schema))],
                "match": MediaMatch.schema,
            ],
        ])
    }

    /// The schema of pipelines of the stages `catalog` lists, as pretty-printed JSON with sorted
    /// keys, ending with a newline.
    public static func text(_ catalog: StageCatalog) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try! encoder.encode(document(catalog)), as: UTF8.self) + "\n"
    }
}
