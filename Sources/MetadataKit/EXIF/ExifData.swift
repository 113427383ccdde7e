import Foundation

/// An EXIF block (a TIFF structure) read and edited in place.
///
/// Edits never move a byte: removing a tag takes its entry out of its IFD and zeroes the bytes
/// that only it used, so offsets that other data relies on — above all the Apple MakerNote,
/// which libexif (and so every libvips save) drops — stay valid. That is the point of this type.
public struct ExifData: Sendable, Equatable {
    /// The TIFF structure: byte-order mark first; every offset in it counts from here.
    public private(set) var tiff: [UInt8]
    let bigEndian: Bool

    /// Accepts a TIFF structure with or without the `Exif\0\0` prefix (HEIC files differ), or a
    /// HEIF EXIF item with its 4-byte header offset; nil when no TIFF header is found.
    public init?(_ bytes: [UInt8]) {
        guard let start = Self.tiffHeaderOffset(in: bytes) else { return nil }
        tiff = Array(bytes[start...])
        bigEndian = tiff[0] == 0x4D
        guard let first = tiff.uint32(at: 4, bigEndian: bigEndian), Int(first) < tiff.count else { return nil }
    }

    /// The bytes for a JPEG APP1 segment.
    public var app1Payload: [UInt8] { Array("Exif\0\0".utf8) + tiff }

    private static func tiffHeaderOffset(in bytes: [UInt8]) -> Int? {
        // The header sits at 0, after "Exif\0\0", or after a HEIF item's offset field; search a little.
        for offset in 0..<min(bytes.count, 64) where offset + 8 <= bytes.count {
            let mark = (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
            if mark == (0x49, 0x49, 0x2A, 0x00) || mark == (0x4D, 0x4D, 0x00, 0x2A) { return offset }
        }
        return nil
    }

    // MARK: Structure

    public enum Directory: Sendable, Hashable {
        case ifd0, exif, gps, interoperability, ifd1
    }

    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: Int
        /// Where the entry's 12 bytes sit.
        let entryOffset: Int
        /// Where its value sits: inside the entry when it fits in 4 bytes, else where it points.
        let valueOffset: Int
        let valueLength: Int
        var isInline: Bool { valueLength <= 4 }
    }

    /// The directory a pointer tag leads to where it is one, as `offset(of:)` reads them: EXIF
    /// and GPS from IFD0, interoperability from EXIF. Anywhere else the tag is a plain value;
    /// followed, a directory pointing to itself would be walked forever.
    static func pointedDirectory(_ tag: UInt16, from directory: Directory) -> Directory? {
        switch (tag, directory) {
        case (0x8769, .ifd0): .exif
        case (0x8825, .ifd0): .gps
        case (0xA005, .exif): .interoperability
        default: nil
        }
    }

    func uint16(_ offset: Int) -> UInt16? { tiff.uint16(at: offset, bigEndian: bigEndian) }
    func uint32(_ offset: Int) -> UInt32? { tiff.uint32(at: offset, bigEndian: bigEndian) }

    func offset(of directory: Directory) -> Int? {
        let found: Int?
        switch directory {
        case .ifd0: found = uint32(4).map(Int.init)
        case .ifd1: found = offset(of: .ifd0).flatMap { ifd0 in nextIFDPointer(ifd0).flatMap(uint32) }.map(Int.init)
        case .exif: found = pointer(0x8769, in: .ifd0)
        case .gps: found = pointer(0x8825, in: .ifd0)
        case .interoperability: found = pointer(0xA005, in: .exif)
        }
        guard let found, found > 0, found + 2 <= tiff.count else { return nil }
        return found
    }

    private func pointer(_ tag: UInt16, in directory: Directory) -> Int? {
        entry(tag, in: directory).flatMap { uint32($0.valueOffset) }.map(Int.init)
    }

    /// Where the 4-byte "next IFD" offset of the IFD at `offset` sits.
    private func nextIFDPointer(_ offset: Int) -> Int? {
        uint16(offset).map { offset + 2 + Int($0) * 12 }
    }

    func entries(in directory: Directory) -> [Entry] {
        offset(of: directory).map(entries(at:)) ?? []
    }

