/// The first 8 bytes of a TIFF file.
enum TIFFHeader {
    case classic(bigEndian: Bool, ifd0: Int)
    case bigTIFF

    init?(_ header: [UInt8]) {
        guard header.count >= 8, header[0] == header[1], header[0] == 0x49 || header[0] == 0x4D else { return nil }
        let bigEndian = header[0] == 0x4D
        switch header.uint16(at: 2, bigEndian: bigEndian) {
        case 42: self = .classic(bigEndian: bigEndian, ifd0: Int(header.uint32(at: 4, bigEndian: bigEndian) ?? 0))
        case 43: self = .bigTIFF
        default: return nil
        }
    }
}
