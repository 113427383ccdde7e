import Foundation

/// How far a HEIF/AVIF file's items reach, by its own `iloc` box: the furthest end of the item
/// data stored in the file (images, grid tiles, thumbnails, Exif). A file shorter than that was cut
/// off inside an item. libheif 1.15 (Debian 12) refuses such a file when its header is read;
/// libheif 1.23 (Debian 13) decodes it and fills the missing tiles with green, so mediabatch checks
/// itself. Boxes that are not items (a motion photo's trailing video, a sequence's samples) do not
/// count: a file cut there still holds its whole still image.
public enum HEIFDataExtent {
    /// The furthest byte the items claim and the file's actual size; nil when the file has no
    /// readable `meta` and `iloc` (libheif judges those).
    public static func claimedEnd(path: String) throws -> (claimed: Int, size: Int)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MovieFileError("cannot open \(path)") }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        var offset = 0
        while size - offset >= 8 {
            let header = try handle.readBytes(at: offset, count: min(16, size - offset))
            guard let (headerSize, boxSize) = boxSize(header, at: offset, fileSize: size), boxSize >= headerSize else { return nil }
            if header.fourCC(at: 4) == "meta" {
                guard offset + boxSize <= size, boxSize <= HEIFStructure.largestMeta else { return nil }
                let meta = try handle.readBytes(at: offset, count: boxSize)
                return itemDataEnd(meta, payloadStart: headerSize + 4).map { ($0, size) }
            }
            offset += boxSize
        }
        return nil
    }

    /// A box's header size and declared size, whether or not the file holds all of it.
    private static func boxSize(_ header: [UInt8], at offset: Int, fileSize: Int) -> (Int, Int)? {
        guard let compact = header.uint32(at: 0) else { return nil }
        switch compact {
        case 0: return (8, fileSize - offset) // to the end of the file
        case 1: return header.uint64(at: 8).flatMap { Int(exactly: $0) }.map { (16, $0) }
        default: return (8, Int(compact))
        }
    }

    /// The furthest end of the file-stored extents `iloc` lists (ISO/IEC 14496-12, 8.11.3), in a
    /// `meta` box whose children start at `payloadStart`; nil without a readable `iloc`.
    static func itemDataEnd(_ meta: [UInt8], payloadStart: Int) -> Int? {
        guard let boxes = try? ISOBox.boxes(in: meta, min(payloadStart, meta.count)..<meta.count),
              let iloc = boxes.first(where: { $0.type == "iloc" }) else { return nil }
        return (try? ItemLocations(meta, payload: iloc.payloadStart..<iloc.end))?.furthestEnd
    }
}
