import Foundation

/// Removes location from a `moov` held in memory. Every edit keeps the edited box's size, so
/// no offset anywhere in the file moves.
struct MoovRewriter {
    private(set) var bytes: [UInt8]
    private(set) var removed: [String] = []
    private let moov: ISOBox

    /// Keyed-metadata names exiftool files under Location: position and its accuracy, place
    /// names, and the camera direction.
    static let locationKeyPrefixes = [positionKeyPrefix, "com.apple.quicktime.direction."]
    static let positionKeyPrefix = "com.apple.quicktime.location."

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        moov = try ISOBox.parse(header: Array(bytes.prefix(16)), at: 0, limit: bytes.count)
        guard moov.type == "moov", moov.size == bytes.count else {
            throw MovieFileError("expected a 'moov' box of \(bytes.count) bytes, found '\(moov.type)' of \(moov.size)")
        }
    }

    mutating func removeLocation() throws {
        for box in try ISOBox.boxes(in: bytes, moov.payloadStart..<moov.end) {
            switch box.type {
            case "udta": try editUserData(box, path: "moov/udta")
            case "meta": try editMeta(box, path: "moov/meta")
            case "trak": try editTrack(box)
            default: break
            }
        }
    }

    private mutating func editTrack(_ trak: ISOBox) throws {
        for box in try ISOBox.boxes(in: bytes, trak.payloadStart..<trak.end) {
            switch box.type {
            case "udta": try editUserData(box, path: "moov/trak/udta")
            case "meta": try editMeta(box, path: "moov/trak/meta")
            case "mdia": try refuseTimedLocation(in: box)
            default: break
            }
        }
    }

    /// Location recorded as samples (iPhone `mebx` tracks declaring location keys, GoPro
    /// `gpmd`, Google `camm`) lives in `mdat`, out of reach of a metadata rewrite.
    private func refuseTimedLocation(in mdia: ISOBox) throws {
        guard let stsd = try mdia.child("minf", in: bytes)?.child("stbl", in: bytes)?.child("stsd", in: bytes) else { return }
        let locationKey = Array(Self.positionKeyPrefix.utf8)
        // version and flags, an entry count, then the sample entries
        for entry in try ISOBox.boxes(in: bytes, min(stsd.payloadStart + 8, stsd.end)..<stsd.end) {
            let declaresLocation = entry.type == "mebx" && bytes[entry.range].firstRange(of: locationKey) != nil
            if declaresLocation || entry.type == "gpmd" || entry.type == "camm" {
                throw MovieFileError("a '\(entry.type)' track records location in its samples, which an in-place edit cannot remove")
            }
        }
    }

    private mutating func editUserData(_ udta: ISOBox, path: String) throws {
        let children = try ISOBox.boxes(in: bytes, udta.payloadStart..<udta.end)
        for meta in children where meta.type == "meta" {
            try editMeta(meta, path: path + "/meta")
        }
        let doomed = children.filter(isLocationUserData)
        guard !doomed.isEmpty else { return }
        let kept = rebuilt(udta, childrenStart: udta.payloadStart, children: children) { doomed.contains($0) ? nil : bytes[$0.range] }
        try replace(udta, with: kept)
        removed += doomed.map { "\(path)/\($0.type)" }
    }

    /// `©xyz` (ISO 6709 text), `@xyz` (older iPhones), `loci` (3GPP). XMP goes whole when it
    /// names a place anywhere: editing inside the packet is the XMP module's job.
    private func isLocationUserData(_ box: ISOBox) -> Bool {
        switch box.type {
        case "©xyz", "@xyz", "loci": true
        case "XMP_": XMPPacket.carriesLocation(bytes[box.payloadStart..<box.end])
        default: false
        }
    }

    private mutating func editMeta(_ box: ISOBox, path: String) throws {
        let meta = try QuickTimeMetaBox(box, in: bytes)
        let edit = meta.isKeyed ? keyedEdit(meta, path: path) : itemListEdit(meta, path: path)
        guard let edit else { return }
        let kept = rebuilt(box, childrenStart: meta.childrenStart, children: meta.children) { child in
            edit.replacements[child.start].map(ArraySlice.init) ?? bytes[child.range]
        }
        try replace(box, with: kept)
        removed += edit.removed
    }

    /// New bytes for some children of a `meta` (by start offset), and what they no longer hold.
    private typealias MetaEdit = (replacements: [Int: [UInt8]], removed: [String])

    /// Drops location keys and their `ilst` items, renumbering the remaining items: an item's
    /// type is the 1-based index of its key.
    private func keyedEdit(_ meta: QuickTimeMetaBox, path: String) -> MetaEdit? {
        guard let keys = meta.keys else { return nil }
        let names = meta.keyNames(in: bytes)
        let doomed = Set(names.indices.filter { index in
            Self.locationKeyPrefixes.contains { names[index].hasPrefix($0) }
        }.map { $0 + 1 })
        guard !doomed.isEmpty else { return nil }
        var renumbered: [Int: Int] = [:]
        for index in 1...names.count where !doomed.contains(index) {
            renumbered[index] = renumbered.count + 1
        }

        let doomedEntries = Set(doomed.map { meta.keyEntries[$0 - 1].start })
        var newKeys = rebuilt(keys, childrenStart: keys.payloadStart + 8, children: meta.keyEntries) { entry in
            doomedEntries.contains(entry.start) ? nil : bytes[entry.range]
        }
        newKeys.setUInt32(UInt32(renumbered.count), at: keys.headerSize + 4)
        var replacements = [keys.start: newKeys]
        if let itemList = meta.itemList {
            replacements[itemList.start] = rebuilt(itemList, childrenStart: itemList.payloadStart, children: meta.items) { item in
                let index = QuickTimeMetaBox.keyIndex(of: item, in: bytes)
                guard !doomed.contains(index) else { return nil }
                var copy = Array(bytes[item.range])
                if let newIndex = renumbered[index] { copy.setUInt32(UInt32(newIndex), at: 4) }
                return copy[...]
            }
        }
        return (replacements, doomed.sorted().map { "\(path)/keys:\(names[$0 - 1])" })
    }

    /// iTunes-style `ilst` (handler `mdir`): items are typed by tag, location is `©xyz`.
    private func itemListEdit(_ meta: QuickTimeMetaBox, path: String) -> MetaEdit? {
        guard let itemList = meta.itemList else { return nil }
        let doomed = meta.items.filter { $0.type == "©xyz" }
        guard !doomed.isEmpty else { return nil }
        let kept = rebuilt(itemList, childrenStart: itemList.payloadStart, children: meta.items) {
            doomed.contains($0) ? nil : bytes[$0.range]
        }
        return ([itemList.start: kept], doomed.map { "\(path)/ilst/\($0.type)" })
    }

    /// `box` with each child replaced by `replacement(child)` (nil drops it). Bytes before the
    /// first child (version, flags, counts) and after the last (a `udta` terminator) are kept.
    private func rebuilt(_ box: ISOBox, childrenStart: Int, children: [ISOBox],
                         replacement: (ISOBox) -> ArraySlice<UInt8>?) -> [UInt8] {
        var payload = Array(bytes[box.payloadStart..<childrenStart])
        for child in children {
            if let bytes = replacement(child) { payload += bytes }
        }
        payload += bytes[(children.last?.end ?? childrenStart)..<box.end]
        return box.rebuilt(withPayload: payload, from: bytes)
    }

    /// Writes `shorter` over `box` and fills the rest of its range with a zeroed `free` box, so
    /// the parent keeps its size and no removed byte survives.
    private mutating func replace(_ box: ISOBox, with shorter: [UInt8]) throws {
        let freed = box.size - shorter.count
        // Removed children are whole boxes, 8 bytes at least, so this only trips on a bug.
        guard freed >= 8 else { throw MovieFileError("rewriting '\(box.type)' at offset \(box.start) freed \(freed) bytes, too few for a 'free' box") }
        var free = [UInt8](repeating: 0, count: freed)
        free.setUInt32(UInt32(freed), at: 0)
        free[4..<8] = [0x66, 0x72, 0x65, 0x65] // "free"
        bytes[box.range] = ArraySlice(shorter + free)
    }
}
