import Foundation

/// A filter expression over media, modelled on PHPickerFilter: kinds, formats and header
/// predicates, composed with `any` / `all` / `not` and nested freely.
public indirect enum MediaMatch: Equatable, Sendable {
    case kind(MediaKind)
    case format(Set<MediaFormat>)
    case hasLocation(Bool)
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
    static let operators = ["any", "all", "not"]
    static let predicates = ["format", "hasLocation", "minPixels", "maxPixels", "capturedAfter", "capturedBefore", "camera", "name"]

    static func decode(_ reader: JSONReader) throws -> MediaMatch {
        let conditionKeys = (operators + predicates).map { "\"\($0)\"" }.joined(separator: ", ")
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
        switch key {
        case "any", "all":
            let parts = try operand.array()
            guard !parts.isEmpty else { throw operand.fail("expected at least one condition") }
            let matches = try parts.map(decode)
            return key == "any" ? .any(matches) : .all(matches)
        case "not":
            return .not(try decode(operand))
        case "format":
            let formats = MediaFormat.allCases.map { ($0.rawValue, $0) }
            return .format(Set(try operand.stringOrStrings().map { try $0.oneOf("a format", formats) }))
        case "hasLocation":
            return .hasLocation(try operand.boolean())
        case "minPixels":
            return .minPixels(try operand.positiveInteger())
        case "maxPixels":
            return .maxPixels(try operand.positiveInteger())
        case "capturedAfter", "capturedBefore":
            let text = try operand.string()
            guard let date = ISODate.parse(text) else {
                throw operand.expected("a date such as \"2024-05-01\" or \"2024-05-01T13:45:00+02:00\"")
            }
            return key == "capturedAfter" ? .capturedAfter(date) : .capturedBefore(date)
        case "camera":
            return .camera(Glob(try operand.nonEmptyString().lowercased()))
        case "name":
            return .name(Glob(try operand.nonEmptyString()))
        default:
            throw operand.fail("unknown condition; expected one of \(conditionKeys)")
        }
    }
}
