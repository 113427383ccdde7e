/// A PNG's chunks, where its EXIF lives (`eXIf`). libvips writes EXIF through libexif, which
/// drops MakerNotes (Apple's, with the Live Photo identifier): splicing our own block in after
/// encoding is how they survive.
public enum PNGChunks {
    public struct Chunk: Equatable {
        public let type: String
        /// The whole chunk: length, type, data and CRC.
        public let range: Range<Int>
    }

    /// The chunks after the signature; nil when the bytes are not a PNG or a length lies.
    public static func chunks(of png: [UInt8]) -> [Chunk]? {
        guard png.count >= 8, Array(png[0..<8]) == PNGStructure.signature else { return nil }
        var chunks: [Chunk] = []
        var offset = 8
        while offset + 12 <= png.count {
            guard let length = png.uint32(at: offset).map(Int.init), let type = png.fourCC(at: offset + 4),
                  offset + 12 + length <= png.count else { return nil }
            chunks.append(Chunk(type: type, range: offset..<offset + 12 + length))
            offset += 12 + length
        }
        return offset == png.count ? chunks : nil
    }

    /// The file with its `eXIf` chunks replaced by one carrying `exif`, before the first `IDAT`
    /// (where decoders that stop at the image data still find it). Nil when it is not a PNG.
    public static func replacingExif(in png: [UInt8], with exif: ExifData) -> [UInt8]? {
        guard let chunks = chunks(of: png), let data = chunks.firstIndex(where: { $0.type == "IDAT" }) else { return nil }
        let typeAndData = Array("eXIf".utf8) + exif.tiff
        var exifChunk = [0, 0, 0, 0] + typeAndData + [0, 0, 0, 0]
        exifChunk.setUInt32(UInt32(exif.tiff.count), at: 0)
        exifChunk.setUInt32(CRC32.checksum(typeAndData), at: exifChunk.count - 4)
        var output = Array(png[0..<8])
        for (index, chunk) in chunks.enumerated() where chunk.type != "eXIf" {
            if index == data { output += exifChunk }
            output += png[chunk.range]
        }
        return output
    }
}

/// CRC-32 as PNG and zlib compute it (polynomial 0xEDB88320, reflected).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { byte in
        (0..<8).reduce(UInt32(byte)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
