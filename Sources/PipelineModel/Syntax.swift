import Foundation

/// How one JSON value of a pipeline file is read, and the JSON Schema that describes what it
/// accepts. The decoder reads every value through one of these and `PipelineSchema` prints their
/// schemas, so the two cannot disagree. A schema may accept more than `read` only where the reason
/// is beyond JSON Schema (a date like 31 February, a size that rounds to 0 bytes).
public struct ValueSyntax<Value> {
    public let schema: JSONValue
    public let read: (JSONReader) throws -> Value
    /// How a default of this type is written in the schema; nil where no default is ever given.
    public var json: ((Value) -> JSONValue)?

    /// The same JSON read into another type (a filter condition from its operand, say).
    public init(schema: JSONValue, read: @escaping (JSONReader) throws -> Value, json: ((Value) -> JSONValue)?) {
        self.schema = schema
        self.read = read
        self.json = json
    }

    public func map<Other>(_ transform: @escaping (Value) throws -> Other) -> ValueSyntax<Other> {
        let read = self.read
        return ValueSyntax<Other>(schema: schema, read: { try transform(read($0)) }, json: nil)
    }
}

extension ValueSyntax where Value == Int {
    public static let positiveInteger = ValueSyntax(
        schema: ["type": "integer", "minimum": 1, "maximum": .number(Double(Int32.max))],
        read: { try $0.positiveInteger() }, json: { .number(Double($0)) })

    public static func integer(in range: ClosedRange<Int>) -> ValueSyntax {
        ValueSyntax(schema: ["type": "integer", "minimum": .number(Double(range.lowerBound)), "maximum": .number(Double(range.upperBound))],
                    read: { try $0.integer(in: range) }, json: { .number(Double($0)) })
    }
}

extension ValueSyntax where Value == Bool {
    public static let boolean = ValueSyntax(schema: ["type": "boolean"], read: { try $0.boolean() }, json: { .bool($0) })
}

extension ValueSyntax where Value == String {
    public static let string = ValueSyntax(schema: ["type": "string"], read: { try $0.string() }, json: { .string($0) })
    public static let nonEmptyString = ValueSyntax(schema: ["type": "string", "minLength": 1], read: { try $0.nonEmptyString() },
                                            json: { .string($0) })
}

extension ValueSyntax where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
    /// One of the type's cases by its raw value; `what` names it in messages ("an output format").
    public static func choice(_ what: String, from cases: [Value] = Array(Value.allCases)) -> ValueSyntax {
        ValueSyntax(schema: ["type": "string", "enum": .array(cases.map { .string($0.rawValue) })],
                    read: { try $0.oneOf(what, cases.map { ($0.rawValue, $0) }) }, json: { .string($0.rawValue) })
    }
}

extension ValueSyntax {
    /// A string matching `pattern` (the schema's `pattern`, an ECMA-262 and ICU regular expression
    /// both), then `parse`d; nil from `parse` is refused too. Reading goes through the pattern first,
    /// so the schema accepts everything `read` does.
    public static func text(_ pattern: String, expected: String, _ parse: @escaping (String) -> Value?) -> ValueSyntax {
        let expression = try! NSRegularExpression(pattern: pattern)
        return ValueSyntax(schema: ["type": "string", "pattern": .string(pattern)], read: { reader in
            guard case .string(let text) = reader.value,
                  expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil,
                  let value = parse(text)
            else { throw reader.expected(expected) }
            return value
        }, json: nil)
    }

    /// A number read by `number`, or a string read by `text` (a size: `1073741824` or `"1GiB"`);
    /// anything else is refused with `expected`.
    public static func number(_ number: ValueSyntax, orText text: ValueSyntax, expected: String) -> ValueSyntax {
        ValueSyntax(schema: ["anyOf": [number.schema, text.schema]], read: { reader in
            switch reader.value {
            case .number: return try number.read(reader)
            case .string: return try text.read(reader)
            default: throw reader.expected(expected)
            }
        }, json: text.json ?? number.json)
    }

    /// A JSON array of these values; `minItems` 1 refuses an empty one with `empty` as the message.
    public func list(minItems: Int = 0, empty: String = "") -> ValueSyntax<[Value]> {
        let read = self.read
        var schema: JSONValue = ["type": "array", "items": self.schema]
        if minItems > 0 { schema = schema.merging(["minItems": .number(Double(minItems))]) }
        let json = self.json
        return ValueSyntax<[Value]>(schema: schema, read: { reader in
            let items = try reader.array()
            guard items.count >= minItems else { throw reader.fail(empty) }
            return try items.map(read)
        }, json: json.map { json in { .array($0.map(json)) } })
    }

