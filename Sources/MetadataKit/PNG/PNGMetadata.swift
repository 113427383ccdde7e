/// PNG's places for metadata. EXIF: `eXIf` (PNG 1.5's extension). XMP: an `iTXt` chunk with
/// keyword `XML:com.adobe.xmp` (the XMP specification's place; libvips 8.14 writes it as a
/// `zTXt`, older tools as `tEXt`). IPTC and Photoshop resources have no standard place:
/// ImageMagick and exiftool keep them, and copies of EXIF and XMP, as hex "raw profiles" in
/// text chunks (`Raw profile type iptc`, `8bim`, `exif`, `APP1`, `xmp`).
///
/// Reading takes every copy from anywhere in the file (before or after the image data); writing
/// removes them all and puts the model's blocks before the first `IDAT`, each once, as exiftool
/// writes them, so that exiftool reads each back from where it looks first.
public enum PNGMetadata: MetadataContainer {
    static let exifType = "eXIf"
    static let xmpKeyword = "XML:com.adobe.xmp"
    static let iptcKeyword = "Raw profile type iptc"
    /// The name exiftool gives the profile inside an IPTC raw profile.
    static let iptcProfileName = "IPTC profile"
    /// What an `APP1` raw profile starts with when it holds XMP rather than EXIF.
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    struct Chunk: Equatable {
        let type: String
        /// Where its length field starts.
        let offset: Int
        let length: Int
        var data: Range<Int> { offset + 8..<offset + 8 + length }
        var end: Int { offset + 12 + length }
    }

    // MARK: Reading

    public static func readMetadata(path: String) throws -> MetadataBlocks {
        let file = try RandomAccessFile(path: path)
        guard file.size >= 8, try file.bytes(at: 0, count: 8) == PNGStructure.signature else {
            throw MetadataFormatError(message: "not a PNG")
        }
        var copies = MetadataCopies()
        try forEachChunk(size: file.size, reading: file.bytes) { chunk in try read(chunk, in: file, into: &copies) }
        return copies.blocks
    }

    /// Each chunk after the signature up to `IEND` (or the end of the file), its header read
    /// through `read` (offset, count): its data is for `visit` to read or skip.
    private static func forEachChunk(size: Int, reading read: (Int, Int) throws -> [UInt8], _ visit: (Chunk) throws -> Void) throws {
        var offset = 8
        while offset < size {
            let header = try read(offset, min(8, size - offset))
            // A length has 31 bits (PNG §5.3).
            guard let length = header.uint32(at: 0).map(Int.init), length < 1 << 31, let type = header.fourCC(at: 4),
                  length <= size - offset - 12 else {
                throw MetadataFormatError(message: "PNG chunk at offset \(offset) runs past the end of the file")
            }
            let chunk = Chunk(type: type, offset: offset, length: length)
            try visit(chunk)
            if type == "IEND" { return }
            offset = chunk.end
        }
    }

    /// Reads a chunk's data only when it is a metadata chunk: a text chunk's keyword first.
    private static func read(_ chunk: Chunk, in file: RandomAccessFile, into copies: inout MetadataCopies) throws {
        let place: String, kind: String, isText: Bool
        if chunk.type == exifType {
            (place, kind, isText) = ("PNG eXIf chunk", "EXIF", false)
        } else if let text = try metadataText(chunk, in: file) {
            (place, kind, isText) = ("PNG \(chunk.type) '\(text.keyword)'", text.place.kindName, true)
        } else {
            return
        }
        guard chunk.length <= Zlib.outputLimit else {
            return copies.addUnreadable(kind, place: place, reason: "larger than \(Zlib.outputLimit) bytes")
        }
        let bytes = try file.bytes(at: chunk.offset + 4, count: chunk.length + 8)
        guard bytes.uint32(at: bytes.count - 4) == CRC32.checksum(bytes.dropLast(4)) else {
            return copies.addUnreadable(kind, place: place, reason: "CRC mismatch")
        }
        let data = Array(bytes[4..<bytes.count - 4])
        guard isText else { return copies.addExif(data, rank: 0, place: place) }
        do {
            try addText(PNGText(type: chunk.type, data: data), type: chunk.type, place: place, to: &copies)
        } catch {
            copies.addUnreadable(kind, place: place, reason: "\(error)")
        }
    }

