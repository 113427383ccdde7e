import Foundation

/// JPEG XL's places for metadata (ISO/IEC 18181-2): in the ISO-BMFF container around the
/// codestream, an `Exif` box (a 4-byte offset to the TIFF header, then the block) and an `xml `
/// box (an XMP packet). A bare codestream, which is what libvips 8.14's `jxlsave` writes, has no
/// place for either: it is wrapped in a container (`JXL ` signature, `ftyp`, the metadata
/// boxes, then the codestream in a `jxlc` box). There is no place for IPTC-IIM or Photoshop
/// resources. Brotli-compressed boxes (`brob`) are not read: named unreadable, and removed.
public enum JXLMetadata: MetadataContainer {
    static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    static let signatureBox: [UInt8] = [0, 0, 0, 0x0C] + [UInt8](fourCC: "JXL ") + [0x0D, 0x0A, 0x87, 0x0A]
    /// `ftyp`: major brand `jxl `, minor version 0, compatible `jxl `.
    static let fileTypeBox = ISOBox.box("ftyp", [UInt8](fourCC: "jxl ") + [0, 0, 0, 0] + [UInt8](fourCC: "jxl "))
    /// Boxes that must stay ahead of the metadata: the signature, `ftyp` and the level box.
    static let leadingBoxes: Set<String> = ["JXL ", "ftyp", "jxll"]

    // MARK: Reading

    public static func readMetadata(path: String) throws -> MetadataBlocks {
        let file = try RandomAccessFile(path: path)
        guard let boxes = try containerBoxes(size: file.size, reading: file.bytes) else { return MetadataBlocks() }
        var copies = MetadataCopies()
        for box in boxes where ["Exif", "xml ", "brob"].contains(box.type) {
            let payload = try file.bytes(at: box.payloadStart, count: box.size - box.headerSize)
            switch box.type {
            case "Exif": copies.addExif(Array(payload.dropFirst(4)), rank: 0, place: "JXL Exif box")
            case "xml ": copies.addXMP(payload, rank: 0, place: "JXL xml box")
            default:
                let inner = payload.fourCC(at: 0) ?? "?"
                if ["Exif", "xml "].contains(inner) { copies.addUnreadable(inner == "Exif" ? "EXIF" : "XMP", place: "JXL brob box",
                                                                         reason: "Brotli-compressed") }
            }
        }
        return copies.blocks
    }

    /// The top-level boxes of a JPEG XL container; nil for a bare codestream.
    private static func containerBoxes(size: Int, reading read: (Int, Int) throws -> [UInt8]) throws -> [ISOBox]? {
        let head = try read(0, min(size, signatureBox.count))
        if head.starts(with: codestreamSignature) { return nil }
        guard head == signatureBox else { throw MetadataFormatError(message: "not a JPEG XL file") }
        var boxes: [ISOBox] = []
        var offset = 0
        while size - offset >= 8 {
            let box = try HEIFMetadata.walking { try ISOBox.parse(header: try read(offset, min(16, size - offset)), at: offset, limit: size) }
            boxes.append(box)
            offset = box.end
        }
        return boxes
    }

    // MARK: Writing

    /// `file` as libvips' encoder wrote it (a bare codestream or a container) in a container
    /// whose only `Exif` and `xml ` boxes are `blocks`' own, right after `ftyp` (and `jxll`).
    public static func writingMetadata(_ blocks: MetadataBlocks, into file: [UInt8]) throws -> MetadataWriting {
        var body: [[UInt8]]
        var head: [[UInt8]] = [signatureBox, fileTypeBox]
        if let boxes = try containerBoxes(size: file.count, reading: { Array(file[$0..<$0 + $1]) }) {
            let kept = boxes.filter { !isMetadata($0, in: file) }
            head = kept.filter { leadingBoxes.contains($0.type) }.map { Array(file[$0.range]) }
            body = kept.filter { !leadingBoxes.contains($0.type) }.map { Array(file[$0.range]) }
        } else {
            body = [codestreamBox(file)]
        }
        var metadata: [[UInt8]] = []
        if let exif = blocks.exif { metadata.append(ISOBox.box("Exif", [0, 0, 0, 0] + exif.tiff)) }
        if let xmp = blocks.xmp { metadata.append(ISOBox.box("xml ", xmp)) }
        body = metadata + body
        let notCarried = [blocks.iptc.map { _ in "IPTC" }, blocks.photoshop.map { _ in "Photoshop resources" }].compactMap { $0 }
        return MetadataWriting(bytes: (head + body).flatMap { $0 }, notCarried: notCarried)
    }

    /// A bare codestream in a `jxlc` box, with a 64-bit size when it needs one.
    private static func codestreamBox(_ codestream: [UInt8]) -> [UInt8] {
        guard codestream.count + 8 > Int(UInt32.max) else { return ISOBox.box("jxlc", codestream) }
        var header = [0, 0, 0, 1] + [UInt8](fourCC: "jxlc") + [UInt8](repeating: 0, count: 8)
        header.setUInt32(UInt32(truncatingIfNeeded: (codestream.count + 16) >> 32), at: 8)
        header.setUInt32(UInt32(truncatingIfNeeded: codestream.count + 16), at: 12)
        return header + codestream
    }

    /// The boxes this container owns: EXIF and XMP, plain or Brotli-compressed.
    private static func isMetadata(_ box: ISOBox, in file: [UInt8]) -> Bool {
        if ["Exif", "xml "].contains(box.type) { return true }
        return box.type == "brob" && ["Exif", "xml "].contains(file.fourCC(at: box.payloadStart) ?? "")
    }
}
