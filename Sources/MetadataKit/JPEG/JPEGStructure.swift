import Foundation

/// What a JPEG file holds besides its primary image, read from its marker segments and its last
/// bytes: the CIPA Multi-Picture Format index (gain maps, depth maps, panorama frames) and
/// trailers appended after the image (Samsung's motion-photo video).
public struct JPEGStructure: Equatable, Sendable {
    /// One image the MPF index lists; the first is the primary image.
    public struct Picture: Equatable, Sendable {
        /// The MP type (CIPA DC-007 §5.2.3.3.1): 0x030000 baseline primary, 0x010001/0x010002
        /// preview, 0x020001 panorama frame, 0x020002 disparity, 0x020003 multi-angle, 0 undefined
        /// (how Ultra HDR gain maps and Apple's auxiliary images are listed).
        public let type: UInt32
        public let size: Int
        /// Where the picture starts in the file; 0 for the primary image.
        public let offset: Int
    }

    public static let mpfSignature = Array("MPF\0".utf8)
    /// Samsung closes its trailer (`MotionPhoto_Data` and friends) with "SEFT".
    static let samsungTrailerEnd = Array("SEFT".utf8)

    public let pictures: [Picture]
    /// The XMP packets of the pictures after the primary one: Apple describes its gain maps and
    /// depth maps there (`apdi:AuxiliaryImageType`).
    public let auxiliaryXMP: [[UInt8]]
    /// The entry types of Samsung's SEF trailer, when the file ends in one (0x0A30 is
    /// `MotionPhoto_Data`, the embedded video).
    public let samsungTrailerTypes: [UInt16]
    public static let samsungMotionPhotoData: UInt16 = 0x0A30

    /// How much of an auxiliary picture is read to find its XMP: its first segments.
    static let auxiliaryHeadLength = 64 << 10
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// The ISO 21496-1 metadata (after its URN) in the heads of the pictures after the primary
    /// one: how a gain map without XMP says what it is.
    public let auxiliaryISO21496: [[UInt8]]

    /// The XMP packet in the head of an embedded JPEG, if it has one.
    static func xmpPacket(inHeadOf jpeg: [UInt8]) -> [UInt8]? {
        payload(marker: 0xE1, signature: xmpSignature, inHeadOf: jpeg)
    }

    /// The payload, after `signature`, of the first `marker` segment opening with it in the head
    /// of an embedded JPEG.
    static func payload(marker: UInt8, signature: [UInt8], inHeadOf jpeg: [UInt8]) -> [UInt8]? {
        guard jpeg.starts(with: [0xFF, 0xD8]) else { return nil }
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF, jpeg[offset + 1] != 0xDA,
              let length = jpeg.uint16(at: offset + 2).map(Int.init), length >= 2 {
            let payload = offset + 4..<min(offset + 2 + length, jpeg.count)
            if jpeg[offset + 1] == marker, jpeg[payload].starts(with: signature) {
                return Array(jpeg[payload].dropFirst(signature.count))
            }
            offset += 2 + length
        }
        return nil
    }

    /// Whether the file's last `length` bytes are an ISO-BMFF movie (they start with `ftyp`):
    /// how a motion photo's directory says where its video is, checked before believing it.
    public static func endsWithMovie(_ path: String, length: Int) -> Bool {
        guard length >= 16, let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let fileSize = try? Int(handle.seekToEnd()), length <= fileSize,
              let head = try? handle.readBytes(at: fileSize - length, count: 8) else { return false }
        return head.fourCC(at: 4) == "ftyp"
    }

    /// Segments past this are not read: APP segments of real files total well under a megabyte.
    static let headerReadLimit = 16 << 20

    public init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MetadataFormatError(message: "cannot open \(path)") }
        defer { try? handle.close() }
        let fileSize = Int(try handle.seekToEnd())
        var pictures: [Picture] = []
        var offset = 2
        guard try Self.read(handle, at: 0, count: 2) == [0xFF, 0xD8] else { throw MetadataFormatError(message: "not a JPEG") }
        while offset + 4 <= min(fileSize, Self.headerReadLimit) {
            let header = try Self.read(handle, at: offset, count: 4)
            guard header[0] == 0xFF, let length = header.uint16(at: 2).map(Int.init), length >= 2 else { break }
            let marker = header[1]
            if marker == 0xDA { break } // start of scan: no more metadata segments
            let payloadStart = offset + 4
            let payloadLength = min(length - 2, fileSize - payloadStart)
            if marker == 0xE2, pictures.isEmpty, payloadLength > Self.mpfSignature.count,
               try Self.read(handle, at: payloadStart, count: Self.mpfSignature.count) == Self.mpfSignature {
                // MPF offsets count from its TIFF header, right after the signature.
                let base = payloadStart + Self.mpfSignature.count
                pictures = Self.pictures(inMPF: try Self.read(handle, at: payloadStart, count: payloadLength)).map {
                    Picture(type: $0.type, size: $0.size, offset: $0.offset == 0 ? 0 : base + $0.offset)
                }
            }
            offset = payloadStart + length - 2
        }
        self.pictures = pictures
        let heads = pictures.dropFirst().compactMap { picture -> [UInt8]? in
            guard picture.offset > 0, picture.offset < fileSize else { return nil }
            return try? Self.read(handle, at: picture.offset, count: min(Self.auxiliaryHeadLength, fileSize - picture.offset))
        }
        auxiliaryXMP = heads.compactMap(Self.xmpPacket(inHeadOf:))
        auxiliaryISO21496 = heads.compactMap { Self.payload(marker: 0xE2, signature: ISO21496.namespace, inHeadOf: $0) }
        samsungTrailerTypes = Self.samsungTrailerTypes(handle, fileSize: fileSize)
    }

    /// Samsung's trailer ends with its directory's size and "SEFT"; the directory ("SEFH", a
    /// version, an entry count, then 12-byte entries whose bytes 2–3 are the type) precedes
    /// them. All little-endian.
    static func samsungTrailerTypes(_ handle: FileHandle, fileSize: Int) -> [UInt16] {
        guard fileSize >= 8, let end = try? read(handle, at: fileSize - 8, count: 8), Array(end[4...]) == samsungTrailerEnd,
              let size = end.uint32(at: 0, bigEndian: false).map(Int.init), size >= 12, size <= min(fileSize - 8, 1 << 20),
              let directory = try? read(handle, at: fileSize - 8 - size, count: size),
              directory.starts(with: Array("SEFH".utf8)),
              let count = directory.uint32(at: 8, bigEndian: false).map(Int.init), 12 + count * 12 <= directory.count
        else { return [] }
        return (0..<count).compactMap { directory.uint16(at: 12 + $0 * 12 + 2, bigEndian: false) }
    }

    /// The images an MPF index lists (see `MPFIndex`).
    static func pictures(inMPF payload: [UInt8]) -> [Picture] {
        MPFIndex(payload: payload)?.entries.map { Picture(type: $0.type, size: $0.size, offset: $0.offset) } ?? []
    }

    private static func read(_ handle: FileHandle, at offset: Int, count: Int) throws -> [UInt8] {
        do {
            return try handle.readBytes(at: offset, count: count)
        } catch let error as MovieFileError {
            throw MetadataFormatError(message: error.message)
        }
    }
}
