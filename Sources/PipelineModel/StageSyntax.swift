import MediaFormats

/// How a pipeline file writes one stage: the `"stage"` spelling, its options, and the stage they
/// make. The decoder finds stages by these and the schema has one `oneOf` branch per spelling,
/// so a new stage (or a new spelling of one, like `stripLocation`) is one more of these.
public struct StageSyntax: Sendable {
    public let spelling: String
    public let name: StageName
    public let help: String
    public let options: [DescribedKey]
    /// Options of which exactly one must be given.
    public var exclusive: [String] = []
    /// What else the schema says of the options together.
    public var rules: [String: JSONValue] = [:]
    public let make: @Sendable (ObjectReader) throws -> any Stage

    public init(spelling: String, name: StageName? = nil, help: String, options: [DescribedKey], exclusive: [String] = [],
                rules: [String: JSONValue] = [:], make: @escaping @Sendable (ObjectReader) throws -> any Stage) {
        self.spelling = spelling
        self.name = name ?? StageName(spelling)
        self.help = help
        self.options = options
        self.exclusive = exclusive
        self.rules = rules
        self.make = make
    }

    /// Every key of this stage's object, `"stage"` included.
    var keys: [DescribedKey] {
        [DescribedKey(name: "stage", required: true, schema: ["const": .string(spelling), "description": .string(help)])] + options
    }

    var schema: JSONValue {
        guard !exclusive.isEmpty else { return objectSchema(keys, extra: rules) }
        return objectSchema(keys, extra: rules.merging(["oneOf": .array(exclusive.map { ["required": [.string($0)]] })]) { _, new in new })
    }
}

extension StageCatalog {
    /// "Each stage at most once", for the stage list's schema: one rule per stage kind.
    var atMostOnce: [JSONValue] {
        types.map { type in
            let spellings = type.syntax.map { JSONValue.string($0.spelling) }
            return ["contains": ["type": "object", "required": ["stage"], "properties": ["stage": ["enum": .array(spellings)]]],
                    "minContains": 0, "maxContains": 1]
        }
    }
}
