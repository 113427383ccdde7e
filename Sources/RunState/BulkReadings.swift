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

    /// `kept` with the strings `split` took out (`bulk`) put back.
    static func merged(_ kept: String, _ bulk: String?) -> String {
        guard let bulk, var readings = object(kept), let long = object(bulk) else { return kept }
        for (key, value) in long {
            guard var reading = readings[key] as? [String: Any], let fields = value as? [String: Any] else { continue }
            reading.merge(fields) { _, long in long }
            readings[key] = reading
        }
        return text(readings)
    }

    private static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    private static func text(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }
}
