import Foundation

extension HEIFMetadata {
    /// The HEIF with its images and every box no edit touches byte for byte: each Exif, XMP and
    /// iptc item edited where its data lies and written back in its own bytes (padded: see
    /// `InPlace`), so no `iloc` offset moves; Samsung's `sefd` box without its location record
    /// and its motion photo's video (`mpvd`) without its own, in place. An edit that removes an item whole, or a file whose items cannot be edited in
    /// place, is rewritten the way an encoder's file is (`writingMetadata`), everything else kept.
    public static func rewritingMetadata(path: String, editing edit: BlockEdit) throws -> MetadataWriting? {
        var file = try WholeFile.bytes(path)
        var editor = CopyEditor(edit)
        guard try editInPlace(&file, &editor) else { return try rewritingWholeBlocks(path: path, editing: edit) }
        guard editor.changes > 0 else { return nil }
        return MetadataWriting(bytes: file, dropped: editor.dropped)
    }

    /// Edits every metadata item of `file` in place; false when one cannot be (removed whole, or
    /// grown, or kept elsewhere than this file).
    private static func editInPlace(_ file: inout [UInt8], _ editor: inout CopyEditor) throws -> Bool {
        let top = try walking { try ISOBox.boxes(in: file, 0..<file.count) }
        guard top.first?.type == "ftyp", let metaBox = top.first(where: { $0.type == "meta" }) else {
            throw MetadataFormatError(message: "not a HEIF file with a 'meta' box")
        }
        let meta = try walking { try HEIFMetaBox(file, metaBox) }
        for (item, kind) in meta.metadataItems {
            guard let ranges = try? extents(of: item.id, meta), !ranges.isEmpty,
                  ranges.allSatisfy({ $0.lowerBound >= 0 && $0.upperBound <= file.count }) else { return false }
            let data = ranges.flatMap { file[$0] }
            guard let edited = edited(data, kind, place: "item \(item.id)", &editor) else { return false }
            if edited != data { InPlace.scatter(edited, over: ranges, in: &file) }
        }
        if editor.edit.removesLocation { removeSamsungLocation(in: &file, top, &editor) }
        for box in top where box.type == "mpvd" {
            if case .replaced(let movie) = try editor.movie(Array(file[box.payloadStart..<box.end]), place: "the motion photo's video") {
                file.replaceSubrange(box.payloadStart..<box.end, with: movie)
            }
        }
        return true
    }

    /// An item's data as the edit leaves it, in its own length; nil when it cannot stay there.
    private static func edited(_ data: [UInt8], _ kind: HEIFMetaBox.MetadataKind, place: String,
                               _ editor: inout CopyEditor) -> [UInt8]? {
        // An Exif item: a 4-byte offset, that many bytes (usually "Exif\\0\\0"), then the TIFF structure.
        let header = kind == .exif ? data.uint32(at: 0).map { 4 + Int($0) } : 0
        guard let header, header <= data.count else { return nil }
        let block = Array(data[header...])
        let outcome: CopyEditor.Outcome
        switch kind {
        case .exif: outcome = editor.exif(block, place: place)
        case .xmp: outcome = editor.xmp(block, place: place)
        case .iptc: outcome = editor.iim(block, place: place)
        }
        switch outcome {
        case .unchanged: return data
        case .removed: return nil
        case .replaced(let bytes): return InPlace.padded(bytes, to: block.count, as: kind).map { Array(data[..<header]) + $0 }
        }
    }

    /// Where an item's data lies in the file, extent by extent.
    private static func extents(of id: Int, _ meta: HEIFMetaBox) throws -> [Range<Int>] {
        let location = try meta.location(of: id)
        guard location.dataReference == 0, location.constructionMethod < 2 else { return [] }
        let origin = location.constructionMethod == 1 ? meta.idat?.payloadStart : 0
        guard let origin else { return [] }
        return try location.extents.map { extent in
            let (base, overflow) = (origin + location.baseOffset).addingReportingOverflow(extent.offset)
            let (end, past) = base.addingReportingOverflow(extent.length)
            guard !overflow, !past, extent.length > 0, base >= 0 else { throw MetadataFormatError(message: "item \(id) has a bad extent") }
            return base..<end
        }
    }

    /// Samsung keeps its trailer, location record and all, in a top-level `sefd` box.
    private static func removeSamsungLocation(in file: inout [UInt8], _ top: [ISOBox], _ editor: inout CopyEditor) {
        for box in top where box.type == "sefd" {
            guard let edited = SamsungTrailer.removingLocation(from: Array(file[box.payloadStart..<box.end])) else { continue }
            file.replaceSubrange(box.payloadStart..<box.end, with: edited.bytes)
            for name in edited.removed { editor.drop("\(name) (Samsung trailer)") }
        }
    }
}
