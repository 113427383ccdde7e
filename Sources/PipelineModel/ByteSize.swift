import Foundation

/// A size in bytes, written as an integer or with a unit: "600MiB", "1GiB", "512MB", "4096".
public struct ByteSize: Equatable, Comparable, Sendable, CustomStringConvertible {
    public let bytes: Int

    public init(bytes: Int) {
        self.bytes = bytes
    }

    private static let units: [String: Int] = [
        "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
        "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000, "TB": 1_000_000_000_000,
        "B": 1,
    ]

    /// What a size looks like: digits with an optional fraction, then an optional unit. The
    /// pipeline schema uses this very pattern, so editors refuse what mediabatch refuses.
    public static let pattern = #"^ *([0-9]+(\.[0-9]+)?) *(KiB|MiB|GiB|TiB|KB|MB|GB|TB|B)? *$"#
    private static let expression = try! NSRegularExpression(pattern: pattern)

    /// Parses a size; nil when the text is not one, or is less than a byte.
    public init?(parsing text: String) {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = Self.expression.firstMatch(in: text, range: range),
              let digits = Range(match.range(at: 1), in: text).flatMap({ Double(text[$0]) }) else { return nil }
        let unit = Range(match.range(at: 3), in: text).flatMap { Self.units[String(text[$0])] } ?? 1
        let bytes = digits * Double(unit)
        guard bytes >= 1, bytes < Double(Int.max) else { return nil }
        self.bytes = Int(bytes)
    }

    /// How a pipeline file would write this size: `"1GiB"` when a binary unit divides it, else the number.
    var json: JSONValue {
        for (unit, size) in [("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes % size == 0 {
            return .string("\(bytes / size)\(unit)")
        }
        return .number(Double(bytes))
    }

    public static func < (lhs: ByteSize, rhs: ByteSize) -> Bool { lhs.bytes < rhs.bytes }

    public var description: String { Self.format(bytes) }

    /// Human-readable binary size, e.g. "1.5 GiB".
    public static func format(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var index = 0
        while value >= 1024, index < units.count - 1 {
            value /= 1024
            index += 1
        }
        return index == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.1f %@" : "%.0f %@", value, units[index])
    }
}