    /// A text chunk's keyword and what it holds, from its first bytes; nil when it is no block
    /// we read (ImageMagick's property copies are not: the blocks they come from are).
    private static func metadataText(_ chunk: Chunk, in file: RandomAccessFile) throws -> (keyword: String, place: PNGTextPlace)? {
        guard PNGText.types.contains(chunk.type) else { return nil }
        let head = try file.bytes(at: chunk.data.lowerBound, count: min(chunk.length, PNGText.keywordFieldLimit))
        guard let keyword = PNGText.keyword(of: head[...]), let place = PNGTextPlace(keyword: keyword), place != .propertyCopy else {
            return nil
        }
        return (keyword, place)
    }

    /// XMP from its own chunk, or whatever block a raw profile holds. XMP in `iTXt` (the standard
    /// place) ranks first, then in other text chunks, then in raw profiles; EXIF in `eXIf`
    /// before raw profiles (see `MetadataCopies.blocks`).
    private static func addText(_ text: PNGText, type: String, place: String, to copies: inout MetadataCopies) throws {
        guard case .rawProfile(let named)? = PNGTextPlace(keyword: text.keyword) else {
            return copies.addXMP(text.text, rank: type == "iTXt" ? 0 : 1, place: place)
        }
        let profile = try PNGRawProfile(text: text.text)
        switch named ?? PNGTextPlace.profileKind(named: profile.name) {
        case "exif": copies.addExif(profile.bytes, rank: 1, place: place)
        case "app1" where profile.bytes.starts(with: xmpSignature):
            copies.addXMP(Array(profile.bytes.dropFirst(xmpSignature.count)), rank: 2, place: place)
        case "app1": copies.addExif(profile.bytes, rank: 1, place: place)
        case "xmp": copies.addXMP(profile.bytes, rank: 2, place: place)
        case "iptc", "8bim": copies.addIPTC(profile.bytes, place: place)
        default: break // an ICC profile, say: libvips carries colour
        }
    }

    // MARK: Writing

    public static func writingMetadata(_ blocks: MetadataBlocks, into file: [UInt8]) throws -> MetadataWriting {
        var added: [UInt8] = []
        if let exif = blocks.exif { added += chunk(exifType, exif.tiff) }
        if let xmp = blocks.xmp { added += chunk("iTXt", PNGText.iTXtData(keyword: xmpKeyword, text: xmp)) }
        if let resources = IPTCBlock.photoshopResources(iim: blocks.iptc, others: blocks.photoshop) {
            let profile = PNGRawProfile(name: iptcProfileName, bytes: resources)
            added += chunk("zTXt", PNGText.zTXtData(keyword: iptcKeyword, text: profile.text))
        }
        return MetadataWriting(bytes: try replacingChunks(in: file, adding: added) { isMetadata($0, in: file) })
    }

    /// Whether a chunk holds a copy of a block (or, ImageMagick's, of a single property): every
    /// such chunk goes when the model's blocks are written.
    private static func isMetadata(_ chunk: Chunk, in png: [UInt8]) -> Bool {
        guard chunk.type != exifType else { return true }
        guard PNGText.types.contains(chunk.type), let keyword = PNGText.keyword(of: png[chunk.data]) else { return false }
        return PNGTextPlace(keyword: keyword) != nil
    }

    /// `png` without the chunks `removing` picks, with `added` (whole chunks) before its first
    /// `IDAT`. Bytes after `IEND`, which no encoder writes, are left out.
    static func replacingChunks(in png: [UInt8], adding added: [UInt8], removing: (Chunk) -> Bool) throws -> [UInt8] {
        let chunks = try chunks(of: png)
        guard let imageData = chunks.firstIndex(where: { $0.type == "IDAT" }) else {
            throw MetadataFormatError(message: "PNG has no image data")
        }
        var output = PNGStructure.signature
        output.reserveCapacity(png.count + added.count)
        for (index, chunk) in chunks.enumerated() {
            if index == imageData { output += added }
            if !removing(chunk) { output += png[chunk.offset..<chunk.end] }
        }
        return output
    }

    /// The chunks of a whole file in memory, up to `IEND`.
    static func chunks(of png: [UInt8]) throws -> [Chunk] {
        guard png.starts(with: PNGStructure.signature) else { throw MetadataFormatError(message: "not a PNG") }
        var chunks: [Chunk] = []
        try forEachChunk(size: png.count, reading: { Array(png[$0..<$0 + $1]) }) { chunks.append($0) }
        return chunks
    }

    /// A whole chunk: length, type, data, CRC of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = [UInt8](fourCC: type) + data
        var chunk = [0, 0, 0, 0] + typed + [0, 0, 0, 0]
        chunk.setUInt32(UInt32(data.count), at: 0)
        chunk.setUInt32(CRC32.checksum(typed), at: chunk.count - 4)
        return chunk
    }
}
