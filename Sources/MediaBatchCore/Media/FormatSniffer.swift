import Foundation
import MediaFormats

/// Decides a file's format from its first bytes, by the magic of each row of `FormatTable`.
/// Extensions lie (a JPEG named `.png` is common); magic numbers and ISO-BMFF brands do not.
public enum FormatSniffer {
    public static func format(of path: String) throws -> MediaFormat? {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoPermission)
        }
        defer { try? handle.close() }
        return format(ofPrefix: [UInt8](try handle.read(upToCount: Magic.prefixLength) ?? Data()))
    }

    public static func format(ofPrefix bytes: [UInt8]) -> MediaFormat? {
        MediaFormat.sniffing(prefix: bytes)
    }

    /// The format the extension promises when the bytes say otherwise; nil when they agree or
    /// the extension promises nothing. MOV, MP4 and 3GP are one container family whose names
    /// cameras and phones mix freely, so they never contradict each other.
    public static func contradiction(fileExtension: String, content: MediaFormat) -> MediaFormat? {
        guard let promised = MediaFormat.promised(byExtension: fileExtension), promised != content else { return nil }
        return promised.isVideo && content.isVideo ? nil : promised
    }
}
