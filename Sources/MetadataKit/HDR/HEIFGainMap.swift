import Foundation

/// Which gain map a HEIF/AVIF file's primary image has, from its `meta` box alone: an ISO
/// 21496-1 `tmap` derived item built on the primary (`dimg`), or an auxiliary image of the
/// primary (`auxl`) whose `auxC` names Apple's or Samsung's gain map.
enum HEIFGainMap {
    static let samsungAuxiliaryType = "urn:com:samsung:photo:2024:aux:hdrgainmap"

    /// The kind, or nil for none (or a `meta` box too damaged to say).
    /// `children`: the boxes of `meta`, within `bytes`.
    static func kind(meta bytes: [UInt8], children: [ISOBox]) -> GainMapKind? {
        guard let pitm = children.first(where: { $0.type == "pitm" }), let primary = try? primaryID(bytes, pitm) else { return nil }
        let references = (try? children.first { $0.type == "iref" }.map { try ItemReferences(bytes, $0) }) ?? nil
        let items = (try? children.first { $0.type == "iinf" }.map { try ItemInfoEntry.entries(of: $0, in: bytes).entries }) ?? nil
        let tmaps = Set((items ?? []).filter { $0.type == "tmap" }.map(\.id))
        let links = references?.references ?? []
        if links.contains(where: { $0.type == "dimg" && tmaps.contains($0.from) && $0.to.contains(primary) }) { return .iso21496 }
        let auxiliaries = Set(links.filter { $0.type == "auxl" && $0.to.contains(primary) }.map(\.from))
        guard !auxiliaries.isEmpty, let types = try? auxiliaryTypes(bytes, children, of: auxiliaries) else { return nil }
        if types.contains(AppleHDR.gainMapAuxiliaryType) { return .apple }
        if types.contains(samsungAuxiliaryType) { return .samsung }
        return nil
    }

    private static func primaryID(_ bytes: [UInt8], _ pitm: ISOBox) throws -> Int {
        var fields = ItemLocations.FieldReader(bytes: bytes, offset: pitm.payloadStart, end: pitm.end)
        return try fields.read(fields.read(4) >> 24 == 0 ? 2 : 4)
    }

    /// The `auxC` types associated (`ipma`) with `items`.
    private static func auxiliaryTypes(_ bytes: [UInt8], _ children: [ISOBox], of items: Set<Int>) throws -> [String] {
        guard let iprp = children.first(where: { $0.type == "iprp" }), let ipco = try iprp.child("ipco", in: bytes),
              let ipma = try iprp.child("ipma", in: bytes) else { return [] }
        let properties = try ISOBox.boxes(in: bytes, ipco.payloadStart..<ipco.end)
        return try associations(bytes, ipma, of: items).compactMap { index in
            // 1-based; 0 means no property
            guard index >= 1, index <= properties.count, properties[index - 1].type == "auxC" else { return nil }
            let auxC = properties[index - 1]
            // version and flags, then a NUL-terminated URN
            return String(decoding: bytes[min(auxC.payloadStart + 4, auxC.end)..<auxC.end].prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The property indices `ipma` associates with `items` (ISO/IEC 23008-12, 9.3.3): per entry an
    /// item ID (16 bits, 32 from version 1), a count, then indices of 7 bits (15 when flag 1 is
    /// set) after an "essential" bit.
    private static func associations(_ bytes: [UInt8], _ ipma: ISOBox, of items: Set<Int>) throws -> [Int] {
        var fields = ItemLocations.FieldReader(bytes: bytes, offset: ipma.payloadStart, end: ipma.end)
        let versionAndFlags = try fields.read(4)
        let idSize = versionAndFlags >> 24 == 0 ? 2 : 4, indexSize = versionAndFlags & 1 == 0 ? 1 : 2
        var found: [Int] = []
        for _ in 0..<(try fields.read(4)) {
            let id = try fields.read(idSize)
            let indices = try (0..<fields.read(1)).map { _ in try fields.read(indexSize) & (indexSize == 1 ? 0x7F : 0x7FFF) }
            if items.contains(id) { found += indices }
        }
        return found
    }
}
