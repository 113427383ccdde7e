import Foundation
import PipelineModel

/// Decides a file's format from its first bytes. Extensions lie (a JPEG named `.png` is common);
/// magic numbers and ISO-BMFF brands do not.
public enum FormatSniffer {
    /// Bytes needed to decide: enough for an `ftyp` box with a few compatible brands.
    public static let prefixLength = 64

    public static func format(of path: String) throws -> MediaFormat? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoPermission)
        }
        defer { try? handle.close() }
        return format(ofPrefix: [UInt8](try handle.read(upToCount: prefixLength) ?? Data()))
    }

    public static func format(ofPrefix bytes: [UInt8]) -> MediaFormat? {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("ftyp".utf8), at: 4) { return isoBaseMediaFormat(bytes) }
        if ["wide", "mdat", "moov", "free", "skip", "pnot"].contains(where: { starts(Array($0.utf8), at: 4) }) {
            return .mov // classic QuickTime files start without an ftyp box; libavformat then decides
        }
        return nil
    }

    /// ISO-BMFF (HEIF, AVIF, MP4, MOV, 3GP) share one container; the major and compatible brands
    /// in the `ftyp` box say which it is. Image brands win over video ones (a HEIF sequence lists both).
    private static func isoBaseMediaFormat(_ bytes: [UInt8]) -> MediaFormat? {
        let boxSize = bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let end = min(bytes.count, max(16, boxSize))
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            if offset != 12 { // bytes 12..<16 are the minor version, not a brand
                brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            }
            offset += 4
        }
        let all = Set(brands)
        if !all.isDisjoint(with: ["avif", "avis"]) { return .avif }
        if !all.isDisjoint(with: ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]) { return .heic }
        if brands.first == "qt  " { return .mov }
        if brands.first?.hasPrefix("3g") == true { return .threeGP }
        return .mp4
    }

    /// The format a media extension promises. A file named like this whose bytes are not
    /// recognised is broken, not merely unrelated.
    public static let formatsByExtension: [String: MediaFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "jpe": .jpeg, "png": .png, "gif": .gif, "webp": .webp, "tif": .tiff, "tiff": .tiff,
        "heic": .heic, "heif": .heic, "hif": .heic, "avif": .avif,
        "mov": .mov, "qt": .mov, "mp4": .mp4, "m4v": .mp4, "3gp": .threeGP, "3g2": .threeGP,
    ]

    /// The format the extension promises when the bytes say otherwise; nil when they agree or
    /// the extension promises nothing. MOV, MP4 and 3GP are one container family whose names
    /// cameras and phones mix freely, so they never contradict each other.
    public static func contradiction(fileExtension: String, content: MediaFormat) -> MediaFormat? {
        guard let promised = formatsByExtension[fileExtension.lowercased()], promised != content else { return nil }
        return promised.isVideo && content.isVideo ? nil : promised
    }
}
