/// An `iref` box (ISO/IEC 14496-12, 8.11.12): typed references from one item to others, e.g.
/// `cdsc` (an Exif or XMP item describes an image), `dimg` (a grid's tiles), `thmb`, `auxl`.
struct ItemReferences: Equatable {
    struct Reference: Equatable {
        var type: String
        var from: Int
        var to: [Int]
    }

    /// 0: 16-bit item IDs; 1: 32-bit.
    var version: Int
    var references: [Reference]

    init(version: Int = 0, references: [Reference] = []) {
        self.version = version
        self.references = references
    }

    init(_ bytes: [UInt8], _ iref: ISOBox) throws {
        var reader = ItemLocations.FieldReader(bytes: bytes, offset: iref.payloadStart, end: iref.end)
        version = try reader.read(4) >> 24
        let idSize = version == 0 ? 2 : 4
        references = []
        for box in try ISOBox.boxes(in: bytes, reader.offset..<iref.end) {
            var fields = ItemLocations.FieldReader(bytes: bytes, offset: box.payloadStart, end: box.end)
            let from = try fields.read(idSize)
            let to = try (0..<fields.read(2)).map { _ in try fields.read(idSize) }
            references.append(Reference(type: box.type, from: from, to: to))
        }
    }

    /// The whole box; 32-bit IDs when one needs them.
    var box: [UInt8] {
        let version = references.contains { ([$0.from] + $0.to).contains { $0 > 0xFFFF } } ? 1 : self.version
        let idSize = version == 0 ? 2 : 4
        func field(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        let payload = references.flatMap { reference in
            ISOBox.box(reference.type, field(reference.from, idSize) + field(reference.to.count, 2) + reference.to.flatMap { field($0, idSize) })
        }
        return ISOBox.box("iref", [UInt8(version), 0, 0, 0] + payload)
    }
}
