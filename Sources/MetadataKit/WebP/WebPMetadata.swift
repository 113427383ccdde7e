/// WebP's places for metadata: an `EXIF` chunk (a bare TIFF structure; libvips 8.14 puts
/// `Exif\0\0` before it, which exiftool warns about) and an `XMP ` chunk, in an extended file
/// whose `VP8X` header flags them. There is no place for IPTC-IIM or Photoshop resources
/// (exiftool 12.57 writes only EXIF, XMP and ICC to WebP).
public enum WebPMetadata: MetadataContainer {
    static let exifFourCC = "EXIF"
    static let xmpFourCC = "XMP "
    /// What some writers call the XMP chunk (samples/webp/iphone_x_exif_gps.webp has one);
    /// exiftool and libvips ignore it, but it is there, so it is read as a lesser copy and
    /// removed on writing.
    static let misspelledXMPFourCC = "XMP\0"
    /// VP8X flag bits (WebP container specification).
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04
    static let alphaFlag: UInt8 = 0x10
    /// Chunks that hold or describe the image; metadata follows the last of them.
    static let imageFourCCs: Set<String> = ["VP8 ", "VP8L", "ALPH", "ANMF"]

    struct Chunk: Equatable {
        let fourCC: String
        /// Where its header starts.
        let offset: Int
        let size: Int
        var payload: Range<Int> { offset + 8..<offset + 8 + size }
        /// Past its payload and the padding byte that keeps chunks at even offsets.
        var end: Int { offset + 8 + size + size % 2 }
    }

    // MARK: Reading

    /// Every `EXIF` and `XMP ` chunk, whatever the `VP8X` flags claim; the first readable one of
    /// each kind is the block (an `XMP\0` chunk's packet only when there is no `XMP ` one).
    public static func readMetadata(path: String) throws -> MetadataBlocks {
        let file = try RandomAccessFile(path: path)
        var copies = MetadataCopies()
        try forEachChunk(size: file.size, reading: file.bytes) { chunk in
            if [exifFourCC, xmpFourCC, misspelledXMPFourCC].contains(chunk.fourCC) { try read(chunk, in: file, into: &copies) }
        }
        return copies.blocks
    }

    /// Each chunk after the RIFF header, as far as the RIFF size and the file both reach, its
    /// header read through `read` (offset, count): its payload is for `visit` to read or skip.
    private static func forEachChunk(size: Int, reading read: (Int, Int) throws -> [UInt8], _ visit: (Chunk) throws -> Void) throws {
        let header = try read(0, min(12, size))
        guard header.fourCC(at: 0) == "RIFF", header.fourCC(at: 8) == "WEBP", let riffSize = header.uint32(at: 4, bigEndian: false)
        else { throw MetadataFormatError(message: "not a WebP") }
        let end = min(size, 8 + Int(riffSize))
        var offset = 12
        while offset + 8 <= end {
            let chunkHeader = try read(offset, 8)
            guard let fourCC = chunkHeader.fourCC(at: 0), let size = chunkHeader.uint32(at: 4, bigEndian: false).map(Int.init),
                  size <= end - offset - 8 else {
                throw MetadataFormatError(message: "WebP chunk at offset \(offset) runs past the end of the file")
            }
            let chunk = Chunk(fourCC: fourCC, offset: offset, size: size)
            try visit(chunk)
            offset = chunk.end
        }
    }

    private static func read(_ chunk: Chunk, in file: RandomAccessFile, into copies: inout MetadataCopies) throws {
        let isExif = chunk.fourCC == exifFourCC
        let kind = isExif ? "EXIF" : "XMP"
        let place = "WebP \(chunk.fourCC == misspelledXMPFourCC ? "XMP\\0" : kind) chunk"
        guard chunk.size <= Zlib.outputLimit else {
            return copies.addUnreadable(kind, place: place, reason: "larger than \(Zlib.outputLimit) bytes")
        }
        let payload = try file.bytes(at: chunk.payload.lowerBound, count: chunk.size)
        if isExif {
            copies.addExif(payload, rank: 0, place: place)
        } else {
            copies.addXMP(payload, rank: chunk.fourCC == xmpFourCC ? 0 : 1, place: place)
        }
    }

    // MARK: Writing

    /// IPTC and Photoshop resources are named in `notCarried`. A simple WebP (one `VP8 ` or
    /// `VP8L` chunk) given EXIF or XMP becomes an extended one.
    public static func writingMetadata(_ blocks: MetadataBlocks, into file: [UInt8]) throws -> MetadataWriting {
        var added: [(fourCC: String, payload: [UInt8])] = []
        if let exif = blocks.exif { added.append((exifFourCC, exif.tiff)) }
        if let xmp = blocks.xmp { added.append((xmpFourCC, xmp)) }
        let bytes = try replacingChunks(in: file, removing: [exifFourCC, xmpFourCC, misspelledXMPFourCC], adding: added)
        let notCarried = (blocks.iptc == nil ? [] : ["IPTC"]) + (blocks.photoshop == nil ? [] : ["Photoshop resources"])
        return MetadataWriting(bytes: bytes, notCarried: notCarried)
    }

