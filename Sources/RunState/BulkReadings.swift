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
        let into = JSONText(kept), from = JSONText(bulk)
        var text = into.bytes
        let long = from.bytes, readings = into.members(of: into.root)
        let places = from.members(of: from.root).compactMap { member in readings.first { $0.key == member.key }.map { (into: $0.value, from: member.value) } }
        // From the last reading back, so that the places found stay true.
        for (into, from) in places.sorted(by: { $0.into.lowerBound > $1.into.lowerBound })
        where text[into.lowerBound] == UInt8(ascii: "{") && long[from.lowerBound] == UInt8(ascii: "{") {
            let fields = long[from.lowerBound + 1..<from.upperBound - 1]
            let empty = text[into.lowerBound + 1] == UInt8(ascii: "}")
            text.insert(contentsOf: fields + (empty ? [] : [UInt8(ascii: ",")]), at: into.lowerBound + 1)
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    private static func text(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }
}
