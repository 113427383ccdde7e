import Foundation

/// A size in bytes, written as an integer or with a unit: "600MiB", "1GiB", "512MB", "4096".
public struct ByteSize: Equatable, Comparable, Sendable, CustomStringConvertible {
    public let bytes: Int

    public init(bytes: Int) {
        self.bytes = bytes
    }

    private static let units: [(String, Int)] = [
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
        ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000),
        ("B", 1),
    ]

    /// Parses a size; nil when the text is not one.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let unit = Self.units.first { trimmed.hasSuffix($0.0) }
        let digits = unit.map { String(trimmed.dropLast($0.0.count)).trimmingCharacters(in: .whitespaces) } ?? trimmed
        guard let value = Double(digits), value > 0, value.isFinite else { return nil }
        let bytes = value * Double(unit?.1 ?? 1)
        guard bytes >= 1, bytes < Double(Int.max) else { return nil }
        self.bytes = Int(bytes)
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

