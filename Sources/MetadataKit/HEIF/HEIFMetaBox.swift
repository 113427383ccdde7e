/// A HEIF/AVIF file's `meta` box, parsed as far as its metadata items need: item info, item
/// locations, references, the primary item, entity groups and `idat`. Offsets are in the bytes it
/// was read from (the whole file when writing, the box alone when reading).
struct HEIFMetaBox {
    enum MetadataKind: Equatable {
        case exif, xmp, iptc

        /// As reports name blocks.
        var blockName: String {
            switch self {
            case .exif: "EXIF"
            case .xmp: "XMP"
            case .iptc: "IPTC"
            }
        }
    }

    let box: ISOBox
    let children: [ISOBox]
    let iinfVersion: Int
    let items: [ItemInfoEntry]
    let locations: ItemLocations
    let references: ItemReferences
    let primary: Int
    /// Entity group IDs (`grpl`), which share the item ID space.
    let groupIDs: [Int]

    static let xmpContentType = "application/rdf+xml"

    init(_ bytes: [UInt8], _ box: ISOBox) throws {
        self.box = box
        // `meta` is a full box: 4 bytes of version and flags before its children.
        let children = try ISOBox.boxes(in: bytes, min(box.payloadStart + 4, box.end)..<box.end)
        self.children = children
        func child(_ type: String) throws -> ISOBox {
            guard let found = children.first(where: { $0.type == type }) else { throw MetadataFormatError(message: "HEIF 'meta' has no '\(type)'") }
            return found
        }
        (iinfVersion, items) = try ItemInfoEntry.entries(of: child("iinf"), in: bytes)
        let iloc = try child("iloc"), pitm = try child("pitm")
        locations = try ItemLocations(bytes, payload: iloc.payloadStart..<iloc.end)
        references = try children.first(where: { $0.type == "iref" }).map { try ItemReferences(bytes, $0) } ?? ItemReferences()
        var fields = ItemLocations.FieldReader(bytes: bytes, offset: pitm.payloadStart, end: pitm.end)
        primary = try fields.read(fields.read(4) >> 24 == 0 ? 2 : 4)
        groupIDs = try children.first(where: { $0.type == "grpl" }).map { try Self.groupIDs(bytes, $0) } ?? []
    }

    /// Each entity group's ID (a full box: version and flags, then the ID).
    private static func groupIDs(_ bytes: [UInt8], _ grpl: ISOBox) throws -> [Int] {
        try ISOBox.boxes(in: bytes, grpl.payloadStart..<grpl.end).map { group in
            var fields = ItemLocations.FieldReader(bytes: bytes, offset: group.payloadStart + 4, end: group.end)
            return try fields.read(4)
        }
    }

    static func kind(of item: ItemInfoEntry) -> MetadataKind? {
        switch item.type {
        case "Exif": return .exif
        case "iptc": return .iptc
        case "mime": return item.contentType == xmpContentType ? .xmp : nil
        default: return nil
        }
    }

    /// The metadata items, those describing the primary image (`cdsc` to it) first.
    var metadataItems: [(item: ItemInfoEntry, kind: MetadataKind)] {
        let describingPrimary = Set(references.references.filter { $0.type == "cdsc" && $0.to.contains(primary) }.map(\.from))
        let all = items.compactMap { item in Self.kind(of: item).map { (item: item, kind: $0) } }
        return all.filter { describingPrimary.contains($0.item.id) } + all.filter { !describingPrimary.contains($0.item.id) }
    }

    var idat: ISOBox? { children.first { $0.type == "idat" } }

    func location(of id: Int) throws -> ItemLocations.Item {
        guard let location = locations.items.first(where: { $0.id == id }) else {
            throw MetadataFormatError(message: "item \(id) has no location")
        }
        return location
    }

    /// The box rebuilt from `bytes` (where the removed items' data may have been zeroed): the
    /// same children in the same order, but `iinf` without the `removing` items' entries and
    /// with the added ones (IDs from `firstID`), `iloc` as `locations`, and `iref` without
    /// references to removed items and with a `cdsc` from each added one to the primary image.
    func rebuilt(from bytes: [UInt8], removing removed: Set<Int>, adding added: [HEIFMetadata.NewItem], firstID: Int,
                 locations: ItemLocations, wide: Bool) -> [UInt8] {
        var references = self.references
        references.references = references.references.compactMap { reference in
            var kept = reference
            kept.to.removeAll { removed.contains($0) }
            return removed.contains(reference.from) || kept.to.isEmpty ? nil : kept
        }
        references.references += added.indices.map { .init(type: "cdsc", from: firstID + $0, to: [primary]) }
        var payload = Array(bytes[box.payloadStart..<box.payloadStart + 4])
        for child in children {
            switch child.type {
            case "iinf":
                payload += iinf(child, bytes, removing: removed, adding: added, firstID: firstID)
                if !children.contains(where: { $0.type == "iref" }) && !references.references.isEmpty { payload += references.box }
            case "iloc": payload += child.rebuilt(withPayload: locations.payload(wide: wide), from: bytes)
            case "iref": if !references.references.isEmpty { payload += references.box }
            default: payload += bytes[child.range]
            }
        }
        return box.rebuilt(withPayload: payload, from: bytes)
    }

    /// `iinf` with every `infe` box kept byte for byte but the removed items', then the new ones.
    private func iinf(_ iinf: ISOBox, _ bytes: [UInt8], removing removed: Set<Int>, adding added: [HEIFMetadata.NewItem],
                      firstID: Int) -> [UInt8] {
        let removedStarts = Set(items.filter { removed.contains($0.id) }.map(\.range.lowerBound))
        let countSize = iinfVersion == 0 ? 2 : 4
        let boxes = (try? ISOBox.boxes(in: bytes, iinf.payloadStart + 4 + countSize..<iinf.end)) ?? []
        let kept = boxes.filter { !removedStarts.contains($0.start) }.flatMap { bytes[$0.range] }
        let new = added.enumerated().flatMap { ItemInfoEntry.box(id: firstID + $0.offset, type: $0.element.type, contentType: $0.element.contentType) }
        let count = boxes.count - removedStarts.count + added.count
        let version = count > 0xFFFF ? 1 : iinfVersion
        var header: [UInt8] = [UInt8(version), 0, 0, 0] + [UInt8](repeating: 0, count: version == 0 ? 2 : 4)
        if version == 0 { header.setUInt16(UInt16(count), at: 4) } else { header.setUInt32(UInt32(count), at: 4) }
        return iinf.rebuilt(withPayload: header + kept + new, from: bytes)
    }
}
