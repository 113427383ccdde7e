import Foundation

/// The parts of a HEIF/AVIF file's structure that say what kind of picture it is, read from
/// the `ftyp` and `meta` boxes alone: image data is never read.
public struct HEIFStructure: Equatable, Sendable {
    /// The major brand, then the compatible ones.
    public let brands: [String]
    public let topLevelBoxTypes: Set<String>
    /// Each item's type, e.g. `hvc1`, `grid`, `Exif`, `mime`, `tmap`.
    public let itemTypes: [String]
    /// Auxiliary image types (`auxC`), e.g. `urn:com:apple:photo:2020:aux:hdrgainmap`.
    public let auxiliaryTypes: [String]
    /// Entity group types (`grpl` children), e.g. `ster` for a stereo pair.
    public let entityGroupTypes: [String]
    /// Which gain map the primary image has, if any (`HEIFGainMap`).
    public let gainMapKind: GainMapKind?

    /// An image sequence (HEIF `msf1`/`hevs`, AVIF `avis`) keeps its frames in a `moov` track.
    public static func isSequence(_ structure: HEIFStructure) -> Bool {
        !Set(structure.brands).isDisjoint(with: sequenceBrands) && structure.topLevelBoxTypes.contains("moov")
    }

    static let sequenceBrands: Set<String> = ["msf1", "hevs", "avis"]

    /// Far above any real `meta` box (a 200 MP grid holds a few hundred kilobytes of item info).
    static let largestMeta = 16 << 20

    public init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MovieFileError("cannot open \(path)") }
        defer { try? handle.close() }
        let boxes = try ISOBox.topLevelBoxes(of: handle)
        topLevelBoxTypes = Set(boxes.map(\.type))
        guard let ftyp = boxes.first(where: { $0.type == "ftyp" }), ftyp.size <= 4096 else {
            throw MovieFileError("\(path) has no usable 'ftyp' box")
        }
        brands = Self.brands(try handle.readBytes(at: ftyp.start, count: ftyp.size), ftyp)
        guard let metaBox = boxes.first(where: { $0.type == "meta" }) else {
            (itemTypes, auxiliaryTypes, entityGroupTypes, gainMapKind) = ([], [], [], nil)
            return
        }
        guard metaBox.size <= Self.largestMeta else {
            throw MovieFileError("'meta' claims \(metaBox.size) bytes, more than the \(Self.largestMeta) accepted")
        }
        let bytes = try handle.readBytes(at: metaBox.start, count: metaBox.size)
        let meta = try ISOBox.parse(header: Array(bytes.prefix(16)), at: 0, limit: bytes.count)
        // `meta` is a full box: 4 bytes of version and flags before its children.
        let children = try ISOBox.boxes(in: bytes, min(meta.payloadStart + 4, meta.end)..<meta.end)
        itemTypes = try children.first { $0.type == "iinf" }.map { try ItemInfoEntry.entries(of: $0, in: bytes).entries.map(\.type) } ?? []
        let properties = try children.first { $0.type == "iprp" }?.child("ipco", in: bytes)
        auxiliaryTypes = try properties.map { ipco in
            try ISOBox.boxes(in: bytes, ipco.payloadStart..<ipco.end).filter { $0.type == "auxC" }.map {
                ItemProperties.auxiliaryType($0, in: bytes)
            }
        } ?? []
        gainMapKind = HEIFGainMap.kind(meta: bytes, children: children)
        entityGroupTypes = try children.first { $0.type == "grpl" }.map {
            try ISOBox.boxes(in: bytes, $0.payloadStart..<$0.end).map(\.type)
        } ?? []
    }

    private static func brands(_ bytes: [UInt8], _ ftyp: ISOBox) -> [String] {
        // major brand, minor version, then compatible brands to the end
        var brands = bytes.fourCC(at: ftyp.headerSize).map { [$0] } ?? []
        var offset = ftyp.headerSize + 8
        while offset + 4 <= bytes.count {
            if let brand = bytes.fourCC(at: offset) { brands.append(brand) }
            offset += 4
        }
        return brands
    }
}

extension ISOBox {
    /// The boxes at the top level of a file, read header by header: payloads stay on disk.
    static func topLevelBoxes(of handle: FileHandle) throws -> [ISOBox] {
        let fileSize = Int(try handle.seekToEnd())
        var boxes: [ISOBox] = []
        var offset = 0
        while fileSize - offset >= 8 {
            let box = try ISOBox.parse(header: try handle.readBytes(at: offset, count: min(16, fileSize - offset)),
                                       at: offset, limit: fileSize)
            boxes.append(box)
            offset = box.end
        }
        return boxes
    }
}

extension FileHandle {
    /// Exactly `count` bytes at `offset`, or an error saying the file ends too soon.
    func readBytes(at offset: Int, count: Int) throws -> [UInt8] {
        try seek(toOffset: UInt64(offset))
        let data = try read(upToCount: count) ?? Data()
        guard data.count == count else {
            throw MovieFileError("file ends inside the \(count) bytes expected at offset \(offset)")
        }
        return [UInt8](data)
    }
}