    /// The entries of the directory at `start`.
    private func entries(at start: Int) -> [Entry] {
        guard let count = uint16(start) else { return [] }
        return (0..<Int(count)).compactMap { index in
            let at = start + 2 + index * 12
            // A block cut off inside an entry ends before it, even where a short value would fit.
            guard at + 12 <= tiff.count, let tag = uint16(at), let type = uint16(at + 2), let count = uint32(at + 4) else { return nil }
            let length = Int(count) * Self.typeSize(type)
            let valueOffset = length <= 4 ? at + 8 : uint32(at + 8).map(Int.init) ?? -1
            guard count < 1 << 28, valueOffset >= 0, valueOffset + length <= tiff.count else { return nil }
            return Entry(tag: tag, type: type, count: Int(count), entryOffset: at, valueOffset: valueOffset, valueLength: length)
        }
    }

    func entry(_ tag: UInt16, in directory: Directory) -> Entry? {
        entries(in: directory).first { $0.tag == tag }
    }

    static func typeSize(_ type: UInt16) -> Int {
        switch type {
        case 1, 2, 6, 7: return 1 // byte, ascii, sbyte, undefined
        case 3, 8: return 2 // short, sshort
        case 4, 9, 11: return 4 // long, slong, float
        case 5, 10, 12: return 8 // rational, srational, double
        default: return 1
        }
    }

    // MARK: Reading values

    public func string(_ tag: UInt16, in directory: Directory) -> String? {
        guard let entry = entry(tag, in: directory), entry.type == 2 || entry.type == 7 else { return nil }
        let bytes = tiff[entry.valueOffset..<entry.valueOffset + entry.valueLength].prefix { $0 != 0 }
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        return trimmed.isEmpty ? nil : String(trimmed)
    }

    /// Integer or rational values of a tag, as doubles.
    public func numbers(_ tag: UInt16, in directory: Directory) -> [Double] {
        guard let entry = entry(tag, in: directory) else { return [] }
        let size = Self.typeSize(entry.type)
        return (0..<entry.count).compactMap { index -> Double? in
            let at = entry.valueOffset + index * size
            switch entry.type {
            case 1, 7: return Double(tiff[at])
            case 3: return uint16(at).map(Double.init)
            case 8: return uint16(at).map { Double(Int16(bitPattern: $0)) }
            case 4: return uint32(at).map(Double.init)
            case 9: return uint32(at).map { Double(Int32(bitPattern: $0)) }
            case 5, 10:
                guard let numerator = uint32(at), let denominator = uint32(at + 4), denominator != 0 else { return nil }
                return entry.type == 5 ? Double(numerator) / Double(denominator)
                    : Double(Int32(bitPattern: numerator)) / Double(Int32(bitPattern: denominator))
            default: return nil
            }
        }
    }

    public func number(_ tag: UInt16, in directory: Directory) -> Double? {
        numbers(tag, in: directory).first
    }

    /// The raw bytes of an UNDEFINED value such as the MakerNote.
    public func bytes(_ tag: UInt16, in directory: Directory) -> ArraySlice<UInt8>? {
        entry(tag, in: directory).map { tiff[$0.valueOffset..<$0.valueOffset + $0.valueLength] }
    }

    public func contains(_ tag: UInt16, in directory: Directory) -> Bool {
        entry(tag, in: directory) != nil
    }

    /// `UserComment`: an 8-byte character code ("ASCII", "UNICODE" in the file's byte order,
    /// or undefined), then the text, often NUL- or space-padded.
    public var userComment: String? {
        guard let value = bytes(ExifTag.userComment, in: .exif), value.count >= 8 else { return nil }
        let code = value.prefix(8)
        let text = value.dropFirst(8)
        let decoded: String
        if code.starts(with: Array("UNICODE".utf8)) {
            let units: [UInt16] = stride(from: text.startIndex, to: text.endIndex - 1, by: 2).map { at in
                let (high, low) = bigEndian ? (text[at], text[at + 1]) : (text[at + 1], text[at])
                return UInt16(high) << 8 | UInt16(low)
            }
            decoded = String(decoding: units, as: UTF16.self)
        } else {
            decoded = String(decoding: text, as: UTF8.self)
        }
        let trimmed = decoded.trimmingCharacters(in: CharacterSet(charactersIn: "\0 "))
        return trimmed.isEmpty ? nil : trimmed
    }

    /// Whether IFD0 starts inside the block with a readable entry count: a block without it
    /// holds nothing a reader can find.
    public var hasReadableFirstDirectory: Bool { offset(of: .ifd0).flatMap(uint16) != nil }

    public var hasGPS: Bool { !entries(in: .gps).isEmpty }
    public var hasThumbnail: Bool { offset(of: .ifd1) != nil }

    // MARK: Editing in place

