import Foundation

/// The coded image data of a still, read without mediabatch's own parsers: what a rewrite that
/// changes no pixel must leave byte for byte.
public enum CodedImage {
    /// JPEG: the primary image's scans, from its first SOS to its EOI; PNG: its IDAT (and APNG
    /// fdAT) data; WebP: its image chunks (VP8, VP8L, ALPH, ANIM, ANMF). Nil for other formats.
    public static func data(of path: String) throws -> [UInt8]? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        if bytes.starts(with: [0xFF, 0xD8]) { return jpegScans(bytes) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return pngImageData(bytes) }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.count > 12, Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return webpImageChunks(bytes)
        }
        return nil
    }

    private static func uint16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    private static func uint32(_ bytes: [UInt8], _ at: Int, bigEndian: Bool) -> Int {
        let b = bytes[at..<at + 4].map(Int.init)
        return bigEndian ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
    }

    /// Walks marker segments; inside entropy-coded data, 0xFF is followed by 0 (stuffing) or a
    /// restart marker, so the next other marker ends it.
    static func jpegScans(_ bytes: [UInt8]) -> [UInt8]? {
        var offset = 2, firstScan: Int?
        while offset + 2 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xD9 { return firstScan.map { Array(bytes[$0..<offset + 2]) } }
            if marker == 0xFF { offset += 1; continue }
            guard offset + 4 <= bytes.count else { return nil }
            let next = offset + 2 + uint16(bytes, offset + 2)
            guard marker == 0xDA else { offset = next; continue }
            firstScan = firstScan ?? offset
            offset = next
            while offset + 1 < bytes.count, !(bytes[offset] == 0xFF && bytes[offset + 1] != 0 && !(0xD0...0xD7).contains(bytes[offset + 1])) {
                offset += 1
            }
        }
        return nil
    }

    static func pngImageData(_ bytes: [UInt8]) -> [UInt8] {
        var offset = 8, data: [UInt8] = []
        while offset + 12 <= bytes.count {
            let length = uint32(bytes, offset, bigEndian: true), type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if ["IDAT", "fdAT"].contains(type) { data += bytes[offset + 8..<offset + 8 + length] }
            if type == "IEND" { break }
            offset += 12 + length
        }
        return data
    }

    static func webpImageChunks(_ bytes: [UInt8]) -> [UInt8] {
        var offset = 12, data: [UInt8] = []
        while offset + 8 <= bytes.count {
            let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self), size = uint32(bytes, offset + 4, bigEndian: false)
            if ["VP8 ", "VP8L", "ALPH", "ANIM", "ANMF"].contains(type) { data += bytes[offset..<min(bytes.count, offset + 8 + size)] }
            offset += 8 + size + size % 2
        }
        return data
    }
}
