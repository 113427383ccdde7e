/// zlib streams (RFC 1950): a two-byte header, DEFLATE data, an Adler-32 of what it holds. PNG
/// keeps compressed text (XMP, ImageMagick's and exiftool's raw profiles) in them, and this
/// module imports no C, so both directions are written here.
enum Zlib {
    /// What one metadata block may inflate to: well past any real one (an XMP packet with a
    /// preview image is a few MB), well short of what a zip bomb would make.
    static let outputLimit = 16 << 20
    /// Largest stored block (its length field is 16 bits).
    private static let storedBlockLimit = 0xFFFF

    /// The data `stream` holds. Bytes after its checksum are ignored, as zlib ignores them.
    ///
    /// - Throws: `MetadataFormatError` when the header is not zlib's (or asks for a preset
    ///   dictionary), the data is not valid DEFLATE, the stream ends early, the checksum differs,
    ///   or the data would pass `limit` bytes.
    static func decompress(_ stream: [UInt8], limit: Int = outputLimit) throws -> [UInt8] {
        guard let header = stream.uint16(at: 0) else { throw MetadataFormatError(message: "zlib stream: ends early") }
        // Method 8 (DEFLATE), a window of at most 32 KiB, and a header that is a multiple of 31.
        guard header >> 8 & 0x0F == 8, header >> 12 <= 7, header % 31 == 0 else {
            throw MetadataFormatError(message: "zlib stream: incorrect header check")
        }
        guard header & 0x20 == 0 else { throw MetadataFormatError(message: "zlib stream: needs a preset dictionary") }
        var inflater = Inflater(stream, from: 2, limit: limit)
        let end = try inflater.inflate()
        guard let checksum = stream.uint32(at: end) else { throw MetadataFormatError(message: "zlib stream: ends early") }
        guard checksum == adler32(inflater.output) else { throw MetadataFormatError(message: "zlib stream: incorrect data check") }
        return inflater.output
    }

    /// A zlib stream of `data` in stored blocks: metadata text is small, and an encoder that
    /// does not compress cannot get compression wrong.
    static func compress(_ data: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01] // DEFLATE, 32 KiB window, no dictionary, fastest
        var start = 0
        repeat {
            let length = min(storedBlockLimit, data.count - start)
            let isFinal = start + length == data.count
            stream += [isFinal ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            stream += data[start..<start + length]
            start += length
        } while start < data.count
        stream += [0, 0, 0, 0]
        stream.setUInt32(adler32(data), at: stream.count - 4)
        return stream
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var start = 0
        while start < bytes.count {
            // 5552 bytes is the most that can be summed before `b` could pass 32 bits.
            let end = min(bytes.count, start + 5552)
            for byte in bytes[start..<end] {
                a += UInt32(byte)
                b += a
            }
            a %= 65521
            b %= 65521
            start = end
        }
        return b << 16 | a
    }
}