    /// Removes a tag from a directory and zeroes the value bytes that only it used. Removing a
    /// pointer tag (GPS, EXIF, interoperability) also zeroes the directory it points to.
    public mutating func remove(_ tag: UInt16, from directory: Directory) {
        guard let start = offset(of: directory), var count = uint16(start) else { return }
        let parsed = Dictionary(entries(at: start).map { ($0.entryOffset, $0) }) { first, _ in first }
        var freed: [Range<Int>] = []
        // Every entry with the tag goes (a second GPS pointer would keep the location), well-formed
        // or not (a reader more lenient than this one would follow it), the last first, so that
        // closing its gap moves none of the others.
        for at in slots(of: tag, at: start).reversed() {
            if let pointed = Self.pointedDirectory(tag, from: directory), let target = uint32(at + 8) {
                freed += extent(of: pointed, at: Int(target))
            }
            if let entry = parsed[at], !entry.isInline { freed.append(entry.valueOffset..<entry.valueOffset + entry.valueLength) }
            // Close the gap: later entries and the next-IFD pointer move up 12 bytes.
            let end = start + 2 + Int(count) * 12 + 4
            guard end <= tiff.count else {
                // The directory claims more entries than the block holds: what follows its last whole
                // entry may be another tag's value, which must not move. The entry is zeroed instead.
                zero(at, 12)
                continue
            }
            tiff.replaceSubrange(at..<end - 12, with: tiff[at + 12..<end])
            freed.append(end - 12..<end)
            count -= 1
            tiff.setUInt16(count, at: start, bigEndian: bigEndian)
        }
        zeroUnused(freed)
    }

    /// Where each entry with `tag` of the directory at `start` sits, whatever its type and count.
    private func slots(of tag: UInt16, at start: Int) -> [Int] {
        guard let count = uint16(start) else { return [] }
        return (0..<Int(count)).map { start + 2 + $0 * 12 }.filter { $0 + 12 <= tiff.count && uint16($0) == tag }
    }

    /// The bytes of the directory of `kind` at `start` (as far as the block holds it), of its
    /// out-of-line values and of the directories it points to.
    private func extent(of kind: Directory, at start: Int) -> [Range<Int>] {
        guard start > 0, let count = uint16(start) else { return [] }
        var ranges = [start..<min(start + 2 + Int(count) * 12 + 4, tiff.count)]
        for entry in entries(at: start) {
            if let pointed = Self.pointedDirectory(entry.tag, from: kind), let target = uint32(entry.valueOffset) {
                ranges += extent(of: pointed, at: Int(target))
            }
            if !entry.isInline { ranges.append(entry.valueOffset..<entry.valueOffset + entry.valueLength) }
        }
        return ranges
    }

    /// Zeroes `freed` but for the bytes the block still uses: a damaged or hostile block may
    /// point a removed value or directory at the header, another directory or a kept value.
    private mutating func zeroUnused(_ freed: [Range<Int>]) {
        guard !freed.isEmpty else { return }
        let used = usedBytes()
        for range in freed {
            var from = range.lowerBound
            for kept in used.filter({ $0.overlaps(range) }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if kept.lowerBound > from { zero(from, kept.lowerBound - from) }
                from = max(from, kept.upperBound)
            }
            if range.upperBound > from { zero(from, range.upperBound - from) }
        }
    }

    /// What the directories reachable from the header use: the header, each directory's count,
    /// readable entries and next pointer, their out-of-line values (a MakerNote as far as its own
    /// directories reach) and the thumbnail. Entries a directory claims but this reader cannot
    /// read (past the block, or of a size that does not fit) use nothing.
    private func usedBytes() -> [Range<Int>] {
        var used = [0..<min(8, tiff.count)]
        for directory in [Directory.ifd0, .exif, .gps, .interoperability, .ifd1] {
            guard let start = offset(of: directory), let count = uint16(start) else { continue }
            let next = start + 2 + Int(count) * 12
            used += [start..<start + 2, min(next, tiff.count)..<min(next + 4, tiff.count)]
            for entry in entries(at: start) {
                used.append(entry.entryOffset..<entry.entryOffset + 12)
                if !entry.isInline {
                    used.append(entry.valueOffset..<min(entry.valueOffset + reach(of: entry, in: directory), tiff.count))
                }
            }
        }
        if let thumbnail { used.append(thumbnail) }
        return used
    }

    /// Where IFD1's thumbnail JPEG lies, when it lies inside the block.
    private var thumbnail: Range<Int>? {
        guard let start = number(0x201, in: .ifd1).map(Int.init), let length = number(0x202, in: .ifd1).map(Int.init),
              start >= 0, length > 0, start + length <= tiff.count else { return nil }
        return start..<start + length
    }

