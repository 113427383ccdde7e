import Foundation
import MediaFormats

/// How far a TIFF-based camera RAW's image data reach, by its own directories, and whether its
/// sensor data can be whole. A file shorter than its strips and tiles reach (IFD0's, the
/// directories' after it, their SubIFDs': sensor data, previews, thumbnails) was cut off inside
/// its data; sensor data in fewer bytes than a bit a sample was emptied (exiftool's test images
/// are such): LibRaw develops both without an error, the missing part black, so mediabatch
/// checks itself, as it does a HEIF's (`HEIFDataExtent`).
public struct TIFFDataExtent: Sendable {
    /// The furthest byte the strips and tiles reach, and the file's size.
    public let claimed: Int
    public let size: Int
    /// The sensor data's bytes and the fewest any lossless coding of it takes (a bit a sample);
    /// nil where the coding is lossy or the directory says too little.
    public let sensorData: (bytes: Int, fewest: Int)?

    /// Why the sensor data cannot be developed whole; nil when nothing says so.
    public var damage: String? {
        if claimed > size { return "the file is cut off (its image data reach byte \(claimed), it has \(size) bytes)" }
        guard let sensorData, sensorData.bytes < sensorData.fewest else { return nil }
        return "its sensor data are \(sensorData.bytes) bytes, fewer than a bit a sample (\(sensorData.fewest) bytes): they were removed"
    }

    private enum Tag {
        static let width: UInt16 = 0x0100, height: UInt16 = 0x0101, compression: UInt16 = 0x0103, photometric: UInt16 = 0x0106
        static let samplesPerPixel: UInt16 = 0x0115, stripOffsets: UInt16 = 0x0111, stripByteCounts: UInt16 = 0x0117
        static let tileOffsets: UInt16 = 0x0144, tileByteCounts: UInt16 = 0x0145
    }
    /// Colour filter array, linear raw: sensor data.
    private static let rawPhotometrics: Set<Int> = [32803, 34892]
    /// Lossy DNG (JPEG) and JPEG XL: no floor.
    private static let lossyCompressions: Set<Int> = [34892, 52546]

    /// Nil when the file is no classic TIFF.
    public static func read(path: String) -> TIFFDataExtent? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        var claimed = 0
        var sensorData: (bytes: Int, fewest: Int)?
        let wanted: Set<UInt16> = [Tag.width, Tag.height, Tag.compression, Tag.photometric, Tag.samplesPerPixel,
                                   Tag.stripOffsets, Tag.stripByteCounts, Tag.tileOffsets, Tag.tileByteCounts]
        // A raw directory's strip lists run to thousands of entries: a budget of some MiB.
        let walked = TIFFFacts.walkDirectories(TIFFFileSource(handle: handle, size: Int(size)), including: wanted, budget: 4 << 20) { directory, _ in
            let value = { (tag: UInt16) in directory.entries.first { $0.tag == tag }.map(directory.numbers) ?? [] }
            var bytes = 0
            for (offsets, counts) in [(Tag.stripOffsets, Tag.stripByteCounts), (Tag.tileOffsets, Tag.tileByteCounts)] {
                let lengths = value(counts)
                claimed = zip(value(offsets), lengths).reduce(claimed) { max($0, $1.0 + $1.1) }
                bytes += lengths.reduce(0, +)
            }
            guard let photometric = value(Tag.photometric).first, rawPhotometrics.contains(photometric),
                  let width = value(Tag.width).first, let height = value(Tag.height).first,
                  !lossyCompressions.contains(value(Tag.compression).first ?? 1) else { return }
            sensorData = (bytes, width * height * (value(Tag.samplesPerPixel).first ?? 1) / 8)
        }
        return walked ? TIFFDataExtent(claimed: claimed, size: Int(size), sensorData: sensorData) : nil
    }
}
