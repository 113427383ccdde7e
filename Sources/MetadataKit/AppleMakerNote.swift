/// The Apple iOS MakerNote: "Apple iOS\0", a version, a byte-order mark, then an IFD whose
/// offsets count from the start of the note. It carries the Live Photo pairing identifier and
/// the burst and HDR markers.
public struct AppleMakerNote: Sendable {
    public static let contentIdentifierTag: UInt16 = 0x0011
    public static let burstUUIDTag: UInt16 = 0x000B

    private let note: [UInt8]
    private let bigEndian: Bool

    public init?(_ note: some Collection<UInt8>) {
        let bytes = Array(note)
        guard bytes.count > 16, bytes.starts(with: Array("Apple iOS\0".utf8)) else { return nil }
        self.note = bytes
        bigEndian = bytes[12] == 0x4D
    }

    /// An ASCII value from the note's IFD (it starts 14 bytes in).
    public func string(_ tag: UInt16) -> String? {
        guard let count = note.uint16(at: 14, bigEndian: bigEndian) else { return nil }
        for index in 0..<Int(count) {
            let at = 16 + index * 12
            guard note.uint16(at: at, bigEndian: bigEndian) == tag, note.uint16(at: at + 2, bigEndian: bigEndian) == 2,
                  let length = note.uint32(at: at + 4, bigEndian: bigEndian).map(Int.init) else { continue }
            let start = length <= 4 ? at + 8 : note.uint32(at: at + 8, bigEndian: bigEndian).map(Int.init) ?? -1
            guard start >= 0, start + length <= note.count else { return nil }
            return String(decoding: note[start..<start + length].prefix { $0 != 0 }, as: UTF8.self)
        }
        return nil
    }

    /// The Live Photo content identifier; the paired MOV carries the same one.
    public var contentIdentifier: String? { string(Self.contentIdentifierTag) }
    public var burstUUID: String? { string(Self.burstUUIDTag) }
}

extension ExifData {
    public var appleMakerNote: AppleMakerNote? {
        bytes(ExifTag.makerNote, in: .exif).flatMap(AppleMakerNote.init)
    }
}
