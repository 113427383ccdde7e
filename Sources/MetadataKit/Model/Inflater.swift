/// DEFLATE decoding (RFC 1951) over untrusted bytes: stored, fixed and dynamic Huffman blocks.
/// Every read is bounds-checked and output stops at a caller's limit, so a corrupt stream or a
/// zip bomb throws `MetadataFormatError` instead of trapping or filling memory. What it refuses
/// is what zlib refuses, which `ZlibTests` checks against Python's zlib.
struct Inflater {
    private let input: [UInt8]
    /// The next byte to load into `bitBuffer`.
    private var position: Int
    /// Bits loaded but not consumed, least significant first (DEFLATE packs bits from the low end).
    private var bitBuffer: UInt32 = 0
    private var bitCount = 0
    private let limit: Int
    private(set) var output: [UInt8] = []

    init(_ input: [UInt8], from start: Int, limit: Int) {
        self.input = input
        position = start
        self.limit = limit
    }

    /// Decodes every block up to the final one; returns the offset of the first byte after the
    /// DEFLATE data (where zlib's checksum sits).
    mutating func inflate() throws -> Int {
        var final = false
        while !final {
            final = try bits(1) == 1
            switch try bits(2) {
            case 0: try storedBlock()
            case 1: try codedBlock(Self.fixedCodes.literals, Self.fixedCodes.distances)
            case 2:
                let codes = try dynamicCodes()
                try codedBlock(codes.literals, codes.distances)
            default: throw Self.error("invalid block type")
            }
        }
        // Bits are loaded a byte at a time as needed, so those left belong to the last byte read.
        bitBuffer = 0
        bitCount = 0
        return position
    }

    private static func error(_ message: String) -> MetadataFormatError {
        MetadataFormatError(message: "zlib stream: \(message)")
    }

    private mutating func bits(_ count: Int) throws -> Int {
        while bitCount < count {
            guard position < input.count else { throw Self.error("ends early") }
            bitBuffer |= UInt32(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = Int(bitBuffer & (1 << count - 1))
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    private mutating func decode(_ code: HuffmanCode) throws -> Int {
        try code.decode { try bits(1) }
    }

    private func ensureRoom(for count: Int) throws {
        guard count <= limit - output.count else { throw Self.error("inflates past \(limit) bytes") }
    }

    /// LEN and its one's complement NLEN, then LEN bytes as they are, from the next byte boundary.
    private mutating func storedBlock() throws {
        bitBuffer = 0
        bitCount = 0
        guard let length = input.uint16(at: position, bigEndian: false), let check = input.uint16(at: position + 2, bigEndian: false)
        else { throw Self.error("ends early") }
        guard length == ~check else { throw Self.error("stored block length does not match its complement") }
        let start = position + 4
        guard Int(length) <= input.count - start else { throw Self.error("ends early") }
        try ensureRoom(for: Int(length))
        output += input[start..<start + Int(length)]
        position = start + Int(length)
    }

    /// Literals, and length/distance pairs copying earlier output, up to the end-of-block symbol.
    private mutating func codedBlock(_ literals: HuffmanCode, _ distances: HuffmanCode) throws {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                try ensureRoom(for: 1)
                output.append(UInt8(symbol))
                continue
            }
            if symbol == 256 { return }
            let lengthIndex = symbol - 257
            guard lengthIndex < Self.lengthBase.count else { throw Self.error("invalid literal/length code") }
            let length = try Self.lengthBase[lengthIndex] + bits(Self.lengthExtraBits[lengthIndex])
            let distanceIndex = try decode(distances)
            guard distanceIndex < Self.distanceBase.count else { throw Self.error("invalid distance code") }
            let distance = try Self.distanceBase[distanceIndex] + bits(Self.distanceExtraBits[distanceIndex])
            guard distance <= output.count else { throw Self.error("invalid distance too far back") }
            try ensureRoom(for: length)
            // A copy may overlap what it writes (distance < length repeats the last `distance`
            // bytes), so it is built apart, doubling, then appended: appending a slice of
            // `output` to itself would copy all of it.
            let source = output.count - distance
            var copy = Array(output[source..<source + min(distance, length)])
            while copy.count < length { copy += copy.prefix(length - copy.count) }
            output += copy
        }
    }

    /// A dynamic block's header: the code lengths of its two codes, themselves Huffman coded.
    private mutating func dynamicCodes() throws -> (literals: HuffmanCode, distances: HuffmanCode) {
        let literalCount = try bits(5) + 257, distanceCount = try bits(5) + 1, codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw Self.error("too many length or distance symbols") }
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in Self.codeLengthOrder.prefix(codeLengthCount) { codeLengthLengths[index] = try bits(3) }
        let codeLengths = try HuffmanCode(lengths: codeLengthLengths[...], allowsIncomplete: false)
        var lengths: [Int] = []
        let total = literalCount + distanceCount
        while lengths.count < total {
            let symbol = try decode(codeLengths)
            let (value, repeats): (Int, Int)
            switch symbol {
            case 0..<16: (value, repeats) = (symbol, 1)
            case 16:
                guard let previous = lengths.last else { throw Self.error("invalid bit length repeat") }
                (value, repeats) = try (previous, 3 + bits(2))
            case 17: (value, repeats) = try (0, 3 + bits(3))
            default: (value, repeats) = try (0, 11 + bits(7))
            }
            guard repeats <= total - lengths.count else { throw Self.error("invalid bit length repeat") }
            lengths += repeatElement(value, count: repeats)
        }
        guard lengths[256] != 0 else { throw Self.error("invalid code -- missing end-of-block") }
        return try (HuffmanCode(lengths: lengths[..<literalCount], allowsIncomplete: true),
                    HuffmanCode(lengths: lengths[literalCount...], allowsIncomplete: true))
    }

    /// The order a dynamic block lists the code-length code's own lengths in (RFC 1951 §3.2.7).
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Length symbols 257...285 (§3.2.5): four per extra-bit count from 265 on; 285 is 258 exactly.
    private static let lengthExtraBits = (0..<29).map { $0 < 8 || $0 == 28 ? 0 : ($0 - 4) / 4 }
    private static let lengthBase: [Int] = (0..<29).map { index in
        index == 28 ? 258 : (0..<index).reduce(3) { $0 + 1 << lengthExtraBits[$1] }
    }
    /// Distance symbols 0...29: two per extra-bit count from 4 on.
    private static let distanceExtraBits = (0..<30).map { $0 < 4 ? 0 : ($0 - 2) / 2 }
    private static let distanceBase: [Int] = (0..<30).map { index in
        (0..<index).reduce(1) { $0 + 1 << distanceExtraBits[$1] }
    }

    /// The fixed codes of block type 1 (§3.2.6); symbols 286, 287 and distances 30, 31 have codes
    /// but are invalid, which `codedBlock` checks.
    private static let fixedCodes: (literals: HuffmanCode, distances: HuffmanCode) = {
        let literals = (0..<288).map { symbol in symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8 }
        // Both complete, so these cannot throw.
        return (try! HuffmanCode(lengths: literals[...], allowsIncomplete: false),
                try! HuffmanCode(lengths: [Int](repeating: 5, count: 32)[...], allowsIncomplete: false))
    }()
}
