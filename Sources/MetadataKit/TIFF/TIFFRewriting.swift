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
