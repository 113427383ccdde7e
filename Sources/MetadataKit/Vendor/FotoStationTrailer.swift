/// FotoWare FotoStation's trailer, appended to JPEGs and TIFFs: records read back from the end of
/// the file, each its data then a 10-byte footer — a tag, the record's size (data + 10) and
/// `0xA1B2C3D4`, big-endian; tag 1 is IPTC-IIM (exiftool: `IPTC2`), from exiftool's
/// FotoStation.pm. No offsets point into it: a record edited at its length moves nothing.
enum FotoStationTrailer {
    static let magic: UInt32 = 0xA1B2_C3D4
    static let footerSize = 10
    static let iptcTag: UInt16 = 1

    /// The IPTC records' data of the trailer that ends `file`, all of it at or after `start`.
    static func iptc(in file: [UInt8], after start: Int) -> [Range<Int>] {
        var end = file.count, records: [Range<Int>] = []
        while end - footerSize >= start, file.uint32(at: end - 4) == magic, let tag = file.uint16(at: end - footerSize),
              let size = file.uint32(at: end - 8).map(Int.init), size >= footerSize, end - size >= start {
            if tag == iptcTag { records.append(end - size..<end - footerSize) }
            end -= size
        }
        return records
    }
}