    /// A JSON array (non-empty unless `allowingEmpty`) whose values each appear once; a repeated
    /// one is refused where it stands.
    public func distinctList(of what: String, allowingEmpty: Bool = false) -> ValueSyntax<[Value]> where Value: Equatable {
        let read = self.read
        let schema: JSONValue = ["type": "array", "items": self.schema, "minItems": allowingEmpty ? 0 : 1, "uniqueItems": true]
        return ValueSyntax<[Value]>(schema: schema, read: { reader in
            var values: [Value] = []
            for item in try reader.array() {
                let value = try read(item)
                guard !values.contains(value) else { throw item.fail("this \(what) appears twice") }
                values.append(value)
            }
            guard allowingEmpty || !values.isEmpty else { throw reader.fail("expected at least one \(what)") }
            return values
        }, json: nil)
    }

    /// One of these values, or an array of distinct ones (`"h264"` or `["av1", "h264"]`).
    public func oneOrDistinct(of what: String) -> ValueSyntax<[Value]> where Value: Equatable {
        let list = distinctList(of: what)
        let read = self.read, json = self.json
        return ValueSyntax<[Value]>(schema: ["anyOf": [schema, list.schema]], read: { reader in
            guard case .array = reader.value else { return [try read(reader)] }
            return try list.read(reader)
        }, json: json.map { json in { $0.count == 1 ? json($0[0]) : .array($0.map(json)) } })
    }

    /// One of these values, or an array of them (`"heic"` or `["heic", "avif"]`).
    public func oneOrMore(minItems: Int = 0, empty: String = "") -> ValueSyntax<[Value]> {
        let list = self.list(minItems: minItems, empty: empty)
        let read = self.read
        return ValueSyntax<[Value]>(schema: ["anyOf": [schema, list.schema]], read: { reader in
            if case .string = reader.value { return [try read(reader)] }
            guard case .array = reader.value else { throw reader.expected("a string or an array of strings") }
            return try list.read(reader)
        }, json: list.json)
    }
}

/// One key of a pipeline object: its name, its value's syntax, whether it is required or what it
/// defaults to, and what it means. The decoder reads the key through it; the schema lists it.
public struct Key<Value> {
    public enum Fallback {
        case required
        /// Absent means this value (one of `Defaults`).
        case value(Value)
        /// Absent means something the schema cannot state (the command line decides, one per CPU...).
        case noDefault
    }

    public let name: String
    public let syntax: ValueSyntax<Value>
    public let fallback: Fallback
    public let help: String

    public init(_ name: String, _ syntax: ValueSyntax<Value>, _ fallback: Fallback, _ help: String) {
        self.name = name
        self.syntax = syntax
        self.fallback = fallback
        self.help = help
    }

    /// The key as the schema describes it.
    public var described: DescribedKey {
        var annotations: [String: JSONValue] = ["description": .string(help)]
        if case .value(let value) = fallback, let json = syntax.json { annotations["default"] = json(value) }
        if case .required = fallback {
            return DescribedKey(name: name, required: true, schema: syntax.schema.merging(annotations))
        }
        return DescribedKey(name: name, required: false, schema: syntax.schema.merging(annotations))
    }
}

/// A key stripped of its Swift type: what an object's schema is made of.
public struct DescribedKey: Sendable {
    public let name: String
    public let required: Bool
    public let schema: JSONValue

    public init(name: String, required: Bool, schema: JSONValue) {
        self.name = name
        self.required = required
        self.schema = schema
    }
}

/// The schema of a JSON object with exactly these keys.
public func objectSchema(_ keys: [DescribedKey], description: String? = nil, extra: [String: JSONValue] = [:]) -> JSONValue {
    var schema: [String: JSONValue] = [
        "type": "object",
        "properties": .object(Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0.schema) })),
        "additionalProperties": false,
    ]
    let required = keys.filter(\.required).map { JSONValue.string($0.name) }
    if !required.isEmpty { schema["required"] = .array(required) }
    if let description { schema["description"] = .string(description) }
    return .object(schema.merging(extra) { _, new in new })
}

extension ObjectReader {
    /// A required key's value, or a defaulted key's value or default.
    public func value<Value>(_ key: Key<Value>) throws -> Value {
        if case .value(let fallback) = key.fallback {
            return try optional(key.name).map(key.syntax.read) ?? fallback
        }
        precondition({ if case .required = key.fallback { return true } else { return false } }(),
                     "\(key.name) has no default: read it with optionalValue")
        return try key.syntax.read(required(key.name))
    }

    /// The value of a key without a default, nil when absent.
    public func optionalValue<Value>(_ key: Key<Value>) throws -> Value? {
        try optional(key.name).map(key.syntax.read)
    }

    /// `finish()`, after checking that the keys read are exactly those the schema lists for this
    /// object: a key read but not listed (or listed but never read) is a mistake in mediabatch,
    /// caught by any test that decodes such an object.
    func finish(declared keys: [DescribedKey]) throws {
        assert(Set(keys.map(\.name)) == readKeys, "schema keys \(keys.map(\.name).sorted()) ≠ keys read \(readKeys.sorted())")
        try finish()
    }
}
