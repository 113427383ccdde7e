import Foundation

/// A TIFF's places for metadata, all in its first directory (IFD0): descriptive tags (Make,
/// Model, Copyright…) among the image's own, pointers to the EXIF and GPS directories, XMP (tag
/// 700), IPTC-IIM (33723) and Photoshop image resources (34377, where IIM is kept a second time).
///
/// Classic TIFF in either byte order. BigTIFF (64-bit offsets) is not read: its metadata is
/// reported unreadable and left out; writing into one throws.
public enum TIFFMetadata: MetadataContainer {
    static let xmpTag = ExifTag.xmp
    static let iptcTag = ExifTag.iptc
    static let photoshopTag = ExifTag.photoshop
    static let blockTags: Set<UInt16> = [xmpTag, iptcTag, photoshopTag]

    /// IFD0 tags that say how a TIFF stores its pixels (and the ICC profile, libvips' to carry):
    /// the encoder's, never taken from an input's EXIF. WhitePoint, PrimaryChromaticities and
    /// TransferFunction describe the input's colours, which the encoder may have converted.
    static let imageStructureTags: Set<UInt16> = Set([
        0x00FE, 0x00FF, 0x0100, 0x0101, 0x0102, 0x0103, 0x0106, 0x0107, 0x0108, 0x0109, 0x010A, 0x0111, 0x0115,
        0x0116, 0x0117, 0x0118, 0x0119, 0x011C, 0x0122, 0x0123, 0x0124, 0x0125, 0x012D, 0x013D, 0x013E, 0x013F,
        0x0140, 0x0142, 0x0143, 0x0144, 0x0145, 0x014A, 0x0152, 0x0153, 0x0154, 0x0155, 0x0156, 0x015B, 0x0211,
        0x0212, 0x0213, 0x0214, 0x8773, 0x935C,
    ] + Array(0x0200...0x0209))

    /// Descriptive IFD0 tags the encoder writes of the image it saved: kept unless `blocks.exif` has its own.
    static let imageFacts: Set<UInt16> = [ExifTag.orientation, ExifTag.xResolution, ExifTag.yResolution, ExifTag.resolutionUnit]

    // MARK: Reading

