import Foundation

extension TIFFMetadata {
    /// The TIFF with its pixels and every directory where it was: XMP (700), IPTC-IIM (33723)
    /// and Photoshop resources (34377) edited in the bytes their values had (padded: see
    /// `InPlace`), then IFD0 and the directories it points to edited as an EXIF block over the
    /// whole file, which removes tags without moving a byte, and an AFCP or FotoStation trailer's
    /// IPTC where it lies. An edit that would move values (a
    /// keep-list compacts EXIF), or a value that no longer fits, is written the way an encoder's
    /// file is (`writingMetadata`), pixels kept.
    public static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        var file = try WholeFile.bytes(path)
        guard let kind = TIFFHeader(file), case .classic = kind else { return try rewritingWholeBlocks(path: path, editing: edit) }
        var editor = CopyEditor(edit)
        if edit.removesLocation { try refusePlacesInSubIFDs(file) }
        guard var exif = ExifData(file), editValues(in: &exif, &editor) else { return try rewritingWholeBlocks(path: path, editing: edit) }
        switch editor.exif(exif.tiff, place: "IFD0") {
        case .unchanged: file = exif.tiff
        case .replaced(let edited) where edited.count == file.count: file = edited
        default: return try rewritingWholeBlocks(path: path, editing: edit)
        }
        // A trailer's IPTC, after the image (nothing before it has moved).
        let records = (AFCPTrailer(file, after: 8)?.iptc ?? []) + FotoStationTrailer.iptc(in: file, after: 8)
        for edit in editor.iimInPlace(records, of: file, place: "trailer") { file.replaceSubrange(edit.range, with: edit.bytes) }
        guard editor.changes > 0 else { return nil }
        return MetadataWriting(bytes: file, dropped: editor.dropped)
    }

    /// XMP or IPTC in a SubIFD (tag 330), which exiftool reads and this editor, which edits IFD0's,
    /// does not: a copy that may keep a place there fails rather than be written.
    private static func refusePlacesInSubIFDs(_ file: [UInt8]) throws {
        let bigEndian = file.starts(with: Array("MM".utf8))
        func entries(_ start: Int) -> [(tag: UInt16, type: UInt16, count: Int, value: Int)] {
            guard let count = file.uint16(at: start, bigEndian: bigEndian) else { return [] }
            return (0..<min(Int(count), 4096)).compactMap { index in
                let at = start + 2 + index * 12
                guard let tag = file.uint16(at: at, bigEndian: bigEndian), let type = file.uint16(at: at + 2, bigEndian: bigEndian),
                      let count = file.uint32(at: at + 4, bigEndian: bigEndian), let value = file.uint32(at: at + 8, bigEndian: bigEndian) else { return nil }
                return (tag, type, Int(count), Int(value))
            }
        }
        guard let ifd0 = file.uint32(at: 4, bigEndian: bigEndian).map(Int.init),
              let subIFDs = entries(ifd0).first(where: { $0.tag == 330 && ($0.type == 4 || $0.type == 13) }) else { return }
        let offsets = subIFDs.count == 1 ? [subIFDs.value]
            : (0..<min(subIFDs.count, 64)).compactMap { file.uint32(at: subIFDs.value + $0 * 4, bigEndian: bigEndian).map(Int.init) }
        for offset in offsets {
            for entry in entries(offset) where [xmpTag, iptcTag, photoshopTag, ExifTag.afcpIPTC].contains(entry.tag) {
                let length = entry.count * ExifData.typeSize(entry.type)
                let value = length <= 4 ? [] : Array(file[min(entry.value, file.count)..<min(entry.value + length, file.count)])
                let places = entry.tag == xmpTag ? XMPPacket.mayPlacePhoto(value) : (try? IPTCBlock.locationValues(in: value).isEmpty) != true
                if places { throw MetadataFormatError(message: "tag \(entry.tag) in a SubIFD may hold location, and mediabatch edits IFD0's only") }
            }
        }
    }

    /// The blocks IFD0 holds as values, each edited in its own bytes; false when one cannot be.
    private static func editValues(in exif: inout ExifData, _ editor: inout CopyEditor) -> Bool {
        for (tag, kind) in [(xmpTag, HEIFMetaBox.MetadataKind.xmp), (iptcTag, .iptc), (photoshopTag, .iptc)] {
            guard let value = exif.bytes(tag, in: .ifd0).map(Array.init), value.contains(where: { $0 != 0 }) else { continue }
            let place = "tag \(tag)"
            let outcome = kind == .xmp ? editor.xmp(value, place: place) : try? editor.photoshop(value, place: place, inPlace: true)
            guard let outcome else { return false }
            switch outcome {
            case .unchanged: continue
            case .removed: return false
            case .replaced(let bytes):
                guard let padded = InPlace.padded(bytes, to: value.count, as: kind) else { return false }
                exif.overwrite(tag, in: .ifd0, with: padded)
            }
        }
        return true
    }
}
