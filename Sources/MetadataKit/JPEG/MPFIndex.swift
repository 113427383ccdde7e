/// The CIPA Multi-Picture Format index of a JPEG's APP2 `MPF\0` segment: a TIFF header, then an
/// IFD whose tag 0xB002 points at 16-byte entries (attributes with the type in the low 24 bits,
/// size, offset, two dependent image entries). Offsets count from the TIFF header, right after
/// the signature; the first entry, the primary image, has offset 0. Where each entry's size and
/// offset fields sit is kept, so a rewrite that moves the images can set them anew.
struct MPFIndex {
    struct Entry {
        let type: UInt32
        let size: Int
        let offset: Int
        /// Where the entry's size field sits in the payload (its offset field follows it).
        let field: Int
    }

    static let signature = Array("MPF\0".utf8)

    let bigEndian: Bool
    let entries: [Entry]

    /// `payload`: the APP2 segment's, starting with the signature. Nil when it holds no index.
    init?(payload: some Collection<UInt8>) {
        let bytes = Array(payload)
        guard bytes.starts(with: Self.signature) else { return nil }
        let tiff = Self.signature.count
        guard bytes.count >= tiff + 8 else { return nil }
        let big = bytes[tiff] == 0x4D
        guard let ifd = bytes.uint32(at: tiff + 4, bigEndian: big).map({ tiff + Int($0) }),
              let count = bytes.uint16(at: ifd, bigEndian: big) else { return nil }
        let tags = (0..<Int(count)).map { ifd + 2 + $0 * 12 }
        guard let tag = tags.first(where: { bytes.uint16(at: $0, bigEndian: big) == 0xB002 }),
              let length = bytes.uint32(at: tag + 4, bigEndian: big).map(Int.init),
              let start = bytes.uint32(at: tag + 8, bigEndian: big).map({ tiff + Int($0) }),
              length % 16 == 0, start + length <= bytes.count else { return nil }
        bigEndian = big
        entries = stride(from: start, to: start + length, by: 16).compactMap { at in
            guard let attributes = bytes.uint32(at: at, bigEndian: big), let size = bytes.uint32(at: at + 4, bigEndian: big),
                  let offset = bytes.uint32(at: at + 8, bigEndian: big) else { return nil }
            return Entry(type: attributes & 0xFF_FFFF, size: Int(size), offset: Int(offset), field: at + 4)
        }
    }

    /// `payload` with entry `index`'s image at `offset` (from the TIFF header) and `size` bytes.
    func setting(_ index: Int, size: Int, offset: Int, in payload: inout [UInt8]) {
        payload.setUInt32(UInt32(clamping: size), at: entries[index].field, bigEndian: bigEndian)
        payload.setUInt32(UInt32(clamping: offset), at: entries[index].field + 4, bigEndian: bigEndian)
    }
}
