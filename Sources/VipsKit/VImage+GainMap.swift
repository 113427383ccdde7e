import CMediaShim
import CVips

/// What an HDR photo's gain map needs beyond a picture's operations: it arrives as the bytes of
/// a JPEG embedded in the file (MPF), carries no orientation of its own (it follows its
/// primary's), and Apple's are stored on another curve than the one Ultra HDR writes.
extension VImage {
    /// The JPEG in `bytes`, decoded into memory at once (`shrink`, 1, 2, 4 or 8, times smaller,
    /// by libjpeg), unless its header says it has more than `maxPixels`. Not counted as a decode
    /// of the file: the file's primary image is what `decodes` counts.
    public static func decodingJPEG(_ bytes: [UInt8], maxPixels: Int, shrink: Int = 1) throws -> VImage {
        precondition([1, 2, 4, 8].contains(shrink), "libjpeg shrinks by 1, 2, 4 or 8")
        var out: UnsafeMutablePointer<VipsImage>?
        try build {
            try check(bytes.withUnsafeBytes { mb_vips_jpeg_decode_memory($0.baseAddress, $0.count, Double(maxPixels), Int32(shrink), &out) },
                      "jpegload_buffer")
        }
        return VImage(owning: out!)
    }

    /// Turned and flipped as EXIF's `orientation` (1...8) says, whatever this image's own field.
    public func oriented(_ orientation: Int) throws -> VImage {
        guard orientation != 1 else { return self }
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_oriented(pointer, Int32(orientation), &out), "autorot") }
        return VImage(owning: out!)
    }

    /// Each 8-bit sample `s` replaced by `table[s]` (256 entries).
    public func mapped(through table: [UInt8]) throws -> VImage {
        precondition(table.count == 256, "a table for every 8-bit value")
        var out: UnsafeMutablePointer<VipsImage>?
        try Self.build { try check(mb_vips_map_uchar(pointer, table, &out), "maplut") }
        return VImage(owning: out!)
    }
}
