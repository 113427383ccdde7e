import Foundation

/// Reads one top-level array of a JSON document in a file (a report's or a manifest's `items`)
/// an element at a time, without holding the document: `merge-reports` and `merge-manifests`
/// merge a million items this way. What is outside the array (the summary) is kept, with the
/// array emptied, to be decoded on its own once every element has been read.
final class TopLevelArrayReader: LineSource {
    private let file: JSONLinesReader
    private let key: [UInt8]
    /// The document without the array's elements.
    private var rest: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// The last string read at depth 1 (a key, once a colon follows), while it is short enough to be `key`.
    private var lastString: [UInt8]?
    private var inArray = false

    init(_ url: URL, key: String) throws {
        file = try JSONLinesReader(url)
        self.key = Array(key.utf8)
    }

    /// The next element's JSON text; nil after the last.
    func next() throws -> Data? {
        var element: [UInt8] = []
        while let byte = try file.nextByte() {
            let before = depth
            scan(byte)
            if inArray && (before > 2 || depth > 2) {
                element.append(byte)
                if depth == 2 { return Data(element) }
            } else if !(inArray && before == 2) {
                rest.append(byte) // not the commas and spaces between elements
            }
        }
        return nil
    }

    /// The document with the array emptied, once every element has been read.
    func remainder() throws -> Data {
        while try next() != nil {}
        return Data(rest)
    }

    /// Follows strings and nesting; notes when the array named `key` opens and closes.
    private func scan(_ byte: UInt8) {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                return
            }
            if depth == 1, var string = lastString {
                string.append(byte)
                lastString = string.count > key.count ? nil : string
            }
            return
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            if depth == 1 { lastString = [] }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if depth == 1, byte == UInt8(ascii: "["), lastString == key, !inArray { inArray = true }
            depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            if depth == 1, inArray { inArray = false; lastString = nil }
        default:
            break
        }
    }
}
