/// One `infe` box (ISO/IEC 14496-12, 8.11.6.2), versions 2 and 3: an item's ID, its type (`hvc1`,
/// `grid`, `Exif`, `mime`…) and, for a `mime` item, its content type. Earlier versions name no type.
struct ItemInfoEntry: Equatable {
    let id: Int
    let type: String
    let contentType: String?
    /// The whole box, in the bytes it was read from.
    let range: Range<Int>

    init?(_ bytes: [UInt8], _ infe: ISOBox) {
        var reader = ItemLocations.FieldReader(bytes: bytes, offset: infe.payloadStart, end: infe.end)
        guard let version = try? reader.read(4) >> 24, version >= 2,
              let id = try? reader.read(version == 2 ? 2 : 4), (try? reader.read(2)) != nil, // protection index
              let type = bytes.fourCC(at: reader.offset), reader.offset + 4 <= infe.end else { return nil }
        self.id = id
        self.type = type
        range = infe.range
        // Then a NUL-terminated name and, for `mime`, a NUL-terminated content type.
        let strings = bytes[reader.offset + 4..<infe.end].split(separator: 0, omittingEmptySubsequences: false)
        contentType = type == "mime" && strings.count > 1 ? String(decoding: strings[1], as: UTF8.self) : nil
    }

    /// The entries of an `iinf` box: a full box with a 16-bit (version 0) or 32-bit entry count,
    /// then `infe` boxes.
    static func entries(of iinf: ISOBox, in bytes: [UInt8]) throws -> (version: Int, entries: [ItemInfoEntry]) {
        guard iinf.payloadStart + 4 <= iinf.end else { return (0, []) }
        let version = Int(bytes[iinf.payloadStart])
        let boxes = try ISOBox.boxes(in: bytes, min(iinf.payloadStart + 4 + (version == 0 ? 2 : 4), iinf.end)..<iinf.end)
        return (version, boxes.filter { $0.type == "infe" }.compactMap { ItemInfoEntry(bytes, $0) })
    }

    /// A new `infe` box (version 2, or 3 for an ID past 16 bits) for a hidden item: metadata
    /// is not an image to show, and libheif and exiftool mark it so.
    static func box(id: Int, type: String, contentType: String? = nil) -> [UInt8] {
        let version: UInt8 = id > 0xFFFF ? 3 : 2
        var payload: [UInt8] = [version, 0, 0, 1]
        let idBytes = (0..<(version == 2 ? 2 : 4)).reversed().map { UInt8(truncatingIfNeeded: id >> ($0 * 8)) }
        payload += idBytes + [0, 0] + [UInt8](fourCC: type) + [0] // protection index 0, empty name
        if let contentType { payload += Array(contentType.utf8) + [0] }
        return ISOBox.box("infe", payload)
    }
}
