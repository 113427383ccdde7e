/// A canonical Huffman code of DEFLATE (RFC 1951 §3.2.2), built from its code lengths and
/// decoded a bit at a time: metadata streams are small, and the simplest decoder is the easiest
/// to trust on hostile input.
struct HuffmanCode {
    static let maximumLength = 15

    /// How many codes have each length, 0...15.
    private let counts: [Int]
    /// The symbols in canonical order: by code length, then by symbol.
    private let symbols: [Int]

    /// The code whose symbol `n` has length `lengths[n]` (0: unused).
    ///
    /// - Parameter allowsIncomplete: zlib's rule, followed so that we refuse exactly what it
    ///   refuses: a literal/length or distance code may leave codes unused only when it is a
    ///   single one-bit code (or has no codes); the code-length code must be complete.
    /// - Throws: `MetadataFormatError` when the lengths describe more codes than fit, or an
    ///   incomplete code where one is not allowed.
    init(lengths: ArraySlice<Int>, allowsIncomplete: Bool) throws {
        var counts = [Int](repeating: 0, count: Self.maximumLength + 1)
        for length in lengths { counts[length] += 1 }
        counts[0] = 0
        var left = 1
        for length in 1...Self.maximumLength {
            left = left << 1 - counts[length]
            guard left >= 0 else { throw MetadataFormatError(message: "zlib stream: over-subscribed Huffman code") }
        }
        let longest = counts.lastIndex { $0 > 0 } ?? 0
        if left > 0, longest > 0, !allowsIncomplete || longest != 1 {
            throw MetadataFormatError(message: "zlib stream: incomplete Huffman code")
        }
        var symbols: [Int] = []
        for length in 1...Self.maximumLength {
            symbols += lengths.indices.filter { lengths[$0] == length }.map { $0 - lengths.startIndex }
        }
        self.counts = counts
        self.symbols = symbols
    }

    /// The symbol whose code `nextBit` spells out, most significant bit first (RFC 1951 §3.1.1).
    ///
    /// - Throws: `MetadataFormatError` for a bit sequence that is no code of an incomplete
    ///   code, or whatever `nextBit` throws (the stream ended).
    func decode(_ nextBit: () throws -> Int) throws -> Int {
        var code = 0, first = 0, index = 0
        for length in 1...Self.maximumLength {
            code |= try nextBit()
            // Codes of one length are consecutive integers, the first following the previous length's last.
            if code - first < counts[length] { return symbols[index + code - first] }
            index += counts[length]
            first = (first + counts[length]) << 1
            code <<= 1
        }
        throw MetadataFormatError(message: "zlib stream: invalid Huffman code")
    }
}
