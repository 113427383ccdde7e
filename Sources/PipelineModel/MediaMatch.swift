import Foundation
import MediaFormats

/// A filter expression over media, modelled on PHPickerFilter: kinds, formats and header
/// predicates, composed with `any` / `all` / `not` and nested freely.
public indirect enum MediaMatch: Equatable, Sendable {
    case kind(MediaKind)
    case format(Set<MediaFormat>)
    case hasLocation(Bool)
    /// An HDR photo's gain map travels with the image (Apple's, Ultra HDR, ISO 21496-1).
    case hasGainMap(Bool)
    case minPixels(Int)
    case maxPixels(Int)
    /// Captured at or after this instant.
    case capturedAfter(Date)
    /// Captured strictly before this instant, so `capturedAfter` and `capturedBefore` tile.
    case capturedBefore(Date)
    /// A case-insensitive glob over the camera model or "make model" ("iPhone*", "Canon EOS *").
    case camera(Glob)
    /// A glob over the file name, or over the relative path when the pattern has a `/`.
    case name(Glob)
    case any([MediaMatch])
    case all([MediaMatch])
    case not(MediaMatch)

    public func matches(_ facts: MediaFacts) -> Bool {
        switch self {
        case .kind(let kind): return facts.kinds.contains(kind)
        case .format(let formats): return formats.contains(facts.format)
        case .hasLocation(let expected): return facts.hasLocation == expected
        case .hasGainMap(let expected): return facts.hasGainMap == expected
        case .minPixels(let minimum): return facts.pixels.map { $0 >= minimum } ?? false
        case .maxPixels(let maximum): return facts.pixels.map { $0 <= maximum } ?? false
        case .capturedAfter(let date): return facts.capture.map { $0.date >= date } ?? false
        case .capturedBefore(let date): return facts.capture.map { $0.date < date } ?? false
        case .camera(let glob):
            let model = facts.model?.lowercased() ?? ""
            let makeAndModel = [facts.make, facts.model].compactMap { $0 }.joined(separator: " ").lowercased()
            return !makeAndModel.isEmpty && (glob.matches(model) || glob.matches(makeAndModel))
        case .name(let glob):
            let subject = glob.pattern.contains("/") ? facts.relativePath : (facts.relativePath as NSString).lastPathComponent
            return glob.matches(subject)
        case .any(let alternatives): return alternatives.contains { $0.matches(facts) }
        case .all(let requirements): return requirements.allSatisfy { $0.matches(facts) }
        case .not(let excluded): return !excluded.matches(facts)
        }
    }
}

extension MediaMatch {
    /// The conditions a filter object may hold, one key each: the operators, then the predicates.
    /// The decoder looks keys up here and the schema's `match` definition lists them.
    static let conditions: [Key<MediaMatch>] = [
        Key("any", ValueSyntax<[MediaMatch]>.matchList.map(MediaMatch.any), .required, "Matches when at least one of these conditions matches."),
        Key("all", ValueSyntax<[MediaMatch]>.matchList.map(MediaMatch.all), .required, "Matches when every one of these conditions matches."),
        Key("not", ValueSyntax.mediaMatch.map(MediaMatch.not), .required, "Matches when this condition does not."),
        Key("format", ValueSyntax<MediaFormat>.choice("a format", from: MediaFormat.inputs).oneOrMore().map { .format(Set($0)) }, .required,
            "The format sniffed from the file's bytes is this one or one of these."),
        Key("hasLocation", ValueSyntax.boolean.map(MediaMatch.hasLocation), .required,
            "Whether the item carries a location (EXIF GPS, XMP, IPTC, QuickTime keys and atoms)."),
        Key("hasGainMap", ValueSyntax.boolean.map(MediaMatch.hasGainMap), .required,
            "Whether the image carries an HDR gain map: Apple's (HEIC or JPEG), Ultra HDR or ISO 21496-1 (JPEG), or a HEIF tmap."),
        Key("minPixels", ValueSyntax.positiveInteger.map(MediaMatch.minPixels), .required,
            "Width × height is at least this. Items with unknown dimensions never match."),
        Key("maxPixels", ValueSyntax.positiveInteger.map(MediaMatch.maxPixels), .required,
            "Width × height is at most this. Items with unknown dimensions never match."),
        Key("capturedAfter", ValueSyntax.date.map(MediaMatch.capturedAfter), .required,
            "Captured at or after this date (ISO 8601; without a zone, UTC)."),
        Key("capturedBefore", ValueSyntax.date.map(MediaMatch.capturedBefore), .required,
            "Captured strictly before this date (ISO 8601; without a zone, UTC)."),
        Key("camera", ValueSyntax.nonEmptyString.map { .camera(Glob($0.lowercased())) }, .required,
            "A case-insensitive glob over the camera model or \"make model\" (\"iPhone*\", \"Canon EOS *\")."),
        Key("name", ValueSyntax.nonEmptyString.map { .name(Glob($0)) }, .required,
            "A glob over the file name, or over the path relative to the input root when it has a /."),
    ]

    static func decode(_ reader: JSONReader) throws -> MediaMatch {
        let conditionKeys = conditions.map { "\"\($0.name)\"" }.joined(separator: ", ")
        if case .string(let text) = reader.value {
            if let kind = MediaKind(rawValue: text) { return .kind(kind) }
            if let format = MediaFormat(rawValue: text) {
                throw reader.fail("\"\(text)\" is a format, not a media kind; write {\"format\": \"\(format.rawValue)\"}")
            }
            throw reader.expected("a media kind (one of \(MediaKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard case .object(let members) = reader.value, members.count == 1, let key = members.keys.first, let value = members[key] else {
            throw reader.expected("a media kind or an object with one key of \(conditionKeys)")
        }
        let operand = reader.child(key, value)
        guard let condition = conditions.first(where: { $0.name == key }) else {
            throw operand.fail("unknown condition; expected one of \(conditionKeys)")
        }
        return try condition.syntax.read(operand)
    }

    /// The schema of a filter expression: a media kind, or an object with one condition.
    static var schema: JSONValue {
        let kinds = JSONValue.array(MediaKind.allCases.map { .string($0.rawValue) })
        let kind: JSONValue = ["type": "string", "enum": kinds, "description": "A media kind: items of this kind match."]
        return [
            "description": "A filter expression: a media kind, or an object with exactly one condition; conditions nest freely.",
            "oneOf": .array([kind] + conditions.map { objectSchema([$0.described]) }),
        ]
    }
}

extension ValueSyntax where Value == MediaMatch {
    public static let mediaMatch = ValueSyntax(schema: ["$ref": "#/$defs/match"], read: MediaMatch.decode, json: nil)
}

extension ValueSyntax where Value == [MediaMatch] {
    static let matchList = ValueSyntax<MediaMatch>.mediaMatch.list(minItems: 1, empty: "expected at least one condition")
}

extension ValueSyntax where Value == Date {
    /// An ISO 8601 date, with the time, seconds and zone optional.
    static let date = ValueSyntax.text(ISODate.pattern, expected: "a date such as \"2024-05-01\" or \"2024-05-01T13:45:00+02:00\"",
                                       ISODate.parse)
}
