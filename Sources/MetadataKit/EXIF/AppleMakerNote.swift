/// The Apple iOS MakerNote: "Apple iOS\0", a version, a byte-order mark, then an IFD whose
/// offsets count from the start of the note. It carries the Live Photo pairing identifier and
/// the burst and HDR markers.
public struct AppleMakerNote: Sendable {
    public static let contentIdentifierTag: UInt16 = 0x0011
    public static let burstUUIDTag: UInt16 = 0x000B
    /// 3 for an HDR capture, 4 for the normal exposure kept beside it (exiftool's HDRImageType).
    public static let hdrImageTypeTag: UInt16 = 0x000A
    /// The two values Apple's formula turns into an HDR headroom (exiftool's HDRHeadroom and
    /// HDRGain; "maker33" and "maker48" in Apple's documentation): see `AppleHDR.headroom`.
    public static let hdrHeadroomTag: UInt16 = 0x0021
    public static let hdrGainTag: UInt16 = 0x0030

    private let note: [UInt8]
    private let bigEndian: Bool

    public init?(_ note: some Collection<UInt8>) {
        let bytes = Array(note)
        guard bytes.count > 16, bytes.starts(with: Array("Apple iOS\0".utf8)) else { return nil }
        self.note = bytes
        bigEndian = bytes[12] == 0x4D
    }

    /// The offset of `tag`'s 12-byte entry in the note's IFD (it starts 14 bytes in).
    private func entry(_ tag: UInt16) -> Int? {
        guard let count = note.uint16(at: 14, bigEndian: bigEndian) else { return nil }
        return (0..<Int(count)).lazy.map { 16 + $0 * 12 }.first { note.uint16(at: $0, bigEndian: bigEndian) == tag }
    }

    /// A single integer value (SHORT, LONG, SSHORT or SLONG), stored in the entry itself.
    public func integer(_ tag: UInt16) -> Int? {
        guard let at = entry(tag), note.uint32(at: at + 4, bigEndian: bigEndian) == 1 else { return nil }
        switch note.uint16(at: at + 2, bigEndian: bigEndian) {
        case 3: return note.uint16(at: at + 8, bigEndian: bigEndian).map(Int.init)
        case 4: return note.uint32(at: at + 8, bigEndian: bigEndian).map(Int.init)
        case 8: return note.uint16(at: at + 8, bigEndian: bigEndian).map { Int(Int16(bitPattern: $0)) }
        case 9: return note.uint32(at: at + 8, bigEndian: bigEndian).map { Int(Int32(bitPattern: $0)) }
        default: return nil
        }
    }

    /// A single RATIONAL or SRATIONAL value, stored where the entry points (offsets count from
    /// the start of the note); nil for a zero denominator.
    public func rational(_ tag: UInt16) -> Double? {
        guard let at = entry(tag), note.uint32(at: at + 4, bigEndian: bigEndian) == 1,
              let type = note.uint16(at: at + 2, bigEndian: bigEndian), type == 5 || type == 10,
              let start = note.uint32(at: at + 8, bigEndian: bigEndian).map(Int.init),
              let numerator = note.uint32(at: start, bigEndian: bigEndian),
              let denominator = note.uint32(at: start + 4, bigEndian: bigEndian), denominator != 0 else { return nil }
        return type == 5 ? Double(numerator) / Double(denominator)
            : Double(Int32(bitPattern: numerator)) / Double(Int32(bitPattern: denominator))
    }

    /// An ASCII value from the note's IFD.
    public func string(_ tag: UInt16) -> String? {
        guard let at = entry(tag), note.uint16(at: at + 2, bigEndian: bigEndian) == 2,
              let length = note.uint32(at: at + 4, bigEndian: bigEndian).map(Int.init) else { return nil }
        let start = length <= 4 ? at + 8 : note.uint32(at: at + 8, bigEndian: bigEndian).map(Int.init) ?? -1
        guard start >= 0, start + length <= note.count else { return nil }
        return String(decoding: note[start..<start + length].prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The Live Photo content identifier; the paired MOV carries the same one.
    public var contentIdentifier: String? { string(Self.contentIdentifierTag) }
    public var burstUUID: String? { string(Self.burstUUIDTag) }
    public var hdrImageType: Int? { integer(Self.hdrImageTypeTag) }
}

extension ExifData {
    public var appleMakerNote: AppleMakerNote? {
        bytes(ExifTag.makerNote, in: .exif).flatMap(AppleMakerNote.init)
    }
}
