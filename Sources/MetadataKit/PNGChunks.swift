/// `WriteStage`'s EXIF splice into PNG outputs, until it writes every block through
/// `PNGMetadata.writingMetadata`: libvips writes EXIF through libexif, which drops MakerNotes
/// (Apple's, with the Live Photo identifier), so our own block replaces its copies.
public enum PNGChunks {
    /// The file with its `eXIf` chunks replaced by one carrying `exif`, before the first `IDAT`;
    /// every other chunk (libvips' XMP among them) as it was. Nil when it is not a PNG.
    public static func replacingExif(in png: [UInt8], with exif: ExifData) -> [UInt8]? {
        try? PNGMetadata.replacingChunks(in: png, adding: PNGMetadata.chunk(PNGMetadata.exifType, exif.tiff)) {
            $0.type == PNGMetadata.exifType
        }
    }
}
