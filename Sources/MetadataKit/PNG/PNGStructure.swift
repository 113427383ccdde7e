import Foundation

/// A PNG's chunks before its image data: an animated PNG announces its frames in `acTL`, which
/// libvips 8.14 does not report (it loads the first frame).
public struct PNGStructure: Equatable, Sendable {
    /// `acTL`'s frame count; nil for a still PNG.
    public let animationFrames: Int?

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Ancillary chunks before `IDAT` are small; a file that has not reached it by here is odd.
    static let headerReadLimit = 16 << 20

    public init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MetadataFormatError(message: "cannot open \(path)") }
        defer { try? handle.close() }
        let fileSize = Int(try handle.seekToEnd())
        guard fileSize >= 8, (try? handle.readBytes(at: 0, count: 8)) == Self.signature else {
            throw MetadataFormatError(message: "not a PNG")
        }
        var frames: Int?
        var offset = 8
        // Each chunk: a 32-bit length, a type, the data, a CRC.
        while offset + 12 <= min(fileSize, Self.headerReadLimit),
              let header = try? handle.readBytes(at: offset, count: 12), let length = header.uint32(at: 0).map(Int.init) {
            let type = header.fourCC(at: 4)
            if type == "IDAT" || type == "IEND" { break }
            if type == "acTL" { frames = header.uint32(at: 8).map(Int.init) }
            offset += 12 + length
        }
        animationFrames = frames
    }
}
