import Foundation

/// Reads `TIFFDirectory`s out of a TIFF structure, every read bounds-checked, and no more value
/// bytes in all than `budget`: the structure is untrusted.
struct TIFFDirectoryReader {
    let source: any TIFFByteSource
    let bigEndian: Bool
    /// Value bytes still allowed.
    private(set) var budget: Int
    /// What was left out, e.g. "EXIF GPS directory (offset 9000 past the end)", for `unreadable`.
    private(set) var problems: [String] = []

    /// Far above any real value (a Photoshop resource block with thumbnails, a long XMP packet).
    static let largestValue = 16 << 20

    init(source: any TIFFByteSource, bigEndian: Bool, budget: Int = 64 << 20) {
        self.source = source
        self.bigEndian = bigEndian
        self.budget = budget
    }

    /// The directory of `kind` at `offset`, with the values of the tags `including` accepts and
    /// the directories its pointer tags lead to. Entries cut off, of unknown type or repeated
    /// are left out; a pointed directory that cannot be read is left out and named in `problems`.
    ///
    /// - Throws: `MetadataFormatError` when the directory itself is not there.
    mutating func directory(_ kind: ExifData.Directory, at offset: Int,
                            including: (UInt16) -> Bool = { _ in true }) throws -> TIFFDirectory {
        guard offset >= 8, let count = source.bytes(at: offset, count: 2)?.uint16(at: 0, bigEndian: bigEndian) else {
            throw MetadataFormatError(message: "offset \(offset) is past the end")
        }
        // A directory cut off keeps its whole entries.
        let whole = min(Int(count), (source.size - offset - 2) / 12)
        guard let table = source.bytes(at: offset + 2, count: whole * 12) else {
            throw MetadataFormatError(message: "directory at offset \(offset) is cut off")
        }
        var directory = TIFFDirectory(kind: kind, bigEndian: bigEndian, entries: [], children: [:], sourceOffset: offset)
        var seen: Set<UInt16> = []
        for index in 0..<whole {
            let at = index * 12
            guard let tag = table.uint16(at: at, bigEndian: bigEndian), seen.insert(tag).inserted else { continue }
            if let pointed = ExifData.pointedDirectory(tag, from: kind) {
                readChild(pointed, pointer: Array(table[at + 8..<at + 12]), into: &directory, tag: tag)
            } else if including(tag), let entry = entry(Array(table[at..<at + 12]), at: offset + 2 + at, kind: kind) {
                directory.entries.append(entry)
            }
        }
        return directory
    }

    private mutating func readChild(_ kind: ExifData.Directory, pointer: [UInt8], into directory: inout TIFFDirectory, tag: UInt16) {
        guard let target = pointer.uint32(at: 0, bigEndian: bigEndian).map(Int.init), target != 0 else { return }
        do {
            let child = try self.directory(kind, at: target)
            directory.children[tag] = child
        } catch {
            problems.append("EXIF \(kind) directory (\(error))")
        }
    }

    /// One 12-byte entry found at `position`; nil when it cannot be carried.
    private mutating func entry(_ bytes: [UInt8], at position: Int, kind: ExifData.Directory) -> TIFFDirectory.Entry? {
        guard let tag = bytes.uint16(at: 0, bigEndian: bigEndian), let type = bytes.uint16(at: 2, bigEndian: bigEndian),
              let count = bytes.uint32(at: 4, bigEndian: bigEndian).map(Int.init) else { return nil }
        guard let size = TIFFDirectory.size(ofType: type), count < 1 << 28 else {
            problems.append("\(kind) tag 0x\(String(tag, radix: 16)) (type \(type), count \(count) not carried)")
            return nil
        }
        let length = count * size
        if length <= 4 {
            return TIFFDirectory.Entry(tag: tag, type: type, count: count, value: Array(bytes[8..<8 + length]), sourceOffset: position + 8)
        }
        guard let offset = bytes.uint32(at: 8, bigEndian: bigEndian).map(Int.init) else { return nil }
        if kind == .exif, tag == ExifTag.makerNote, size == 1 {
            return makerNote(type: type, declared: length, at: offset)
        }
        return value(tag: tag, type: type, count: count, length: length, at: offset, kind: kind)
    }

    /// The MakerNote with the bytes a Nikon note uses past its declared count (see
    /// `MakerNoteOffsets.length(ofNote:declared:)`), its count grown to match.
    private mutating func makerNote(type: UInt16, declared: Int, at offset: Int) -> TIFFDirectory.Entry? {
        let available = min(declared + MakerNoteOffsets.uncountedNikonHeader, source.size - offset)
        guard declared <= min(Self.largestValue, budget), available >= declared,
              let around = source.bytes(at: offset, count: available) else {
            return value(tag: ExifTag.makerNote, type: type, count: declared, length: declared, at: offset, kind: .exif)
        }
        let length = MakerNoteOffsets.length(ofNote: around, declared: declared)
        budget -= length
        return TIFFDirectory.Entry(tag: ExifTag.makerNote, type: type, count: length, value: Array(around.prefix(length)), sourceOffset: offset)
    }

    /// An entry whose value of `length` bytes sits at `offset`, within the budget.
    private mutating func value(tag: UInt16, type: UInt16, count: Int, length: Int, at offset: Int,
                                kind: ExifData.Directory) -> TIFFDirectory.Entry? {
        guard length <= Self.largestValue, length <= budget else {
            problems.append("\(kind) tag 0x\(String(tag, radix: 16)) (\(length) bytes, more than accepted)")
            return nil
        }
        guard let value = source.bytes(at: offset, count: length) else {
            problems.append("\(kind) tag 0x\(String(tag, radix: 16)) (value past the end)")
            return nil
        }
        budget -= length
        return TIFFDirectory.Entry(tag: tag, type: type, count: count, value: value, sourceOffset: offset)
    }
}
