/// The chunks of an extended WebP file (RIFF `WEBP` starting with `VP8X`), where its EXIF
/// lives. libvips writes EXIF through libexif, which drops MakerNotes (Apple's, with the Live
/// Photo identifier) and prefixes the block with `Exif\0\0`, which the WebP container does not
/// use: splicing our own block in after encoding is how both are put right.
public enum WebPChunks {
    public struct Chunk: Equatable {
        public let fourCC: String
        /// The whole chunk, header and padding byte included.
        public let range: Range<Int>
        public let payload: Range<Int>
    }

    /// The chunks after the RIFF header; nil when the bytes are not a WebP or a size lies.
    public static func chunks(of webp: [UInt8]) -> [Chunk]? {
        guard webp.count >= 12, webp.fourCC(at: 0) == "RIFF", webp.fourCC(at: 8) == "WEBP" else { return nil }
        var chunks: [Chunk] = []
        var offset = 12
        while offset + 8 <= webp.count {
            guard let fourCC = webp.fourCC(at: offset), let size = webp.uint32(at: offset + 4, bigEndian: false).map(Int.init),
                  offset + 8 + size <= webp.count else { return nil }
            let end = min(webp.count, offset + 8 + size + size % 2)
            chunks.append(Chunk(fourCC: fourCC, range: offset..<end, payload: offset + 8..<offset + 8 + size))
            offset = end
        }
        return offset == webp.count ? chunks : nil
    }

    /// The file with its EXIF chunks replaced by one carrying `exif` (before any `XMP ` chunk,
    /// as the container orders them) and the VP8X flag set. Nil when the file is not an
    /// extended WebP: a simple one has no place for metadata without re-describing its canvas.
    public static func replacingExif(in webp: [UInt8], with exif: ExifData) -> [UInt8]? {
        guard let chunks = chunks(of: webp), let header = chunks.first, header.fourCC == "VP8X", header.payload.count >= 1
        else { return nil }
        let kept = chunks.filter { $0.fourCC != "EXIF" }
        let xmp = kept.firstIndex { $0.fourCC == "XMP " } ?? kept.count
        let payload = exif.tiff
        var exifChunk = Array("EXIF".utf8) + [0, 0, 0, 0] + payload + (payload.count % 2 == 1 ? [0] : [])
        exifChunk.setUInt32(UInt32(payload.count), at: 4, bigEndian: false)
        var body: [UInt8] = []
        for (index, chunk) in kept.enumerated() {
            if index == xmp { body += exifChunk }
            body += webp[chunk.range]
        }
        if xmp == kept.count { body += exifChunk }
        body[header.payload.lowerBound - 12] |= 0x08 // VP8X flags: EXIF present
        var output = Array(webp[..<12]) + body
        output.setUInt32(UInt32(output.count - 8), at: 4, bigEndian: false)
        return output
    }
}
