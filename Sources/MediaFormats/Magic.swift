/// How a format's files start. Extensions lie (a JPEG named `.png` is common); magic numbers and
/// ISO-BMFF brands do not.
public enum Magic: Sendable {
    /// One of these byte strings at the very start.
    case prefix([[UInt8]])
    /// A RIFF file of this form type (`WEBP`).
    case riff(String)
    /// ISO-BMFF with one of these as its major or a compatible brand.
    case brands(Set<String>)
    /// ISO-BMFF whose major brand starts with this (`qt  `, `3g`); with `classicAtoms`, also a
    /// classic QuickTime file, which starts with one of its atoms instead of `ftyp`.
    case majorBrand(prefix: String, classicAtoms: Bool)
    /// Any other ISO-BMFF file: checked last.
    case anyBrand

    /// Bytes needed to decide: enough for an `ftyp` box with a few compatible brands.
    public static let prefixLength = 64

    /// Whether `bytes`, a file's first (up to `prefixLength`) bytes, start like this.
    func matches(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .prefix(let options): return options.contains { bytes.starts(with: $0) }
        case .riff(let form): return bytes.starts(with: Array("RIFF".utf8)) && bytes.dropFirst(8).starts(with: Array(form.utf8))
        case .brands(let wanted): return ISOBrands(bytes).map { !wanted.isDisjoint(with: $0.all) } ?? false
        case .majorBrand(let prefix, let classicAtoms):
            if let brands = ISOBrands(bytes) { return brands.major.hasPrefix(prefix) }
            return classicAtoms && Self.classicQuickTimeAtoms.contains { bytes.dropFirst(4).starts(with: Array($0.utf8)) }
        case .anyBrand: return ISOBrands(bytes) != nil
        }
    }

    /// Atoms a QuickTime file made before `ftyp` existed may start with; libavformat then decides.
    static let classicQuickTimeAtoms = ["wide", "mdat", "moov", "free", "skip", "pnot"]
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

extension MediaFormat {
    /// The input format `bytes` (a file's first `Magic.prefixLength` bytes) are, checked in
    /// the table's order; nil when none.
    public static func sniffing(prefix bytes: [UInt8]) -> MediaFormat? {
        FormatTable.rows.first { inputs.contains($0.format) && $0.magic.matches(bytes) }?.format
    }

    /// The input format a file named with this extension promises, whatever its case.
    public static func promised(byExtension fileExtension: String) -> MediaFormat? {
        FormatTable.byExtension[fileExtension.lowercased()]
    }
}
