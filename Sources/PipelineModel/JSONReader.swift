/// Reads one JSON value at a known path and turns every mismatch into a path-qualified
/// `PipelineError`. Objects are read key by key; `finish()` rejects keys nobody asked for.
public struct JSONReader {
    public let value: JSONValue
    public let path: String

    public init(value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    public func fail(_ message: String) -> PipelineError {
        PipelineError(path: path, message: message)
    }

    public func expected(_ what: String) -> PipelineError {
        fail("expected \(what), found \(value.found)")
    }

    public func child(_ key: String, _ value: JSONValue) -> JSONReader {
        JSONReader(value: value, path: path.isEmpty ? key : "\(path).\(key)")
    }

    public func string() throws -> String {
        guard case .string(let text) = value else { throw expected("a string") }
        return text
    }

    public func nonEmptyString() throws -> String {
        guard case .string(let text) = value, !text.isEmpty else { throw expected("a non-empty string") }
        return text
    }

    public func boolean() throws -> Bool {
        guard case .bool(let flag) = value else { throw expected("true or false") }
        return flag
    }

    public func positiveInteger() throws -> Int {
        guard case .number(let number) = value, number == number.rounded(), number >= 1, number <= Double(Int32.max)
        else { throw expected("a positive integer") }
        return Int(number)
    }

    public func integer(in range: ClosedRange<Int>) throws -> Int {
        guard case .number(let number) = value, number == number.rounded(), range.contains(Int(exactly: number) ?? .min)
        else { throw expected("an integer from \(range.lowerBound) to \(range.upperBound)") }
        return Int(number)
    }

    public func array() throws -> [JSONReader] {
        guard case .array(let items) = value else { throw expected("an array") }
        return items.enumerated().map { JSONReader(value: $1, path: "\(path)[\($0)]") }
    }

    public func stringOrStrings() throws -> [JSONReader] {
        if case .string = value { return [self] }
        guard case .array = value else { throw expected("a string or an array of strings") }
        return try array()
    }

    public func object() throws -> ObjectReader {
        guard case .object(let members) = value else { throw expected("an object") }
        return ObjectReader(reader: self, members: members)
    }

    /// Accepts one of `choices` and returns its associated value; the message lists them all.
    public func oneOf<T>(_ what: String, _ choices: [(String, T)]) throws -> T {
        let names = choices.map(\.0)
        guard case .string(let text) = value, let match = choices.first(where: { $0.0 == text }) else {
            throw expected("\(what) (one of \(names.joined(separator: ", ")))")
        }
        return match.1
    }
}

/// Reads members of a JSON object, remembering which keys were read.
public final class ObjectReader {
    public let reader: JSONReader
    private let members: [String: JSONValue]
    private var read: Set<String> = []

    init(reader: JSONReader, members: [String: JSONValue]) {
        self.reader = reader
        self.members = members
    }

    public var keys: [String] { members.keys.sorted() }

    /// The keys asked for so far, present or not.
    public var readKeys: Set<String> { read }

    public func optional(_ key: String) -> JSONReader? {
        read.insert(key)
        return members[key].map { reader.child(key, $0) }
    }

    public func required(_ key: String) throws -> JSONReader {
        guard let value = optional(key) else {
            throw reader.fail("missing required key \"\(key)\"")
        }
        return value
    }

    /// Rejects keys that were never read: a misspelt option must not be silently ignored.
    public func finish() throws {
        let unknown = members.keys.filter { !read.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        let known = read.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        throw reader.child(first, members[first]!).fail("unknown key; expected one of \(known)")
    }
}
