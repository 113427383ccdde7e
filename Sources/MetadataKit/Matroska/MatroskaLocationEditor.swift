import Foundation

/// Removes location from Matroska and WebM files without remuxing. Location lives in tags
/// (`Tags/Tag/SimpleTag`: ffmpeg writes an MP4's `©xyz` as `LOCATION`; the specification's
/// `RECORDING_LOCATION`; Apple's ISO 6709 key): each such SimpleTag becomes a `Void` element of
/// its own length, so every other byte, and every offset the SeekHead and Cues hold, stays.
public enum MatroskaLocationEditor {
    /// Writes `output` as a copy of `input` with its location tags voided; a file without any is
    /// copied unchanged. `output` is overwritten: point it at a temporary path and rename.
    ///
    /// - Throws: `MovieFileError` when the file's elements cannot be walked.
    public static func writeWithoutLocation(from input: String, to output: String) throws -> MovieLocationReport {
        let found: [MatroskaElements.Element]
        do {
            found = try locationTags(in: MatroskaElements(file: RandomAccessFile(path: input)))
        } catch let error as MetadataFormatError {
            throw MovieFileError("not a readable Matroska file: \(error.message)")
        }
        try MovieLocationEditor.copy(input, to: output, overwriting: found.map { (offset: $0.start, bytes: void(length: $0.length)) })
        return MovieLocationReport(removed: found.map { "Tags/SimpleTag:\($0.name ?? "")" })
    }

    /// Whether the file at `path` has a location tag; false when its elements cannot be walked.
    public static func carriesLocation(path: String) -> Bool {
        guard let file = try? RandomAccessFile(path: path), let found = try? locationTags(in: MatroskaElements(file: file)) else { return false }
        return !found.isEmpty
    }

    /// Whether a tag's name says where: Matroska's and ffmpeg's names, Apple's keys, GPS.
    static func isLocation(_ name: String) -> Bool {
        let name = name.uppercased()
        return name.contains("LOCATION") || name.contains("ISO6709") || name.hasPrefix("GPS")
    }

    /// The top-level SimpleTags (with whatever they nest) that hold location.
    static func locationTags(in elements: MatroskaElements) throws -> [MatroskaElements.Element] {
        var found: [MatroskaElements.Element] = []
        for segment in try elements.children(of: nil) where segment.id == MatroskaElements.segment {
            for tags in try elements.children(of: segment) where tags.id == MatroskaElements.tags {
                for tag in try elements.children(of: tags) where tag.id == MatroskaElements.tag {
                    for simple in try elements.children(of: tag) where simple.id == MatroskaElements.simpleTag {
                        let named = try elements.named(simple)
                        if let name = named.name, isLocation(name) { found.append(named) }
                    }
                }
            }
        }
        return found
    }

    /// A `Void` element (ID 0xEC) exactly `length` bytes long: its size field takes 8 bytes
    /// when there is room, 1 otherwise (an element of 2 to 128 bytes).
    static func void(length: Int) -> [UInt8] {
        if length >= 9 {
            let size = length - 9
            return [0xEC, 0x01] + (0..<7).reversed().map { UInt8(truncatingIfNeeded: size >> ($0 * 8)) } + [UInt8](repeating: 0, count: size)
        }
        return [0xEC, 0x80 | UInt8(length - 2)] + [UInt8](repeating: 0, count: length - 2)
    }
}
