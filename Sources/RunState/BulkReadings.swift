import Foundation

/// An item's readings (`ItemRecord.readings`: a JSON object, one object a reading) in two parts:
/// their strings of `threshold` bytes or more (a fingerprint's picture), and the rest. The state
/// keeps the long ones in a table of their own (`bulkReadings`), so that what reads every item's
/// readings for their short fields (a million photos' hashes) does not read the long ones.
enum BulkReadings {
    static let threshold = 1024

    /// `text` without its long strings, and those alone in the same shape (nil where there are none).
    static func split(_ text: String) -> (kept: String, bulk: String?) {
        guard text.utf8.count >= threshold, var readings = object(text) else { return (text, nil) }
        var bulk: [String: Any] = [:]
        for (key, value) in readings {
            guard var reading = value as? [String: Any] else { continue }
            let long = reading.filter { ($0.value as? String)?.utf8.count ?? 0 >= threshold }
            guard !long.isEmpty else { continue }
            for field in long.keys { reading[field] = nil }
            readings[key] = reading
            bulk[key] = long
        }
        return bulk.isEmpty ? (text, nil) : (Self.text(readings), Self.text(bulk))
    }

    /// `kept` with the strings `split` took out (`bulk`) put back, first in their reading's object.
    /// Spliced as text: an incremental run reads every item back, and parsing and writing a 6 KB
    /// reading again each time would cost more than the item's other work.
    static func merged(_ kept: String, _ bulk: String?) -> String {
        guard let bulk else { return kept }
        var text = Array(kept.utf8)
        let long = Array(bulk.utf8), readings = members(text)
        let places = members(long).compactMap { member in readings.first { $0.key == member.key }.map { (into: $0.value, from: member.value) } }
        // From the last reading back, so that the places found stay true.
        for (into, from) in places.sorted(by: { $0.into.lowerBound > $1.into.lowerBound })
        where text[into.lowerBound] == UInt8(ascii: "{") && long[from.lowerBound] == UInt8(ascii: "{") {
            let fields = long[from.lowerBound + 1..<from.upperBound - 1]
            let empty = text[into.lowerBound + 1] == UInt8(ascii: "}")
            text.insert(contentsOf: fields + (empty ? [] : [UInt8(ascii: ",")]), at: into.lowerBound + 1)
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A JSON object's members: each key and where its value lies.
    private static func members(_ text: [UInt8]) -> [(key: String, value: Range<Int>)] {
        var found: [(key: String, value: Range<Int>)] = []
        var index = skipSpace(text, 0) + 1
        while index < text.count {
            index = skipSpace(text, index)
            guard index < text.count, text[index] == UInt8(ascii: "\"") else { break }
            let keyEnd = endOfString(text, index)
            let key = String(decoding: text[index + 1..<keyEnd - 1], as: UTF8.self)
            let start = skipSpace(text, skipSpace(text, keyEnd) + 1)
            let end = endOfValue(text, start)
            found.append((key, start..<end))
            index = skipSpace(text, end) + 1
        }
        return found
    }

    /// Where the string starting at `start` (its quote) ends: past its closing quote.
    private static func endOfString(_ text: [UInt8], _ start: Int) -> Int {
        var index = start + 1
        while index < text.count, text[index] != UInt8(ascii: "\"") { index += text[index] == UInt8(ascii: "\\") ? 2 : 1 }
        return index + 1
    }

    /// Where the value starting at `start` ends.
    private static func endOfValue(_ text: [UInt8], _ start: Int) -> Int {
        var index = start, depth = 0
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\""):
                index = endOfString(text, index)
                if depth == 0 { return index }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index }
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: ",") where depth == 0: return index
            default: break
            }
            index += 1
        }
        return index
    }

    private static func skipSpace(_ text: [UInt8], _ start: Int) -> Int {
        var index = start
        while index < text.count, [0x20, 0x0a, 0x0d, 0x09].contains(text[index]) { index += 1 }
        return index
    }

    private static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    private static func text(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }
}
