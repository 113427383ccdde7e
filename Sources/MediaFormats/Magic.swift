/// How a format's files start. Extensions lie (a JPEG named `.png` is common); magic numbers and
/// ISO-BMFF brands do not.
public enum Magic: Sendable {
    /// One of these byte strings at the very start.
    case prefix([[UInt8]])
    /// A TIFF header (either byte order), then these bytes at this offset: CR2's `CR\u{2}\0`.
    case tiffMarked(at: Int, [UInt8])
    /// A TIFF holding camera sensor data (`TIFFFacts.holdsRawData`) made by a maker whose `Make`
    /// starts with one of these (any maker when empty); `dng` for one that says it is a DNG.
    case tiffRaw(makes: [String], dng: Bool)
    /// A RIFF file of this form type (`WEBP`, `AVI `).
    case riff(String)
    /// A BMP: `BM`, then a DIB header of a size some version of it has.
    case bitmap
    /// An EBML file (Matroska) of this `DocType`: `matroska`, `webm`.
    case ebml(docType: String)
    /// MPEG transport stream packets: 188 bytes from the start, or 192 bytes each with a
    /// 4-byte timestamp first (AVCHD's `.MTS`, Blu-ray's `.M2TS`).
    case transportStream
    /// ISO-BMFF with one of these as its major or a compatible brand.
    case brands(Set<String>)
    /// ISO-BMFF whose major brand starts with this (`qt  `, `3g`); with `classicAtoms`, also a
    /// classic QuickTime file, which starts with one of its atoms instead of `ftyp`.
    case majorBrand(prefix: String, classicAtoms: Bool)
    /// Any other ISO-BMFF file: checked last.
    case anyBrand

    /// Bytes needed to decide: an `ftyp` box with its compatible brands, an EBML header, and
    /// three transport stream packets.
    public static let prefixLength = 1024

    /// Whether `bytes`, a file's first (up to `prefixLength`) bytes, start like this; `tiff`
    /// says what a TIFF's directories hold (nil for a file that is no TIFF).
    func matches(_ bytes: [UInt8], tiff: TIFFFacts?) -> Bool {
        switch self {
        case .prefix(let options): return options.contains { bytes.starts(with: $0) }
        case .tiffMarked(let offset, let marker): return Self.isTIFF(bytes) && bytes.dropFirst(offset).starts(with: marker)
        case .tiffRaw(let makes, let dng):
            guard let tiff, tiff.holdsRawData else { return false }
            if dng { return tiff.isDNG }
            return makes.isEmpty || makes.contains { tiff.make?.uppercased().hasPrefix($0) == true }
        case .riff(let form): return bytes.starts(with: Array("RIFF".utf8)) && bytes.dropFirst(8).starts(with: Array(form.utf8))
        case .bitmap:
            // BITMAPCOREHEADER, INFOHEADER, V2, V3, OS/2 2.x, V4, V5.
            return bytes.starts(with: Array("BM".utf8)) && bytes.count >= 18
                && [12, 40, 52, 56, 64, 108, 124].contains(Int(bytes[14]) | Int(bytes[15]) << 8) && bytes[16] == 0 && bytes[17] == 0
        case .ebml(let docType): return EBMLHeader(bytes)?.docType == docType
        case .transportStream: return Self.packets(in: bytes, size: 188, skip: 0) || Self.packets(in: bytes, size: 192, skip: 4)
        case .brands(let wanted): return ISOBrands(bytes).map { !wanted.isDisjoint(with: $0.all) } ?? false
        case .majorBrand(let prefix, let classicAtoms):
            if let brands = ISOBrands(bytes) { return brands.major.hasPrefix(prefix) }
            return classicAtoms && Self.classicQuickTimeAtoms.contains { bytes.dropFirst(4).starts(with: Array($0.utf8)) }
        case .anyBrand: return ISOBrands(bytes) != nil
        }
    }

    /// Atoms a QuickTime file made before `ftyp` existed may start with; libavformat then decides.
    static let classicQuickTimeAtoms = ["wide", "mdat", "moov", "free", "skip", "pnot"]