    /// `webp` without its chunks of the `removing` kinds, `added` after its image data in the
    /// order given, and its `VP8X` flags saying which metadata it holds.
    static func replacingChunks(in webp: [UInt8], removing: Set<String>,
                                adding added: [(fourCC: String, payload: [UInt8])]) throws -> [UInt8] {
        let kept = try chunks(of: webp).filter { !removing.contains($0.fourCC) }
        guard let lastImageChunk = kept.lastIndex(where: { imageFourCCs.contains($0.fourCC) }) else {
            throw MetadataFormatError(message: "WebP has no image data")
        }
        var body: [UInt8] = []
        for (index, chunk) in kept.enumerated() where chunk.fourCC != "VP8X" {
            // The padding byte is written afresh: a file may end without its last one.
            body += webp[chunk.offset..<chunk.payload.upperBound] + (chunk.size % 2 == 1 ? [0] : [])
            if index == lastImageChunk { for chunk in added { body += Self.chunk(chunk.fourCC, chunk.payload) } }
        }
        let fourCCs = Set(kept.map(\.fourCC) + added.map(\.fourCC))
        let existing = kept.first { $0.fourCC == "VP8X" }
        if existing != nil || fourCCs.contains(exifFourCC) || fourCCs.contains(xmpFourCC) {
            var header = try existing.map { Array(webp[$0.payload]) } ?? extendedHeader(for: kept[lastImageChunk], in: webp)
            guard header.count >= 10 else { throw MetadataFormatError(message: "WebP VP8X chunk is too short") }
            header[0] &= ~(exifFlag | xmpFlag)
            if fourCCs.contains(exifFourCC) { header[0] |= exifFlag }
            if fourCCs.contains(xmpFourCC) { header[0] |= xmpFlag }
            body = chunk("VP8X", header) + body
        }
        var output = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + body
        output.setUInt32(UInt32(output.count - 8), at: 4, bigEndian: false)
        return output
    }

    /// The chunks after the RIFF header, in a whole file in memory.
    static func chunks(of webp: [UInt8]) throws -> [Chunk] {
        var chunks: [Chunk] = []
        try forEachChunk(size: webp.count, reading: { Array(webp[$0..<$0 + $1]) }) { chunks.append($0) }
        return chunks
    }

    /// The `VP8X` payload a simple file needs once it holds metadata: its canvas is the
    /// bitstream's frame size, and a lossless bitstream says whether it uses alpha.
    private static func extendedHeader(for image: Chunk, in webp: [UInt8]) throws -> [UInt8] {
        let payload = webp[image.payload]
        let start = payload.startIndex
        let width: Int, height: Int, flags: UInt8
        if image.fourCC == "VP8 ", payload.dropFirst(3).starts(with: [0x9D, 0x01, 0x2A]),
           let w = payload.uint16(at: start + 6, bigEndian: false), let h = payload.uint16(at: start + 8, bigEndian: false) {
            // 14 bits of size; the top two scale the output, which the canvas ignores.
            (width, height, flags) = (Int(w & 0x3FFF), Int(h & 0x3FFF), 0)
        } else if image.fourCC == "VP8L", payload.first == 0x2F, let bits = payload.uint32(at: start + 1, bigEndian: false) {
            // 14 bits each of width - 1 and height - 1, then the alpha hint.
            (width, height) = (Int(bits & 0x3FFF) + 1, Int(bits >> 14 & 0x3FFF) + 1)
            flags = bits >> 28 & 1 == 1 ? alphaFlag : 0
        } else {
            throw MetadataFormatError(message: "WebP without VP8X starts with neither a VP8 nor a VP8L bitstream")
        }
        guard width > 0, height > 0 else { throw MetadataFormatError(message: "WebP bitstream has no size") }
        var header: [UInt8] = [flags, 0, 0, 0]
        for size in [width - 1, height - 1] { header += [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16)] }
        return header
    }

    /// A whole chunk: fourCC, little-endian size, payload, a padding byte after an odd one.
    static func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        var chunk = [UInt8](fourCC: fourCC) + [0, 0, 0, 0] + payload + (payload.count % 2 == 1 ? [0] : [])
        chunk.setUInt32(UInt32(payload.count), at: 4, bigEndian: false)
        return chunk
    }
}
