import Foundation
import PipelineModel

/// What stages read of an item (`PhotoReader`), each under its own key, written beside a report
/// item's or a manifest item's own fields: a stage that reads something new adds a key, not a field.
enum Readings {
    static func encode(_ readings: [String: JSONValue], to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for key in readings.keys.sorted() { try container.encode(readings[key]!, forKey: Key(key)) }
    }

    /// Every key of the object but the names of `fields`' properties (its coding keys).
    static func decode(from decoder: Decoder, besides fields: Any) throws -> [String: JSONValue] {
        let own = Set(Mirror(reflecting: fields).children.compactMap(\.label))
        let container = try decoder.container(keyedBy: Key.self)
        var readings: [String: JSONValue] = [:]
        for key in container.allKeys where !own.contains(key.stringValue) {
            readings[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        return readings
    }

    /// As the state database keeps them: one JSON object, nil when there are none.
    static func text(_ readings: [String: JSONValue]) -> String? {
        guard !readings.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try! encoder.encode(JSONValue.object(readings)), as: UTF8.self)
    }

    static func parse(_ text: String?) -> [String: JSONValue] {
        guard let text, case .object(let readings)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return [:] }
        return readings
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ name: String) {
            stringValue = name
        }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }
}