    /// `II*\0` or `MM\0*`: a classic TIFF header.
    public static func isTIFF(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
    }

    /// Three sync bytes (0x47) a packet apart, the first after `skip` bytes.
    private static func packets(in bytes: [UInt8], size: Int, skip: Int) -> Bool {
        let syncs = (0..<3).map { skip + $0 * size }
        return syncs.allSatisfy { $0 < bytes.count && bytes[$0] == 0x47 }
    }
}

/// What a TIFF's first directories hold, read by MetadataKit (`TIFFFacts.read(path:)`): what
/// tells a camera's RAW from a TIFF image.
public struct TIFFFacts: Sendable, Equatable {
    /// IFD0 has `DNGVersion`.
    public var isDNG: Bool
    /// IFD0's `Make`.
    public var make: String?
    /// IFD0, a directory after it or one of their SubIFDs is sensor data: a colour filter array
    /// or linear raw (PhotometricInterpretation 32803, 34892), which no TIFF image holds.
    public var holdsRawData: Bool

    public init(isDNG: Bool, make: String?, holdsRawData: Bool) {
        self.isDNG = isDNG
        self.make = make
        self.holdsRawData = holdsRawData
    }
}

/// The brands of an ISO-BMFF file's `ftyp` box, from its first bytes.
struct ISOBrands {
    let major: String
    /// The major brand and every compatible one.
    let all: Set<String>

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let boxSize = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let end = min(bytes.count, max(16, boxSize))
        func brand(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        major = brand(8)
        // Bytes 12..<16 are the minor version, not a brand.
        all = Set([major] + stride(from: 16, to: end - 3, by: 4).map(brand))
    }
}

/// The `DocType` of an EBML header (the element that starts every Matroska and WebM file).
public struct EBMLHeader {
    let docType: String

    init?(_ bytes: [UInt8]) {
        guard bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]), let (size, sizeLength) = Self.vint(bytes, at: 4) else { return nil }
        var at = 4 + sizeLength
        let end = min(bytes.count, at + size)
        while at + 2 < end {
            // Header children have 2-byte IDs; DocType is 0x4282.
            let id = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            guard let (length, lengthSize) = Self.vint(bytes, at: at + 2) else { return nil }
            let value = at + 2 + lengthSize
            if id == 0x4282 {
                guard value + length <= bytes.count else { return nil }
                docType = String(decoding: bytes[value..<value + length].prefix { $0 != 0 }, as: UTF8.self)
                return
            }
            at = value + length
        }
        return nil
    }

    /// An EBML variable-length integer at `at`: its value (with the length marker for an ID,
    /// `keepingMarker`) and how many bytes it takes. MetadataKit walks Matroska files with it.
    public static func vint(_ bytes: [UInt8], at: Int, keepingMarker: Bool = false) -> (Int, Int)? {
        guard at < bytes.count, bytes[at] != 0 else { return nil }
        let length = bytes[at].leadingZeroBitCount + 1
        guard at + length <= bytes.count else { return nil }
        var value = keepingMarker ? Int(bytes[at]) : Int(bytes[at]) & (0xFF >> length)
        for byte in bytes[at + 1..<at + length] { value = value << 8 | Int(byte) }
        return (value, length)
    }
}

extension MediaFormat {
    /// The input format `bytes` (a file's first `Magic.prefixLength` bytes) are, checked in
    /// the table's order; nil when none. `tiff` is what a TIFF's directories hold (see
    /// `TIFFFacts`): without it a camera's TIFF-based RAW (but CR2) reads as a TIFF.
    public static func sniffing(prefix bytes: [UInt8], tiff: TIFFFacts? = nil) -> MediaFormat? {
        FormatTable.rows.first { inputs.contains($0.format) && $0.magic.matches(bytes, tiff: tiff) }?.format
    }

    /// The input format a file named with this extension promises, whatever its case.
    public static func promised(byExtension fileExtension: String) -> MediaFormat? {
        FormatTable.byExtension[fileExtension.lowercased()]
    }
}
