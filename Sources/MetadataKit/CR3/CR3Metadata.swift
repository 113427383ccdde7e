import Foundation

/// A Canon CR3 (ISO-BMFF of brand `crx `): its EXIF in three TIFF structures inside Canon's
/// `uuid` box in `moov` — CMT1 holds IFD0, CMT2 the EXIF directory, CMT4 the GPS directory —
/// and XMP in a top-level `uuid` box. Read as one EXIF block (IFD0 pointing to the other two).
/// Rewritten in place, every other byte kept: the GPS directory emptied at its length, XMP
/// edited at its length. Nothing else of the EXIF can change without moving Canon's values: an
/// edit that would (a keep-list) throws.
public enum CR3Metadata: MetadataContainer {
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
    /// Far above a real `moov` (a few track headers and Canon's boxes: tens of KiB).
    static let largestMoov = 64 << 20

    /// Where the file keeps each block: the payloads of CMT1, CMT2, CMT4 and the XMP box.
    struct Places: Equatable {
        var ifd0: Range<Int>?
        var exif: Range<Int>?
        var gps: Range<Int>?
        var xmp: Range<Int>?
    }

    public static func readMetadata(path: String) throws -> MetadataBlocks {
        let file = try RandomAccessFile(path: path)
        let places = try self.places(size: file.size) { try file.bytes(at: $0, count: $1) }
        func bytes(_ range: Range<Int>?) throws -> [UInt8]? { try range.map { try file.bytes(at: $0.lowerBound, count: $0.count) } }
        var copies = MetadataCopies()
        if let ifd0 = try bytes(places.ifd0) {
            copies.addExif(try exifBlock(ifd0: ifd0, exif: try bytes(places.exif), gps: try bytes(places.gps)).tiff, rank: 0, place: "CMT1-CMT4")
        }
        if let xmp = try bytes(places.xmp) { copies.addXMP(xmp, rank: 0, place: "XMP uuid box") }
        return copies.blocks
    }

    public static func writingMetadata(_ blocks: MetadataBlocks, into file: [UInt8]) throws -> MetadataWriting {
        throw MetadataFormatError(message: "a CR3 is never an encoder's output")
    }

