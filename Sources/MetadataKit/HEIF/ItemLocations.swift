/// A HEIF/AVIF `iloc` box (ISO/IEC 14496-12, 8.11.3): where each item's data lies, read field
/// by field (every read bounds-checked against the box) and written back with field sizes that
/// fit its values.
struct ItemLocations: Equatable {
    struct Extent: Equatable {
        var index: Int
        var offset: Int
        /// 0: to the end of the file (or of `idat`).
        var length: Int
    }

    struct Item: Equatable {
        var id: Int
        /// 0: offsets in the file; 1: in the `meta` box's `idat`; 2: in another item.
        var constructionMethod: Int
        /// 0: this file; another: a file named in `dinf`.
        var dataReference: Int
        var baseOffset: Int
        var extents: [Extent]

        /// Data in this file at absolute offsets, the only kind a box moving before it shifts.
        var isInFile: Bool { constructionMethod == 0 && dataReference == 0 }
    }

    var version: Int
    var indexSize: Int
    var items: [Item]

    struct CutOff: Error {}

    /// Reads the box's payload (from its version and flags on). An 8-byte value past Int.max
    /// comes out negative; `furthestEnd` and the writer treat that as past any file.
    init(_ bytes: [UInt8], payload: Range<Int>) throws {
        var reader = FieldReader(bytes: bytes, offset: payload.lowerBound, end: payload.upperBound)
        version = try reader.read(4) >> 24 // version, then 24 bits of flags
        let sizes = try reader.read(2)
        let (offsetSize, lengthSize, baseOffsetSize) = (sizes >> 12, sizes >> 8 & 0xF, sizes >> 4 & 0xF)
        indexSize = version == 1 || version == 2 ? sizes & 0xF : 0
        let wide = version >= 2
        items = []
        for _ in 0..<(try reader.read(wide ? 4 : 2)) {
            let id = try reader.read(wide ? 4 : 2)
            let constructionMethod = version == 1 || version == 2 ? try reader.read(2) & 0xF : 0
            let dataReference = try reader.read(2)
            let baseOffset = try reader.read(baseOffsetSize)
            var extents: [Extent] = []
            for _ in 0..<(try reader.read(2)) {
                let index = try reader.read(indexSize)
                extents.append(Extent(index: index, offset: try reader.read(offsetSize), length: try reader.read(lengthSize)))
            }
            items.append(Item(id: id, constructionMethod: constructionMethod, dataReference: dataReference,
                              baseOffset: baseOffset, extents: extents))
        }
    }

    /// The furthest end of the extents stored in this file at absolute offsets; Int.max when
    /// one lies past what an Int holds.
    var furthestEnd: Int {
        var furthest = 0
        for item in items where item.isInFile {
            for extent in item.extents where extent.length > 0 {
                let (start, overflow) = item.baseOffset.addingReportingOverflow(extent.offset)
                let (last, overflowAgain) = start.addingReportingOverflow(extent.length)
                furthest = overflow || overflowAgain || start < 0 || last < 0 ? Int.max : max(furthest, last)
            }
        }
        return furthest
    }

    /// The payload (version and flags first) with base offsets folded into the extents: 4-byte
    /// offsets and lengths, or 8-byte ones when `wide` (a file past 4 GiB).
    func payload(wide: Bool) -> [UInt8] {
        let version = items.contains { $0.id > 0xFFFF } ? 2 : self.version
        let fieldSize = wide ? 8 : 4
        var out = [UInt8(version), 0, 0, 0, UInt8(fieldSize << 4 | fieldSize), UInt8(version == 0 ? 0 : indexSize)]
        func put(_ value: Int, _ size: Int) {
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) where size > 0 { out.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        put(items.count, version >= 2 ? 4 : 2)
        for item in items {
            put(item.id, version >= 2 ? 4 : 2)
            if version >= 1 { put(item.constructionMethod, 2) }
            put(item.dataReference, 2)
            put(item.extents.count, 2)
            for extent in item.extents {
                if version >= 1 { put(extent.index, indexSize) }
                put(item.baseOffset + extent.offset, fieldSize)
                put(extent.length, fieldSize)
            }
        }
        return out
    }
}

extension ItemLocations {
    /// Big-endian fields of 0 to 8 bytes, bounds-checked against `end`.
    struct FieldReader {
        let bytes: [UInt8]
        var offset: Int
        let end: Int

        mutating func read(_ size: Int) throws -> Int {
            guard size >= 0, size <= 8, offset + size <= end, end <= bytes.count else { throw ItemLocations.CutOff() }
            defer { offset += size }
            return bytes[offset..<offset + size].reduce(0) { $0 << 8 | Int($1) }
        }
    }
}
