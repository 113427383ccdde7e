import Foundation

/// A JSON text read in place: where each member and element lies, and the few values asked for
/// decoded from their bytes. For readings read by the million (`BulkReadings`, a state's
/// fingerprints): a parser that builds every value costs tens of microseconds a reading, this one.
/// The text is trusted to be JSON (the state wrote it); a value of another type reads as nil.
public struct JSONText {
    public let bytes: [UInt8]

    public init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The whole text's value.
    public var root: Range<Int> { skipSpace(0)..<bytes.count }

    /// The members of the object at `object`: each key and where its value lies.
    public func members(of object: Range<Int>) -> [(key: String, value: Range<Int>)] {
        var found: [(key: String, value: Range<Int>)] = []
        forEachMember(of: object) { found.append(($0, $1)) }
        return found
    }

    /// The value of `key` in the object at `object`.
    public func member(_ key: String, of object: Range<Int>) -> Range<Int>? {
        var found: Range<Int>?
        forEachMember(of: object) { if found == nil && $0 == key { found = $1 } }
        return found
    }

    /// `body` with each member of the object at `object`, in order: nothing is collected.
    public func forEachMember(of object: Range<Int>, _ body: (_ key: String, _ value: Range<Int>) -> Void) {
        guard object.lowerBound < bytes.count, bytes[object.lowerBound] == UInt8(ascii: "{") else { return }
        var index = object.lowerBound + 1
        while index < object.upperBound {
            index = skipSpace(index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
            let keyEnd = endOfString(index)
            let start = skipSpace(skipSpace(keyEnd) + 1)
            let end = endOfValue(start)
            body(string(index..<keyEnd) ?? "", start..<end)
            index = skipSpace(end) + 1
        }
    }

    /// Where each element of the array at `array` lies.
    public func elements(of array: Range<Int>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        guard array.lowerBound < bytes.count, bytes[array.lowerBound] == UInt8(ascii: "[") else { return found }
        var index = skipSpace(array.lowerBound + 1)
        while index < array.upperBound, bytes[index] != UInt8(ascii: "]") {
            let end = endOfValue(index)
            found.append(index..<end)
            index = skipSpace(skipSpace(end) + 1)
        }
        return found
    }

    /// The bytes between a string's quotes, as written (escapes not undone).
    public func stringBytes(_ value: Range<Int>) -> ArraySlice<UInt8>? {
        guard value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\"") else { return nil }
        return bytes[value.lowerBound + 1..<value.upperBound - 1]
    }

    public func string(_ value: Range<Int>) -> String? {
        guard let inner = stringBytes(value) else { return nil }
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        return (try? JSONSerialization.jsonObject(with: Data(bytes[value]), options: .fragmentsAllowed)) as? String
    }

    public func integer(_ value: Range<Int>) -> Int? {
        Int(String(decoding: bytes[value], as: UTF8.self))
    }

    public func boolean(_ value: Range<Int>) -> Bool? {
        switch String(decoding: bytes[value], as: UTF8.self) {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// Where the string starting at `start` (its quote) ends: past its closing quote, the first
    /// not escaped. Found with `memchr`: a picture's 5 KB of base64 is read a word at a time.
    private func endOfString(_ start: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return start }
            var index = start + 1
            while index < buffer.count, let found = memchr(base + index, Int32(UInt8(ascii: "\"")), buffer.count - index) {
                let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                var backslashes = 0
                while buffer[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                if backslashes.isMultiple(of: 2) { return quote + 1 }
                index = quote + 1
            }
            return buffer.count
        }
    }

    /// Where the value starting at `start` ends.
    private func endOfValue(_ start: Int) -> Int {
        var index = start, depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index = endOfString(index)
                if depth == 0 { return index }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index }
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: ",") where depth == 0: return index
            case let byte where depth == 0 && Self.isSpace(byte): return index
            default: break
            }
            index += 1
        }
        return index
    }

    private func skipSpace(_ start: Int) -> Int {
        var index = start
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09
    }
}
