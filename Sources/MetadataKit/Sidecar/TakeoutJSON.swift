import Foundation

/// The JSON Google Takeout writes beside each photo (`IMG_1234.jpg.json`,
/// `IMG_1234.jpg.supplemental-metadata.json`): when it was taken (`photoTakenTime.timestamp`, epoch
/// seconds as a string) and where, in `geoData` (Google Photos' location, perhaps edited there) and
/// `geoDataExif` (the photo's own GPS). Takeout writes "no location" as every field `0.0`.
public enum TakeoutJSON {
    /// What a run needs of the sidecar.
    public struct Facts: Equatable, Sendable {
        /// `photoTakenTime.timestamp`: an instant, the JSON's epoch seconds being UTC.
        public var takenAt: Date?
        /// Whether `geoData` or `geoDataExif` has a non-zero latitude or longitude.
        public var hasLocation: Bool
    }

    /// The top-level members that place the photo.
    static let locationMembers = ["geoData", "geoDataExif"]

    /// - Throws: `MetadataFormatError` naming what is wrong, and where, when the bytes are not a
    ///   JSON object.
    public static func facts(in bytes: [UInt8]) throws -> Facts {
        try read(bytes)
    }

    /// The sidecar with every number in its top-level `geoData` and `geoDataExif` written `0.0`,
    /// Takeout's own "no location", or nil when they are all zero already.
    ///
    /// Edited in the bytes rather than re-serialised, so that everything else (key order, spacing,
    /// number forms, `\u` escapes, a BOM) stays byte for byte; JSONDecoder judges the JSON.
    ///
    /// - Throws: `MetadataFormatError` when the bytes are not a JSON object.
    public static func removingLocation(from bytes: [UInt8]) throws -> [UInt8]? {
        _ = try read(bytes)
        let edits = try locationNumbers(in: bytes).filter { Double(String(decoding: bytes[$0], as: UTF8.self)) != 0 }
        guard !edits.isEmpty else { return nil }
        return edits.reversed().reduce(into: bytes) { $0.replaceSubrange($1, with: Array("0.0".utf8)) }
    }

    /// The facts of a JSON object, JSONDecoder judging it (JSONSerialization, slower, only says why
    /// it refuses): a member of another type than Takeout writes is as absent.
    private static func read(_ bytes: [UInt8]) throws -> Facts {
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(bytes.dropFirst(3)) : Data(bytes)
        do {
            return try JSONDecoder().decode(Document.self, from: text).facts
        } catch {
            let value: Any
            do {
                value = try JSONSerialization.jsonObject(with: text)
            } catch {
                let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
                throw MetadataFormatError(message: "Takeout JSON is not valid JSON: \(reason)")
            }
            // Without `.fragmentsAllowed`, anything else at the top level is refused above.
            throw MetadataFormatError(message: value is [Any] ? "Takeout JSON is an array at its top level, not an object"
                                                              : "Takeout JSON is not valid JSON")
        }
    }

    private struct Document: Decodable {
        let facts: Facts

        private struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(_ name: String) { stringValue = name }
            init(stringValue: String) { self.init(stringValue) }
            init?(intValue: Int) { nil }
        }

        init(from decoder: Decoder) throws {
            let object = try decoder.container(keyedBy: Key.self)
            let taken = try? object.nestedContainer(keyedBy: Key.self, forKey: Key("photoTakenTime"))
            let timestamp = (try? taken?.decodeIfPresent(String.self, forKey: Key("timestamp"))) ?? nil
            let hasLocation = TakeoutJSON.locationMembers.contains { member in
                guard let geo = try? object.nestedContainer(keyedBy: Key.self, forKey: Key(member)) else { return false }
                return ["latitude", "longitude"].contains { ((try? geo.decodeIfPresent(Double.self, forKey: Key($0))) ?? nil ?? 0) != 0 }
            }
            facts = Facts(takenAt: timestamp.flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)), hasLocation: hasLocation)
        }
    }

    /// Where the number tokens in the values of the top-level location members are.
    private static func locationNumbers(in bytes: [UInt8]) throws -> [Range<Int>] {
        var found: [Range<Int>] = []
        var depth = 0, member: String?, expectsKey = false
        for token in try tokens(bytes) {
            switch token {
            case .open: depth += 1
            case .close: depth -= 1
            case .string(let range) where expectsKey: member = key(bytes[range])
            case .number(let range):
                if let member, locationMembers.contains(member) { found.append(range) }
            case .string, .colon, .comma, .literal: break
            }
            // A string right after the top-level object opens, or after a comma in it, is a key.
            expectsKey = depth == 1 && (token == .open || token == .comma)
        }
        return found
    }

    /// A member name as JSON reads it: `"geo\u0044ata"` is `geoData`.
    private static func key(_ token: ArraySlice<UInt8>) -> String? {
        guard token.contains(UInt8(ascii: "\\")) else { return String(decoding: token.dropFirst().dropLast(), as: UTF8.self) }
        return try? JSONSerialization.jsonObject(with: Data(token), options: .fragmentsAllowed) as? String
    }

    /// JSON's tokens, enough to walk its structure and find its numbers.
    private enum Token: Equatable {
        case open, close, colon, comma, literal
        case string(Range<Int>), number(Range<Int>)
    }

    /// The tokens of text JSONDecoder has accepted, after a leading BOM: it says whether the
    /// JSON is well-formed, not where things are in it.
    private static func tokens(_ bytes: [UInt8]) throws -> [Token] {
        var tokens: [Token] = []
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            let start = index
            index += 1
            switch bytes[start] {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): tokens.append(.open)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): tokens.append(.close)
            case UInt8(ascii: ":"): tokens.append(.colon)
            case UInt8(ascii: ","): tokens.append(.comma)
            case UInt8(ascii: "\""):
                index = try stringEnd(in: bytes, from: index)
                tokens.append(.string(start..<index))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                while index < bytes.count, numberBytes.contains(bytes[index]) { index += 1 }
                tokens.append(.number(start..<index))
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                while index < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index]) { index += 1 }
                tokens.append(.literal)
            case let byte:
                throw MetadataFormatError(message: "Takeout JSON is not UTF-8 JSON: byte 0x\(String(byte, radix: 16)) at offset \(start)")
            }
        }
        return tokens
    }

    private static let numberBytes = Set("0123456789+-.eE".utf8)

    /// Just past the quote closing the string whose content starts at `index`.
    private static func stringEnd(in bytes: [UInt8], from index: Int) throws -> Int {
        var index = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        throw MetadataFormatError(message: "Takeout JSON has an unterminated string at its end")
    }
}
