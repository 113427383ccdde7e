extension HEIFMetadata {
    /// One metadata item to add: its `infe` type (and content type) and its data.
    struct NewItem {
        let type: String
        let contentType: String?
        let data: [UInt8]
    }

    /// `file` (as libheif wrote it, through libvips' heifsave) with every Exif, XMP and iptc item
    /// removed — `infe`, `iloc` entry, `iref` references — and their data zeroed, then `blocks`'
    /// own added once each with a `cdsc` reference to the primary image, their data in a new
    /// `mdat` right after `meta`. `meta` keeps its place (before the image data, for decoders that
    /// stream) and the file's end stays as it was (a motion photo's video is found from there);
    /// the `iloc` offsets of data after `meta` move by as much as the two grew. Photoshop
    /// resources have no place in HEIF and are named in `notCarried`.
    ///
    /// - Throws: `MetadataFormatError` for an image sequence (`moov`): its chunk offsets would
    ///   move too, and libvips writes none.
    public static func writingMetadata(_ blocks: MetadataBlocks, into file: [UInt8]) throws -> MetadataWriting {
        let top = try walking { try ISOBox.boxes(in: file, 0..<file.count) }
        guard top.first?.type == "ftyp", let metaBox = top.first(where: { $0.type == "meta" }) else {
            throw MetadataFormatError(message: "not a HEIF file with a 'meta' box")
        }
        guard !top.contains(where: { $0.type == "moov" }) else {
            throw MetadataFormatError(message: "an image sequence's track offsets are not rewritten")
        }
        let meta = try walking { try HEIFMetaBox(file, metaBox) }
        let removed = Set(meta.metadataItems.map(\.item.id))
        var source = file
        zeroData(of: removed, meta, in: &source)
        let added = newItems(blocks)
        let firstID = ((meta.items.map(\.id) + meta.locations.items.map(\.id) + meta.groupIDs + [meta.primary]).max() ?? 0) + 1
        let wide = file.count + added.reduce(0) { $0 + $1.data.count } + (1 << 20) > Int(UInt32.max)
        var locations = meta.locations
        locations.items = try locations.items.filter { !removed.contains($0.id) }.map { try folded($0, wide: wide) }
        locations.items += added.enumerated().map { index, item in
            .init(id: firstID + index, constructionMethod: 0, dataReference: 0, baseOffset: 0, extents: [.init(index: 0, offset: 0, length: item.data.count)])
        }
        let rebuild = { (locations: ItemLocations) in
            meta.rebuilt(from: source, removing: removed, adding: added, firstID: firstID, locations: locations, wide: wide)
        }
        let mdat = added.isEmpty ? [] : ISOBox.box("mdat", added.flatMap(\.data))
        // Field sizes do not depend on the values: a draft tells how far the data after `meta` moves.
        let metaSize = rebuild(locations).count
        try shift(&locations, past: metaBox, by: metaSize - metaBox.size + mdat.count)
        var dataOffset = metaBox.start + metaSize + 8
        for index in locations.items.indices where locations.items[index].id >= firstID {
            locations.items[index].extents[0].offset = dataOffset
            dataOffset += locations.items[index].extents[0].length
        }
        let output = Array(source[..<metaBox.start]) + rebuild(locations) + mdat + source[metaBox.end...]
        return MetadataWriting(bytes: output, notCarried: blocks.photoshop == nil ? [] : ["Photoshop resources"])
    }

    static func newItems(_ blocks: MetadataBlocks) -> [NewItem] {
        var items: [NewItem] = []
        // libvips 8.14 hands libexif what follows the offset field, and libexif wants "Exif\0\0".
        if let exif = blocks.exif { items.append(NewItem(type: "Exif", contentType: nil, data: [0, 0, 0, 6] + exif.app1Payload)) }
        if let xmp = blocks.xmp { items.append(NewItem(type: "mime", contentType: HEIFMetaBox.xmpContentType, data: xmp)) }
        if let iptc = blocks.iptc { items.append(NewItem(type: "iptc", contentType: nil, data: iptc)) }
        return items
    }

    /// The item with its base offset folded into its extents, checked to fit the fields written.
    private static func folded(_ item: ItemLocations.Item, wide: Bool) throws -> ItemLocations.Item {
        var folded = item
        folded.baseOffset = 0
        for index in folded.extents.indices {
            let (offset, overflow) = item.baseOffset.addingReportingOverflow(item.extents[index].offset)
            let limit = wide ? Int.max : Int(UInt32.max)
            guard !overflow, (0...limit).contains(offset), (0...limit).contains(item.extents[index].length) else {
                throw MetadataFormatError(message: "item \(item.id) has an extent past what its file can hold")
            }
            folded.extents[index].offset = offset
        }
        return folded
    }

    /// Moves the file-stored extents after `meta` by `delta`. Data inside `meta` cannot be placed.
    private static func shift(_ locations: inout ItemLocations, past meta: ISOBox, by delta: Int) throws {
        for item in locations.items.indices where locations.items[item].isInFile {
            for extent in locations.items[item].extents.indices {
                let offset = locations.items[item].extents[extent].offset
                if offset >= meta.end {
                    locations.items[item].extents[extent].offset = offset + delta
                } else if offset >= meta.start {
                    throw MetadataFormatError(message: "item \(locations.items[item].id) has data inside 'meta'")
                }
            }
        }
    }

    /// Zeroes the data of `items` in the file and in `idat`, where no other item's data lies:
    /// nothing of a removed block is left for a reader that scans bytes.
    private static func zeroData(of items: Set<Int>, _ meta: HEIFMetaBox, in bytes: inout [UInt8]) {
        func ranges(_ item: ItemLocations.Item) -> [Range<Int>] {
            let origin = item.constructionMethod == 1 ? meta.idat?.payloadStart : item.isInFile ? 0 : nil
            guard let origin else { return [] }
            return item.extents.compactMap { extent in
                let (start, overflow) = (origin + item.baseOffset).addingReportingOverflow(extent.offset)
                guard !overflow, start >= 0, extent.length > 0, extent.length <= bytes.count - start else { return nil }
                return start..<start + extent.length
            }
        }
        let kept = meta.locations.items.filter { !items.contains($0.id) }.flatMap(ranges)
        for range in meta.locations.items.filter({ items.contains($0.id) }).flatMap(ranges) where !kept.contains(where: { $0.overlaps(range) }) {
            bytes.replaceSubrange(range, with: repeatElement(0, count: range.count))
        }
    }
}
