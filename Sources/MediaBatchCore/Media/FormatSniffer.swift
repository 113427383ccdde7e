import Foundation
import MediaFormats
import MetadataKit

/// Decides a file's format from its first bytes, by the magic of each row of `FormatTable`, and
/// a TIFF's from its directories too (a camera's RAW or an image).
/// Extensions lie (a JPEG named `.png` is common); magic numbers and ISO-BMFF brands do not.
public enum FormatSniffer {
    public static func format(of path: String) throws -> MediaFormat? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoPermission)
        }
        defer { try? handle.close() }
        let prefix = [UInt8](try handle.read(upToCount: Magic.prefixLength) ?? Data())
        return MediaFormat.sniffing(prefix: prefix, tiff: Magic.isTIFF(prefix) ? TIFFFacts.read(path: path) : nil)
    }

    /// The format the extension promises when the bytes say otherwise; nil when they agree or
    /// the extension promises nothing. Movies are named freely (MOV, MP4 and 3GP are one container
    /// family whose names cameras and phones mix; an MPEG stream is `.mpg`, `.mod`, `.vob`…), and
    /// a camera's RAW is often a TIFF of another maker's kind, so neither kind contradicts itself.
    public static func contradiction(fileExtension: String, content: MediaFormat) -> MediaFormat? {
        guard let promised = MediaFormat.promised(byExtension: fileExtension), promised != content else { return nil }
        return promised.row.kind == content.row.kind && content.row.kind != .still ? nil : promised
    }
}
