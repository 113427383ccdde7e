/// A HEIF `iprp` box (ISO/IEC 23008-12, 9.3): the properties (`ipco`, in order) and which of them
/// each item has (`ipma`), in the order the item lists them, each marked essential or not.
struct ItemProperties {
    struct Association: Equatable {
        /// The property box, in the bytes it was read from.
        let box: ISOBox
        let essential: Bool
    }

    let properties: [ISOBox]
    private var associations: [Int: [Association]] = [:]

    /// Reads `iprp` from the `meta` box's children; none when it has no `iprp`.
    init(_ bytes: [UInt8], meta children: [ISOBox]) throws {
        guard let iprp = children.first(where: { $0.type == "iprp" }), let ipco = try iprp.child("ipco", in: bytes) else {
            properties = []
            return
        }
        properties = try ISOBox.boxes(in: bytes, ipco.payloadStart..<ipco.end)
        for ipma in try ISOBox.boxes(in: bytes, iprp.payloadStart..<iprp.end) where ipma.type == "ipma" {
            try read(bytes, ipma)
        }
    }

    /// Per entry an item ID (16 bits, 32 from version 1), a count, then 1-based indices of 7 bits
    /// (15 when flag 1 is set) after an "essential" bit; index 0 is no property.
    private mutating func read(_ bytes: [UInt8], _ ipma: ISOBox) throws {
        var fields = ItemLocations.FieldReader(bytes: bytes, offset: ipma.payloadStart, end: ipma.end)
        let versionAndFlags = try fields.read(4)
        let idSize = versionAndFlags >> 24 == 0 ? 2 : 4, indexSize = versionAndFlags & 1 == 0 ? 1 : 2
        for _ in 0..<(try fields.read(4)) {
            let id = try fields.read(idSize)
            for _ in 0..<(try fields.read(1)) {
                let field = try fields.read(indexSize), essentialBit = indexSize == 1 ? 0x80 : 0x8000
                let index = field & (essentialBit - 1)
                guard index >= 1, index <= properties.count else { continue }
                associations[id, default: []].append(Association(box: properties[index - 1], essential: field & essentialBit != 0))
            }
        }
    }

    /// `item`'s properties, in the order `ipma` lists them.
    func of(_ item: Int) -> [Association] {
        associations[item] ?? []
    }

    /// The `auxC` type (a URN) of an auxiliary image property: version and flags, then a
    /// NUL-terminated string.
    static func auxiliaryType(_ auxC: ISOBox, in bytes: [UInt8]) -> String {
        String(decoding: bytes[min(auxC.payloadStart + 4, auxC.end)..<auxC.end].prefix { $0 != 0 }, as: UTF8.self)
    }
}
