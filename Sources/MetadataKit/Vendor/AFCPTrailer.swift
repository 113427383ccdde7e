/// The AXS File Concatenation Protocol's trailer, which news agencies' tools append to JPEGs and
/// TIFFs: a header ("AXS!" big-endian, "AXS*" little-endian; version, entry count, checksum),
/// 12-byte entries (id, size, the data's offset in the file), their data, and a 12-byte footer
/// closing the file (the marker again, the header's offset, a checksum). An `IPTC` entry is bare
/// IIM, which exiftool reads (`IPTC2`) and edits; from exiftool's AFCP.pm.
///
/// Its offsets count from the start of the file, so whatever moves before it moves them: they are
/// set again where the trailer lands (`moving`), or exiftool has to search for it and warns.
struct AFCPTrailer {
    let header: Int
    let bigEndian: Bool
    /// Where each entry's 12 bytes are, its id, and its data.
    let entries: [(slot: Int, id: String, data: Range<Int>)]

    static let headerSize = 12, entrySize = 12, footerSize = 12

    /// The trailer that ends `file`, its header at or after `start`; nil when there is none, or
    /// when its directory does not add up (then it is not one this can edit safely).
    init?(_ file: [UInt8], after start: Int) {
        let footer = file.count - Self.footerSize
        guard footer >= start, let marker = Self.marker(file, at: footer) else { return nil }
        bigEndian = marker
        guard let header = file.uint32(at: footer + 4, bigEndian: marker).map(Int.init), header >= start,
              header <= footer - Self.headerSize, Self.marker(file, at: header) == marker,
              let count = file.uint16(at: header + 6, bigEndian: marker).map(Int.init) else { return nil }
        let dataStart = header + Self.headerSize + count * Self.entrySize
        guard dataStart <= footer else { return nil }
        var entries: [(slot: Int, id: String, data: Range<Int>)] = []
        for index in 0..<count {
            let slot = header + Self.headerSize + index * Self.entrySize
            guard let size = file.uint32(at: slot + 4, bigEndian: marker).map(Int.init),
                  let offset = file.uint32(at: slot + 8, bigEndian: marker).map(Int.init),
                  offset >= dataStart, size <= footer - offset else { return nil }
            entries.append((slot, String(decoding: file[slot..<slot + 4], as: UTF8.self), offset..<offset + size))
        }
        self.header = header
        self.entries = entries
    }

    /// "AXS!" (big-endian) or "AXS*" (little-endian) at `offset`: whether big-endian; nil for neither.
    private static func marker(_ file: [UInt8], at offset: Int) -> Bool? {
        guard offset >= 0, offset + 4 <= file.count, file[offset..<offset + 3].elementsEqual("AXS".utf8) else { return nil }
        switch file[offset + 3] {
        case UInt8(ascii: "!"): return true
        case UInt8(ascii: "*"): return false
        default: return nil
        }
    }

    /// The IPTC entries' data.
    var iptc: [Range<Int>] { entries.filter { $0.id == "IPTC" }.map(\.data) }

    /// Sets the trailer's offsets again in `output`, the rewrite of `file` that still ends in it
    /// (the same length: edits within it keep their lengths), so as far from its start as `file`
    /// is longer or shorter.
    func move(in output: inout [UInt8], from file: [UInt8]) {
        let delta = output.count - file.count
        guard delta != 0 else { return }
        output.setUInt32(UInt32(header + delta), at: output.count - Self.footerSize + 4, bigEndian: bigEndian)
        for entry in entries {
            output.setUInt32(UInt32(entry.data.lowerBound + delta), at: entry.slot + delta + 8, bigEndian: bigEndian)
        }
    }
}
