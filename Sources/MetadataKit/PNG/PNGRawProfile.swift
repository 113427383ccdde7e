/// ImageMagick's and exiftool's way of keeping a binary profile in a PNG text chunk (keyword
/// `Raw profile type iptc` and the like): a newline, the profile's name, a newline, its length
/// in decimal (exiftool right-aligns it in eight columns), a newline, then its bytes as hex
/// digits, wrapped.
struct PNGRawProfile: Equatable {
    /// Bytes per line of hex in what we write: exiftool's 72 columns.
    private static let bytesPerLine = 36

    let name: String
    let bytes: [UInt8]

    init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }

    /// - Throws: `MetadataFormatError` when the layout is not this one, a character is not a
    ///   hex digit, or the digits do not make exactly the stated length (exiftool only warns;
    ///   a block whose size is not what it says is not trusted here).
    init(text: [UInt8]) throws {
        let newline = UInt8(ascii: "\n")
        guard text.first == newline, let nameEnd = text.dropFirst().firstIndex(of: newline) else {
            throw MetadataFormatError(message: "raw profile has no name line")
        }
        name = String(decoding: text[1..<nameEnd], as: UTF8.self)
        var offset = nameEnd + 1
        while offset < text.count, Self.isSpace(text[offset]) { offset += 1 }
        let digitsStart = offset
        var length = 0
        while offset < text.count, let digit = Self.decimal(text[offset]) {
            guard length <= Zlib.outputLimit else { throw MetadataFormatError(message: "raw profile is too long") }
            length = length * 10 + digit
            offset += 1
        }
        guard offset > digitsStart, offset < text.count, text[offset] == newline else {
            throw MetadataFormatError(message: "raw profile has no length line")
        }
        bytes = try Self.decodedHex(text[(offset + 1)...], count: length)
    }

    /// The hex digits in `text`, whitespace ignored, as `count` bytes.
    private static func decodedHex(_ text: ArraySlice<UInt8>, count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(count, text.count / 2))
        var high: UInt8?
        for character in text where !isSpace(character) {
            guard let nibble = hexDigit(character) else { throw MetadataFormatError(message: "raw profile holds a non-hex character") }
            if let first = high {
                guard bytes.count < count else { throw MetadataFormatError(message: "raw profile is longer than it says") }
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil, bytes.count == count else { throw MetadataFormatError(message: "raw profile is shorter than it says") }
        return bytes
    }

    /// The text as exiftool writes it: the length right-aligned in eight columns, 72 hex digits
    /// a line, each line ended by a newline.
    var text: [UInt8] {
        let length = String(bytes.count)
        var text = Array("\n\(name)\n\(String(repeating: " ", count: max(0, 8 - length.count)))\(length)\n".utf8)
        let digits = Array("0123456789abcdef".utf8)
        for (index, byte) in bytes.enumerated() {
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            if index % Self.bytesPerLine == Self.bytesPerLine - 1 || index == bytes.count - 1 { text.append(UInt8(ascii: "\n")) }
        }
        return text
    }

    private static func isSpace(_ character: UInt8) -> Bool {
        character == 0x20 || (0x09...0x0D).contains(character)
    }

    private static func decimal(_ character: UInt8) -> Int? {
        (0x30...0x39).contains(character) ? Int(character - 0x30) : nil
    }

    private static func hexDigit(_ character: UInt8) -> UInt8? {
        switch character {
        case 0x30...0x39: character - 0x30
        case 0x41...0x46: character - 0x41 + 10
        case 0x61...0x66: character - 0x61 + 10
        default: nil
        }
    }
}
