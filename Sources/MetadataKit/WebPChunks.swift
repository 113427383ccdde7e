/// `WriteStage`'s EXIF splice into WebP outputs, until it writes every block through
/// `WebPMetadata.writingMetadata`: libvips writes EXIF through libexif, which drops MakerNotes
/// (Apple's, with the Live Photo identifier) and puts `Exif\0\0` before the block, which the
/// WebP container does not use; our own block replaces it.
public enum WebPChunks {
    /// The file with its `EXIF` chunks replaced by one carrying `exif` and the `VP8X` flag set
    /// (a simple file made extended); every other chunk (libvips' XMP among them) as it was.
    /// Nil when it is not a WebP.
    public static func replacingExif(in webp: [UInt8], with exif: ExifData) -> [UInt8]? {
        try? WebPMetadata.replacingChunks(in: webp, removing: [WebPMetadata.exifFourCC],
                                          adding: [(WebPMetadata.exifFourCC, exif.tiff)])
    }
}
