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
        let properties = try ItemProperties(bytes, meta: children)
        return items.sorted().flatMap { properties.of($0) }.filter { $0.box.type == "auxC" }.map {
            ItemProperties.auxiliaryType($0.box, in: bytes)
        }
    }
}
