/// Nikon Capture NX's edit record in a Nikon maker note (tag 0x0E01 NikonCaptureData, and each
/// saved version in 0x0E13 NikonCaptureEditVersions) can hold a copy of the photo's IPTC-IIM,
/// city and country included (exiftool: `IPTC2`). Layout, from exiftool's NikonCapture.pm: the
/// note is "Nikon\0\2", two bytes, two zeros, then a TIFF header its offsets count from; a
/// record block is little-endian whatever the note's order — `0x7A86A940`, 14 bytes, a u32
/// size, then records of a u32 tag, 14 bytes, a u32 size (data + 4) and the data. The IPTC
/// record (`0x9EF5F6E0`) is bare IIM, zero-padded by Nikon.
///
/// Location is removed where it lies: the kept datasets move up and the record is zero-padded
/// to its length (IIM readers stop at the padding), so no size or offset in the note changes.
public enum NikonCaptureData {
    static let captureData: UInt16 = 0x0E01
    static let editVersions: UInt16 = 0x0E13
    static let blockSignature: UInt32 = 0x7A86A940
    static let iptcRecord: UInt32 = 0x9EF5F6E0
    /// A block's or record's header: id (4), 14 bytes, size (4).
    static let headerSize = 22

    /// `note` with the location of every IPTC record removed in place, and what went; nil when
    /// it is not a Nikon note with such a record, or none places the photo. An IPTC record that
    /// cannot be read is zeroed whole: what it hides cannot be checked.
    public static func removingLocation(fromMakerNote note: [UInt8]) -> MetadataRemoval? {
        var edited = note, removed: [String] = []
        for block in blocks(in: note) {
            for record in iptcRecords(in: note, block: block) {
                let iim = Array(note[record])
                do {
                    guard let filtered = try IPTCBlock.removingLocationInPlace(from: iim) else { continue }
                    edited.replaceSubrange(record, with: filtered.bytes)
                    removed += filtered.removed
                } catch {
                    edited.replaceSubrange(record, with: [UInt8](repeating: 0, count: iim.count))
                    removed.append("IPTC (unreadable)")
                }
            }
        }
        return edited == note ? nil : MetadataRemoval(bytes: edited, removed: removed.uniqued())
    }

    /// The record blocks of the note's 0x0E01 value and of each version in its 0x0E13 value.
    static func blocks(in note: [UInt8]) -> [Range<Int>] {
        let header = 10
        guard note.starts(with: Array("Nikon\0\u{2}".utf8)), note.count > header + 8,
              note[header] == note[header + 1], note[header] == 0x49 || note[header] == 0x4D else { return [] }
        let bigEndian = note[header] == 0x4D
        guard let first = note.uint32(at: header + 4, bigEndian: bigEndian).map({ header + Int($0) }),
              let count = note.uint16(at: first, bigEndian: bigEndian) else { return [] }
        var blocks: [Range<Int>] = []
        for index in 0..<Int(count) {
            let entry = first + 2 + index * 12
            guard let tag = note.uint16(at: entry, bigEndian: bigEndian), tag == captureData || tag == editVersions,
                  let type = note.uint16(at: entry + 2, bigEndian: bigEndian), type == 7,
                  let length = note.uint32(at: entry + 4, bigEndian: bigEndian).map(Int.init), length > 4,
                  let offset = note.uint32(at: entry + 8, bigEndian: bigEndian).map({ header + Int($0) }),
                  offset < note.count else { continue }
            // Capture's D70 NEFs declare the value 4 bytes longer than the note holds: its records
            // inside the note are still edited.
            let value = offset..<min(offset + length, note.count)
            blocks += tag == captureData ? [value] : versions(in: note, value)
        }
        return blocks.filter { note.uint32(at: $0.lowerBound, bigEndian: false) == blockSignature }
    }

    /// 0x0E13: a u32 count, then each version as a u32 length and a record block.
    private static func versions(in note: [UInt8], _ value: Range<Int>) -> [Range<Int>] {
        guard let count = note.uint32(at: value.lowerBound, bigEndian: false) else { return [] }
        var blocks: [Range<Int>] = [], at = value.lowerBound + 4
        for _ in 0..<min(Int(count), 1024) {
            guard let length = note.uint32(at: at, bigEndian: false).map(Int.init), at + 4 + length <= value.upperBound else { break }
            blocks.append(at + 4..<at + 4 + length)
            at += 4 + length
        }
        return blocks
    }

    /// The data of each IPTC record in `block`, walked as exiftool walks it.
    static func iptcRecords(in note: [UInt8], block: Range<Int>) -> [Range<Int>] {
        var records: [Range<Int>] = [], at = block.lowerBound + headerSize
        while at + headerSize < block.upperBound,
              let tag = note.uint32(at: at, bigEndian: false), let size = note.uint32(at: at + 18, bigEndian: false).map(Int.init) {
            let data = at + headerSize
            guard size >= 4, data + size - 4 <= block.upperBound else { break }
            if tag == iptcRecord { records.append(data..<data + size - 4) }
            at = data + size - 4
        }
        return records
    }
}