    public static func readMetadata(path: String) throws -> MetadataBlocks {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MetadataFormatError(message: "cannot open \(path)") }
        defer { try? handle.close() }
        let source = TIFFFileSource(handle: handle, size: Int(try handle.seekToEnd()))
        guard let header = source.bytes(at: 0, count: 8), let kind = TIFFHeader(header) else {
            throw MetadataFormatError(message: "\(path) is not a TIFF file")
        }
        guard case .classic(let bigEndian, let ifd0) = kind else {
            return MetadataBlocks(unreadable: ["TIFF metadata (BigTIFF is not read)"])
        }
        var reader = TIFFDirectoryReader(source: source, bigEndian: bigEndian)
        var directory = try reader.directory(.ifd0, at: ifd0) { ExifTag.descriptiveIFD0.contains($0) || blockTags.contains($0) }
        let values = Dictionary(directory.entries.map { ($0.tag, $0.value) }) { first, _ in first }
        directory.entries.removeAll { blockTags.contains($0.tag) }
        var copies = MetadataCopies()
        copies.addUnreadable(reader.problems)
        if !directory.isEmpty { copies.addExif(try directory.exifBlock().tiff, rank: 0, place: "IFD0") }
        if let xmp = values[xmpTag] { copies.addXMP(xmp, rank: 0, place: "tag 700") }
        // 33723 holds bare IIM, or Photoshop resources as libvips writes what a JPEG's APP13 held;
        // 34377 holds Photoshop resources, IIM among them. Writers pad with zeros.
        for (tag, place) in [(iptcTag, "tag 33723"), (photoshopTag, "tag 34377")] {
            if let value = values[tag], value.contains(where: { $0 != 0 }) { copies.addIPTC(value, place: place) }
        }
        return copies.blocks
    }

    // MARK: Writing

    /// `file` with a new IFD0 appended and the header pointed at it: the encoder's image tags
    /// (strips or tiles, compression, resolution, ICC profile…), then, replacing any of the same
    /// tag, the descriptive IFD0 tags of `blocks.exif`, its EXIF and GPS directories, XMP (700),
    /// IPTC in 33723 (LONG, as Photoshop and exiftool write it) and, when there are other
    /// Photoshop resources, in 34377 with them as resource 0x0404 (BYTE, as Photoshop and libtiff
    /// write it; exiftool's validator calls UNDEFINED non-standard). The old IFD0 and the metadata it
    /// held are zeroed; pixel data and the directories after IFD0 stay where they are.
    public static func writingMetadata(_ blocks: MetadataBlocks, into file: [UInt8]) throws -> MetadataWriting {
        guard let kind = TIFFHeader(file), case .classic(let bigEndian, let ifd0Offset) = kind else {
            throw MetadataFormatError(message: "not a classic TIFF file")
        }
        var reader = TIFFDirectoryReader(source: file, bigEndian: bigEndian, budget: .max)
        let encoder = try reader.directory(.ifd0, at: ifd0Offset)
        guard reader.problems.isEmpty else {
            throw MetadataFormatError(message: "the encoder's IFD0 cannot be carried: \(reader.problems.joined(separator: "; "))")
        }
        var ifd0 = try metadataDirectory(blocks, bigEndian: bigEndian)
        let replaced = Set(ifd0.entries.map(\.tag)).union(blockTags).union(ExifTag.descriptiveIFD0.subtracting(imageFacts))
        for entry in encoder.entries where !replaced.contains(entry.tag) { ifd0.set(entry) }
        var output = file
        let next = file.uint32(at: ifd0Offset + 2 + (Int(file.uint16(at: ifd0Offset, bigEndian: bigEndian) ?? 0)) * 12,
                               bigEndian: bigEndian) ?? 0
        zero(encoder, keeping: { !replaced.contains($0) }, protected: imageData(encoder), in: &output)
        let start = try ifd0.append(to: &output, next: next)
        output.setUInt32(try TIFFDirectory.offsetField(start), at: 4, bigEndian: bigEndian)
        return MetadataWriting(bytes: output)
    }

    /// IFD0 entries and directories for `blocks`, in the file's byte order.
    static func metadataDirectory(_ blocks: MetadataBlocks, bigEndian: Bool) throws -> TIFFDirectory {
        var directory = TIFFDirectory(kind: .ifd0, bigEndian: bigEndian, entries: [], children: [:])
        if let exif = blocks.exif, let offset = exif.offset(of: .ifd0) {
            var reader = TIFFDirectoryReader(source: exif.tiff, bigEndian: exif.bigEndian)
            let model = try reader.directory(.ifd0, at: offset) { !imageStructureTags.contains($0) && !blockTags.contains($0) }
            directory = model.converted(toBigEndian: bigEndian)
        }
        func block(_ tag: UInt16, _ type: UInt16, _ value: [UInt8]) {
            // A LONG-typed block counts whole LONGs: zeros pad it, as IIM readers expect.
            let padded = type == 4 ? value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4) : value
            directory.set(.init(tag: tag, type: type, count: type == 4 ? padded.count / 4 : padded.count, value: padded, sourceOffset: 0))
        }
        if let xmp = blocks.xmp { block(xmpTag, 1, xmp) }
        if let iptc = blocks.iptc { block(iptcTag, 4, iptc) }
        // Photoshop keeps IIM in its resources too, and exiftool updates both copies where both
        // are; a file without other resources gets 33723 alone, as exiftool writes a new TIFF.
        if let others = blocks.photoshop, let resources = IPTCBlock.photoshopResources(iim: blocks.iptc, others: others) {
            block(photoshopTag, 1, resources)
        }
        return directory
    }

    /// Zeroes the directory as it sat in `output`, the values of the entries `keeping` does not
    /// accept and the directories it points to, whole: nothing the encoder wrote as metadata is
    /// left in the file for a reader that scans bytes rather than following offsets. What
    /// overlaps `protected` is left alone, whatever a damaged directory claims to hold there.
    private static func zero(_ directory: TIFFDirectory, keeping: (UInt16) -> Bool = { _ in false }, protected: [Range<Int>],
                             in output: inout [UInt8]) {
        let count = Int(output.uint16(at: directory.sourceOffset, bigEndian: directory.bigEndian) ?? 0)
        let table = directory.sourceOffset..<min(directory.sourceOffset + 2 + count * 12 + 4, output.count)
        let stale = directory.entries.filter { !keeping($0.tag) && $0.value.count > 4 }.map { $0.sourceOffset..<$0.sourceOffset + $0.value.count }
        for range in [table] + stale where range.upperBound <= output.count && !protected.contains(where: { $0.overlaps(range) }) {
            output.replaceSubrange(range, with: repeatElement(0, count: range.count))
        }
        for child in directory.children.values { zero(child, protected: protected, in: &output) }
    }

    /// The header and where the encoder's pixels lie (strips or tiles: offsets and byte counts,
    /// SHORT or LONG).
    private static func imageData(_ directory: TIFFDirectory) -> [Range<Int>] {
        func numbers(_ tag: UInt16) -> [Int] {
            guard let entry = directory.entries.first(where: { $0.tag == tag }) else { return [] }
            let size = entry.type == 3 ? 2 : 4
            return stride(from: 0, to: entry.value.count - size + 1, by: size).compactMap { at in
                size == 2 ? entry.value.uint16(at: at, bigEndian: directory.bigEndian).map(Int.init)
                    : entry.value.uint32(at: at, bigEndian: directory.bigEndian).map(Int.init)
            }
        }
        let pieces = Array(zip(numbers(0x0111), numbers(0x0117))) + Array(zip(numbers(0x0144), numbers(0x0145)))
        return [0..<8] + pieces.map { $0.0..<$0.0 + $0.1 }
    }
}
