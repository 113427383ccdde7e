/// An EXIF tag as libvips keeps it on an image: one field per tag, `exif-ifd<N>-<Name>`. libvips'
/// savers rebuild the EXIF block from these fields, so a tag whose field is gone is not written.
public struct ExifField: Equatable, Sendable {
    /// libvips numbers EXIF's directories in the order libexif lists them.
    public enum Directory: Int, CaseIterable, Sendable {
        case ifd0 = 0, ifd1 = 1, exif = 2, gps = 3, interoperability = 4
    }

    public let directory: Directory
    /// The tag's EXIF name (e.g. "BodySerialNumber"); nil stands for every tag of the directory.
    public let name: String?

    public init(_ directory: Directory, _ name: String? = nil) {
        self.directory = directory
        self.name = name
    }

    /// The field name, or the prefix every field of the directory starts with.
    var fieldPrefix: String { "exif-ifd\(directory.rawValue)-\(name ?? "")" }
}