    /// Drops IFD1 and the thumbnail JPEG it points to: after rotating and resizing, the
    /// thumbnail shows the original framing, and nothing in it is worth keeping.
    public mutating func removeThumbnail() {
        guard let ifd0 = offset(of: .ifd0), let pointer = nextIFDPointer(ifd0), let ifd1 = offset(of: .ifd1) else { return }
        let freed = extent(of: .ifd1, at: ifd1) + (thumbnail.map { [$0] } ?? [])
        tiff.setUInt32(0, at: pointer, bigEndian: bigEndian)
        zeroUnused(freed)
    }

    /// Cuts bytes after the last thing any directory points to. Some phones pad their EXIF item
    /// far past the data (a Xiaomi HEIC carries 192 KB for 10 KB of tags), and a JPEG segment
    /// holds at most 64 KB.
    public mutating func trimUnreferencedTail() {
        let directories: [Directory] = [.ifd0, .exif, .gps, .interoperability, .ifd1]
        var end = 8
        for directory in directories {
            guard let start = offset(of: directory), let count = uint16(start) else { continue }
            end = max(end, start + 2 + Int(count) * 12 + 4)
            for entry in entries(in: directory) { end = max(end, entry.valueOffset + reach(of: entry, in: directory)) }
        }
        if let thumbnail { end = max(end, thumbnail.upperBound) }
        if end < tiff.count { tiff.removeSubrange(end...) }
    }

    /// How many bytes from its value's start an entry uses: its value's length, and for the
    /// MakerNote what its own directories reach (see `MakerNoteOffsets.length(ofNote:declared:)`).
    private func reach(of entry: Entry, in directory: Directory) -> Int {
        guard directory == .exif, entry.tag == ExifTag.makerNote, entry.valueLength > 4 else { return entry.valueLength }
        let available = min(entry.valueLength + MakerNoteOffsets.uncountedNikonHeader, tiff.count - entry.valueOffset)
        return MakerNoteOffsets.length(ofNote: Array(tiff[entry.valueOffset..<entry.valueOffset + available]), declared: entry.valueLength)
    }

    /// A new, compact EXIF block with only the tags `keeping` accepts (a pointer is kept when
    /// something is kept behind it), no IFD1; nil when nothing is kept. Values move; a MakerNote
    /// addressing its values from the TIFF header has them moved with it (see `MakerNoteOffsets`).
    public func compacted(keeping: (Directory, UInt16) -> Bool) -> ExifData? {
        var reader = TIFFDirectoryReader(source: tiff, bigEndian: bigEndian)
        guard let ifd0 = offset(of: .ifd0).flatMap({ try? reader.directory(.ifd0, at: $0) })?.filtered(keeping), !ifd0.isEmpty
        else { return nil }
        // Only a block past 4 GiB fails, and none is read that large.
        return try? ifd0.exifBlock()
    }

    /// Every tag, by directory: what the report names when a keep-list drops the rest.
    public var tags: [(directory: Directory, tag: UInt16)] {
        [Directory.ifd0, .exif, .gps, .interoperability].flatMap { directory in
            entries(in: directory).filter { Self.pointedDirectory($0.tag, from: directory) == nil }.map { (directory, $0.tag) }
        }
    }

    /// Overwrites a value with `bytes` of exactly its length, where it lies: nothing moves.
    /// Absent tags stay absent.
    public mutating func overwrite(_ tag: UInt16, in directory: Directory, with bytes: [UInt8]) {
        guard let entry = entry(tag, in: directory), entry.valueLength == bytes.count else { return }
        tiff.replaceSubrange(entry.valueOffset..<entry.valueOffset + bytes.count, with: bytes)
    }

    /// Overwrites an existing SHORT or LONG value (Orientation, pixel dimensions); absent tags
    /// stay absent.
    public mutating func setInteger(_ tag: UInt16, in directory: Directory, to value: Int) {
        guard let entry = entry(tag, in: directory), entry.count == 1 else { return }
        switch entry.type {
        case 3: tiff.setUInt16(UInt16(clamping: value), at: entry.valueOffset, bigEndian: bigEndian)
        case 4: tiff.setUInt32(UInt32(clamping: value), at: entry.valueOffset, bigEndian: bigEndian)
        default: break
        }
    }

    private mutating func zero(_ offset: Int, _ length: Int) {
        guard length > 0, offset >= 0, offset + length <= tiff.count else { return }
        tiff.replaceSubrange(offset..<offset + length, with: repeatElement(0, count: length))
    }
}