    public static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        var file = try WholeFile.bytes(path)
        let places = try self.places(size: file.count) { offset, count in Array(file[offset..<offset + count]) }
        var editor = CopyEditor(edit)
        if places.ifd0 != nil {
            let parts = [places.ifd0, places.exif, places.gps].map { $0.map { Array(file[$0]) } }
            let whole = try exifBlock(ifd0: parts[0]!, exif: parts[1], gps: parts[2])
            switch editor.exif(whole.tiff, place: "CMT1-CMT4") {
            case .unchanged: break
            case .removed: throw MetadataFormatError(message: "a CR3's EXIF cannot be removed in place")
            case .replaced(let edited):
                try requireOnlyGPSRemoved(from: whole, leaving: edited)
                if let gps = places.gps { file.replaceSubrange(gps, with: emptyDirectory(like: parts[2]!)) }
            }
        }
        if let xmp = places.xmp {
            switch editor.xmp(Array(file[xmp]), place: "XMP uuid box") {
            case .unchanged: break
            case .removed: throw MetadataFormatError(message: "a CR3's XMP cannot be removed in place")
            case .replaced(let edited):
                guard let padded = InPlace.padded(edited, to: xmp.count, as: .xmp) else {
                    throw MetadataFormatError(message: "a CR3's edited XMP no longer fits its box")
                }
                file.replaceSubrange(xmp, with: padded)
            }
        }
        guard editor.changes > 0 else { return nil }
        return MetadataWriting(bytes: file, dropped: editor.dropped)
    }

    /// The top-level boxes, and those in Canon's `uuid` box in `moov`, read through `read`.
    static func places(size: Int, read: (Int, Int) throws -> [UInt8]) throws -> Places {
        var places = Places()
        do {
            var offset = 0
            while size - offset >= 8 {
                let box = try ISOBox.parse(header: try read(offset, min(16, size - offset)), at: offset, limit: size)
                if box.type == "moov" {
                    guard box.size <= largestMoov else { throw MetadataFormatError(message: "a 'moov' of \(box.size) bytes") }
                    try readCanonBoxes(in: try read(box.payloadStart, box.end - box.payloadStart), at: box.payloadStart, into: &places)
                } else if box.type == "uuid", box.end - box.payloadStart >= 16, try read(box.payloadStart, 16) == xmpUUID {
                    places.xmp = box.payloadStart + 16..<box.end
                }
                offset = box.end
            }
        } catch let error as MovieFileError {
            throw MetadataFormatError(message: error.message)
        }
        return places
    }

    /// CMT1, CMT2 and CMT4 in the `uuid` box of Canon's UUID in `moov` (its payload, found at `start`).
    private static func readCanonBoxes(in moov: [UInt8], at start: Int, into places: inout Places) throws {
        for box in try ISOBox.boxes(in: moov, 0..<moov.count) where box.type == "uuid" && moov.count >= box.payloadStart + 16 {
            guard Array(moov[box.payloadStart..<box.payloadStart + 16]) == canonUUID else { continue }
            for child in try ISOBox.boxes(in: moov, box.payloadStart + 16..<box.end) {
                let payload = start + child.payloadStart..<start + child.end
                switch child.type {
                case "CMT1": places.ifd0 = payload
                case "CMT2": places.exif = payload
                case "CMT4": places.gps = payload
                default: break
                }
            }
        }
    }

    /// One EXIF block: CMT1's directory as IFD0, CMT2's as its EXIF directory, CMT4's as its GPS one.
    static func exifBlock(ifd0: [UInt8], exif: [UInt8]?, gps: [UInt8]?) throws -> ExifData {
        var root = try directory(ifd0, .ifd0)
        for (tag, kind, tiff) in [(UInt16(0x8769), ExifData.Directory.exif, exif), (ExifTag.gpsPointer, .gps, gps)] {
            guard let tiff else { continue }
            let child = try directory(tiff, kind)
            if !child.entries.isEmpty { root.children[tag] = child.converted(toBigEndian: root.bigEndian) }
        }
        return try root.exifBlock()
    }

    private static func directory(_ tiff: [UInt8], _ kind: ExifData.Directory) throws -> TIFFDirectory {
        guard case .classic(let bigEndian, let offset)? = TIFFHeader(tiff) else {
            throw MetadataFormatError(message: "a CR3 CMT box holds no TIFF structure")
        }
        var reader = TIFFDirectoryReader(source: tiff, bigEndian: bigEndian)
        return try reader.directory(kind, at: offset)
    }

    /// Throws unless `edited` is `whole` without its GPS directory: IFD0 and EXIF as they were.
    private static func requireOnlyGPSRemoved(from whole: ExifData, leaving edited: [UInt8]) throws {
        func parts(_ tiff: [UInt8]) throws -> [[TIFFDirectory.Entry]] {
            let root = try directory(tiff, .ifd0)
            return [root.entries, root.children[0x8769]?.entries ?? []].map { entries in
                entries.map { TIFFDirectory.Entry(tag: $0.tag, type: $0.type, count: $0.count, value: $0.value, sourceOffset: 0) }
            }
        }
        guard let after = ExifData(edited), !after.hasGPS, try parts(after.tiff) == parts(whole.tiff) else {
            throw MetadataFormatError(message: "only the GPS directory can go from a CR3's EXIF in place")
        }
    }

    /// A TIFF structure of `tiff`'s length whose directory has no entry.
    private static func emptyDirectory(like tiff: [UInt8]) -> [UInt8] {
        Array(tiff.prefix(4)) + [8, 0, 0, 0].reversedIfBigEndian(tiff) + [UInt8](repeating: 0, count: max(0, tiff.count - 8))
    }
}

private extension Array where Element == UInt8 {
    /// These bytes of a little-endian field, in `tiff`'s byte order.
    func reversedIfBigEndian(_ tiff: [UInt8]) -> [UInt8] {
        tiff.first == 0x4D ? reversed() : self
    }
}
