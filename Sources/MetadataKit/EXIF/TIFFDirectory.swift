/// One TIFF directory (IFD) lifted out of the structure it was read from: its entries with their
/// values, and the directories its pointer tags lead to (EXIF and GPS from IFD0, interoperability
/// from EXIF). Written back with `append(to:)` anywhere, in either byte order: what compacting an
/// EXIF block, reading a TIFF's own EXIF and writing metadata into a TIFF all come down to.
struct TIFFDirectory: Equatable {
    struct Entry: Equatable {
        let tag: UInt16
        let type: UInt16
        let count: Int
        /// The value, in `TIFFDirectory.bigEndian` order: inline values are the bytes they take
        /// (1 to 4), not the whole slot.
        var value: [UInt8]
        /// Where the value sat in the structure it was read from, counted from its TIFF header:
        /// a MakerNote that addresses its values from there moves them by as much as it moves.
        var sourceOffset: Int
    }

    let kind: ExifData.Directory
    private(set) var bigEndian: Bool
    var entries: [Entry]
    /// The directories pointer tags lead to, by pointer tag; the pointer entries themselves are
    /// not in `entries` (their offsets are only known when written).
    var children: [UInt16: TIFFDirectory]
    /// Where the directory sat in the structure it was read from (0 for a new one).
    var sourceOffset = 0

    /// Types whose size is known (13 is IFD, an offset as LONG is); an entry of another type
    /// cannot be carried (nor its value found).
    static func size(ofType type: UInt16) -> Int? {
        type == 13 ? 4 : (1...12).contains(type) ? ExifData.typeSize(type) : nil
    }

    var isEmpty: Bool { entries.isEmpty && children.isEmpty }

    /// Only the entries `keeping` accepts, here and in the directories pointed to; a pointed
    /// directory left empty goes with its pointer.
    func filtered(_ keeping: (ExifData.Directory, UInt16) -> Bool) -> TIFFDirectory {
        var filtered = self
        filtered.entries = entries.filter { keeping(kind, $0.tag) }
        filtered.children = children.mapValues { $0.filtered(keeping) }.filter { !$0.value.isEmpty }
        return filtered
    }

    /// Adds or replaces the entry with `entry`'s tag.
    mutating func set(_ entry: Entry) {
        entries.removeAll { $0.tag == entry.tag }
        entries.append(entry)
    }

    // MARK: Byte order

    /// The same directory with every value in the other byte order where that changes it. The
    /// MakerNote is left as it is: makers keep their own byte order inside it, and readers
    /// (exiftool among them) find it out.
    func converted(toBigEndian target: Bool) -> TIFFDirectory {
        guard target != bigEndian else { return self }
        var converted = self
        converted.bigEndian = target
        converted.entries = entries.map { entry in
            guard entry.tag != ExifTag.makerNote || kind != .exif else { return entry }
            var swapped = entry
            swapped.value = Self.swapped(entry.value, type: entry.type)
            return swapped
        }
        converted.children = children.mapValues { $0.converted(toBigEndian: target) }
        return converted
    }

    /// Reverses each number of a value: 2-byte SHORTs, 4-byte LONGs and FLOATs, the two LONGs of a
    /// RATIONAL, 8-byte DOUBLEs; bytes, text and UNDEFINED have no order.
    private static func swapped(_ value: [UInt8], type: UInt16) -> [UInt8] {
        let unit: Int
        switch type {
        case 3, 8: unit = 2
        case 4, 9, 11, 13, 5, 10: unit = 4
        case 12: unit = 8
        default: return value
        }
        var swapped = value
        for start in stride(from: 0, to: value.count - unit + 1, by: unit) {
            swapped[start..<start + unit] = ArraySlice(value[start..<start + unit].reversed())
        }
        return swapped
    }

    // MARK: Writing

    /// Appends the directory to `output` (which starts at the TIFF header) at an even offset,
    /// then its values and the directories it points to; returns where the directory starts.
    /// Entries go in ascending tag order, as TIFF requires.
    ///
    /// - Throws: `MetadataFormatError` when an offset would pass 4 GiB.
    @discardableResult
    func append(to output: inout [UInt8], next: UInt32 = 0) throws -> Int {
        if output.count % 2 == 1 { output.append(0) }
        let start = output.count
        let pointers = children.keys.map { Entry(tag: $0, type: 4, count: 1, value: [0, 0, 0, 0], sourceOffset: 0) }
        let all = (entries + pointers).sorted { $0.tag < $1.tag }
        output += [UInt8](repeating: 0, count: 2 + all.count * 12 + 4)
        output.setUInt16(UInt16(all.count), at: start, bigEndian: bigEndian)
        output.setUInt32(next, at: start + 2 + all.count * 12, bigEndian: bigEndian)
        for (index, entry) in all.enumerated() {
            let at = start + 2 + index * 12
            output.setUInt16(entry.tag, at: at, bigEndian: bigEndian)
            output.setUInt16(entry.type, at: at + 2, bigEndian: bigEndian)
            output.setUInt32(UInt32(entry.count), at: at + 4, bigEndian: bigEndian)
            if let child = children[entry.tag] {
                let childStart = try Self.offsetField(child.append(to: &output))
                output.setUInt32(childStart, at: at + 8, bigEndian: bigEndian)
            } else if entry.value.count <= 4 {
                output.replaceSubrange(at + 8..<at + 8 + entry.value.count, with: entry.value)
            } else {
                if output.count % 2 == 1 { output.append(0) } // values start on a word boundary
                let valueStart = output.count
                output.setUInt32(try Self.offsetField(valueStart), at: at + 8, bigEndian: bigEndian)
                output += kind == .exif && entry.tag == ExifTag.makerNote
                    ? MakerNoteOffsets.rebased(entry.value, from: entry.sourceOffset, to: valueStart)
                    : entry.value
            }
        }
        return start
    }

    static func offsetField(_ offset: Int) throws -> UInt32 {
        guard let field = UInt32(exactly: offset) else {
            throw MetadataFormatError(message: "TIFF offset \(offset) does not fit in 32 bits")
        }
        return field
    }

    /// A standalone EXIF block holding this directory as its IFD0: header, then the directory.
    func exifBlock() throws -> ExifData {
        var output = Array((bigEndian ? "MM\0*" : "II*\0").utf8) + [0, 0, 0, 0]
        let start = try append(to: &output)
        output.setUInt32(UInt32(start), at: 4, bigEndian: bigEndian)
        guard let block = ExifData(output) else { throw MetadataFormatError(message: "EXIF block could not be rebuilt") }
        return block
    }
}
