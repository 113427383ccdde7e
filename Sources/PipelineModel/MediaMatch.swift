/// A filter expression over media, modelled on PHPickerFilter: a kind, a format, or
/// `any` / `all` / `not` of other expressions, nested freely.
public indirect enum MediaMatch: Equatable, Sendable {
    case kind(MediaKind)
    case format(MediaFormat)
    case any([MediaMatch])
    case all([MediaMatch])
    case not(MediaMatch)

    /// The facts about one item that a match is decided on, all read from its header.
    public struct Facts: Sendable {
        public let format: MediaFormat

        public init(format: MediaFormat) {
            self.format = format
        }
    }

    public func matches(_ facts: Facts) -> Bool {
        switch self {
        case .kind(let kind): return facts.format.kind == kind
        case .format(let format): return facts.format == format
        case .any(let alternatives): return alternatives.contains { $0.matches(facts) }
        case .all(let requirements): return requirements.allSatisfy { $0.matches(facts) }
        case .not(let excluded): return !excluded.matches(facts)
        }
    }
}

extension MediaMatch {
    static func decode(_ reader: JSONReader) throws -> MediaMatch {
        if case .string = reader.value {
            return .kind(try reader.oneOf("a media kind", MediaKind.allCases.map { ($0.rawValue, $0) }))
        }
        guard case .object(let members) = reader.value, members.count == 1, let key = members.keys.first else {
            throw reader.expected("a media kind or an object with one key of \"any\", \"all\", \"not\", \"format\"")
        }
        let object = try reader.object()
        switch key {
        case "any", "all":
            let parts = try object.required(key).array()
            guard !parts.isEmpty else { throw reader.child(key, .array([])).fail("expected at least one condition") }
            let matches = try parts.map(decode)
            return key == "any" ? .any(matches) : .all(matches)
        case "not":
            return .not(try decode(object.required("not")))
        case "format":
            return .format(try object.required("format").oneOf("a format", MediaFormat.allCases.map { ($0.rawValue, $0) }))
        default:
            throw reader.child(key, members[key]!).fail("unknown condition; expected one of \"any\", \"all\", \"not\", \"format\"")
        }
    }
}
