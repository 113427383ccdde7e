import Foundation

/// Bounds-checked integer reads over untrusted metadata bytes: every parser in this module
/// reads through these, so a short or lying length yields `nil`, never a trap.
extension Collection where Element == UInt8, Index == Int {
    func uint16(at offset: Int, bigEndian: Bool = true) -> UInt16? {
        guard offset >= startIndex, offset + 2 <= endIndex else { return nil }
        let a = UInt16(self[offset]), b = UInt16(self[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int, bigEndian: Bool = true) -> UInt32? {
        guard let high = uint16(at: bigEndian ? offset : offset + 2, bigEndian: bigEndian),
              let low = uint16(at: bigEndian ? offset + 2 : offset, bigEndian: bigEndian) else { return nil }
        return UInt32(high) << 16 | UInt32(low)
    }

    func uint64(at offset: Int) -> UInt64? {
        guard let high = uint32(at: offset), let low = uint32(at: offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// Four ASCII bytes (an ISO-BMFF box type, a RIFF chunk id).
    func fourCC(at offset: Int) -> String? {
        guard offset >= startIndex, offset + 4 <= endIndex else { return nil }
        return String(self[offset..<offset + 4].map { Character(Unicode.Scalar($0)) })
    }
}

extension Array where Element == UInt8 {
    /// The four bytes of a code as `fourCC(at:)` reads it, one byte a character: a damaged file's
    /// code with bytes past ASCII is written back as it was read (as UTF-8 it would grow).
    init(fourCC: String) {
        self = fourCC.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
    }

    mutating func setUInt16(_ value: UInt16, at offset: Int, bigEndian: Bool = true) {
        let bytes = [UInt8(value >> 8), UInt8(value & 0xFF)]
        self[offset..<offset + 2] = ArraySlice(bigEndian ? bytes : bytes.reversed())
    }

    mutating func setUInt32(_ value: UInt32, at offset: Int, bigEndian: Bool = true) {
        setUInt16(UInt16(value >> 16), at: bigEndian ? offset : offset + 2, bigEndian: bigEndian)
        setUInt16(UInt16(value & 0xFFFF), at: bigEndian ? offset + 2 : offset, bigEndian: bigEndian)
    }
}

extension Array where Element == UInt8 {
    /// Where `pattern` first occurs at or after `start`, by Boyer–Moore–Horspool: a mismatch
    /// skips as far as the pattern allows, so a namespace URI is found in an XMP packet (or not)
    /// in a fraction of the comparisons of a loop that tries every offset (and Foundation's
    /// generic `firstRange(of:)` is slow enough to be a large share of reading an XMP packet).
    public func firstOffset(of pattern: [UInt8], from start: Int = 0) -> Int? {
        let start = Swift.max(start, 0), length = pattern.count
        guard length > 0, start <= count - length else { return nil }
        var skip = [Int](repeating: length, count: 256)
        for index in 0..<length - 1 { skip[Int(pattern[index])] = length - 1 - index }
        return withUnsafeBufferPointer { haystack in
            pattern.withUnsafeBufferPointer { needle in
                var at = start
                while at <= haystack.count - length {
                    let last = haystack[at + length - 1]
                    if last == needle[length - 1], memcmp(haystack.baseAddress! + at, needle.baseAddress!, length - 1) == 0 { return at }
                    at += skip[Int(last)]
                }
                return nil
            }
        }
    }
}
