/// The markup of an XML text as tokens carrying their byte ranges, so that a packet can be edited
/// by cutting ranges out of its own bytes rather than re-serialised from a tree.
///
/// It is meant for text libxml2 has already judged well-formed and checks only what it needs to
/// find where each token ends; but every read is bounds-checked, so on any input it returns
/// tokens or throws, never traps. UTF-8 (or any ASCII-compatible encoding) only: markup is ASCII.
struct XMLTokenizer {
    struct Attribute {
        /// The qualified name as written, e.g. `exif:GPSLatitude`.
        let name: Range<Int>
        /// Between the quotes, references not yet replaced.
        let value: Range<Int>
        /// From the whitespace before the name to the closing quote: what goes with the attribute.
        let extent: Range<Int>
    }

    enum Token {
        case startTag(name: Range<Int>, attributes: [Attribute], isEmpty: Bool, extent: Range<Int>)
        case endTag(name: Range<Int>, extent: Range<Int>)
        /// Character data up to the next markup, references not yet replaced.
        case text(Range<Int>)
        /// A CDATA section's content.
        case cdata(Range<Int>)
        case comment
        /// `data` starts after the whitespace following the target and ends before `?>`.
        case processingInstruction(target: Range<Int>, data: Range<Int>)
    }

    struct Malformed: Error {
        let offset: Int
    }

    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    mutating func next() throws -> Token? {
        let start = offset
        guard let first = byte(at: start) else { return nil }
        guard first == UInt8(ascii: "<") else {
            offset = firstIndex(of: UInt8(ascii: "<"), from: start) ?? bytes.count
            return .text(start..<offset)
        }
        switch byte(at: start + 1) {
        case UInt8(ascii: "?"):
            let targetEnd = nameEnd(from: start + 2)
            guard targetEnd > start + 2, let close = firstIndex(of: Self.piClose, from: targetEnd) else {
                throw Malformed(offset: start)
            }
            offset = close + 2
            return .processingInstruction(target: start + 2..<targetEnd, data: min(spacesEnd(from: targetEnd), close)..<close)
        case UInt8(ascii: "!"):
            if matches(Self.commentOpen, at: start), let close = firstIndex(of: Self.commentClose, from: start + 4) {
                offset = close + 3
                return .comment
            }
            if matches(Self.cdataOpen, at: start), let close = firstIndex(of: Self.cdataClose, from: start + 9) {
                offset = close + 3
                return .cdata(start + 9..<close)
            }
            // A DTD, or an unterminated comment or CDATA section.
            throw Malformed(offset: start)
        case UInt8(ascii: "/"):
            let end = nameEnd(from: start + 2)
            let close = spacesEnd(from: end)
            guard end > start + 2, byte(at: close) == UInt8(ascii: ">") else { throw Malformed(offset: start) }
            offset = close + 1
            return .endTag(name: start + 2..<end, extent: start..<offset)
        default:
            return try startTag(at: start)
        }
    }

    private mutating func startTag(at start: Int) throws -> Token {
        let end = nameEnd(from: start + 1)
        guard end > start + 1 else { throw Malformed(offset: start) }
        var attributes: [Attribute] = []
        var position = end
        while true {
            let spaceStart = position
            position = spacesEnd(from: position)
            switch byte(at: position) {
            case UInt8(ascii: ">"):
                offset = position + 1
                return .startTag(name: start + 1..<end, attributes: attributes, isEmpty: false, extent: start..<offset)
            case UInt8(ascii: "/"):
                guard byte(at: position + 1) == UInt8(ascii: ">") else { throw Malformed(offset: position) }
                offset = position + 2
                return .startTag(name: start + 1..<end, attributes: attributes, isEmpty: true, extent: start..<offset)
            case nil:
                throw Malformed(offset: position)
            default:
                // Attributes are separated from the name and from each other by whitespace.
                let nameStart = position
                let nameEnd = nameEnd(from: nameStart)
                guard nameStart > spaceStart, nameEnd > nameStart else { throw Malformed(offset: position) }
                let equals = spacesEnd(from: nameEnd)
                let quoteAt = spacesEnd(from: equals + 1)
                guard byte(at: equals) == UInt8(ascii: "="), let quote = byte(at: quoteAt),
                      quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'"),
                      let close = firstIndex(of: quote, from: quoteAt + 1)
                else { throw Malformed(offset: position) }
                attributes.append(Attribute(name: nameStart..<nameEnd, value: quoteAt + 1..<close, extent: spaceStart..<close + 1))
                position = close + 1
            }
        }
    }

    private static let piClose = Array("?>".utf8)
    private static let commentOpen = Array("<!--".utf8)
    private static let commentClose = Array("-->".utf8)
    private static let cdataOpen = Array("<![CDATA[".utf8)
    private static let cdataClose = Array("]]>".utf8)

    private func byte(at index: Int) -> UInt8? {
        index >= 0 && index < bytes.count ? bytes[index] : nil
    }

    /// The end of a name starting at `index`: names end at whitespace or at `/ > = ?` (and `<`,
    /// which no name contains; stopping there keeps a cut-off tag from swallowing the next one).
    private func nameEnd(from index: Int) -> Int {
        var index = max(index, 0)
        while let byte = byte(at: index), !Self.endsName(byte) { index += 1 }
        return index
    }

    private static func endsName(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: "<"): true
        default: false
        }
    }

    private func spacesEnd(from index: Int) -> Int {
        var index = max(index, 0)
        while let byte = byte(at: index), Self.isSpace(byte) { index += 1 }
        return index
    }

    private func firstIndex(of target: UInt8, from index: Int) -> Int? {
        var index = max(index, 0)
        while index < bytes.count {
            if bytes[index] == target { return index }
            index += 1
        }
        return nil
    }

    private func firstIndex(of pattern: [UInt8], from index: Int) -> Int? {
        bytes.firstOffset(of: pattern, from: index)
    }

    private func matches(_ pattern: [UInt8], at index: Int) -> Bool {
        guard index >= 0, index <= bytes.count - pattern.count else { return false }
        return bytes[index..<index + pattern.count].elementsEqual(pattern)
    }

    /// The text of `range` with references replaced and line ends normalised as an XML parser
    /// does (CR LF and lone CR become LF; in attribute values, literal whitespace becomes a space).
    /// Only the predefined entities exist: packets with a DTD are refused before this runs.
    func decoded(_ range: Range<Int>, attributeValue: Bool = false) throws -> String {
        let range = range.clamped(to: 0..<bytes.count)
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "&"):
                guard let semicolon = firstIndex(of: UInt8(ascii: ";"), from: index + 1), semicolon < range.upperBound,
                      let scalar = Self.reference(bytes[index + 1..<semicolon])
                else { throw Malformed(offset: index) }
                output += Array(String(Character(scalar)).utf8)
                index = semicolon + 1
                continue
            case 0x0D:
                if index + 1 < range.upperBound, bytes[index + 1] == 0x0A { index += 1 }
                output.append(attributeValue ? 0x20 : 0x0A)
            case 0x0A, 0x09:
                output.append(attributeValue ? 0x20 : byte)
            default:
                output.append(byte)
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func reference(_ name: ArraySlice<UInt8>) -> Unicode.Scalar? {
        switch String(decoding: name, as: UTF8.self) {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        case let name where name.hasPrefix("#x"):
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
        case let name where name.hasPrefix("#"):
            return UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
        default: return nil
        }
    }
}
