import Foundation

/// HEIC's and AVIF's places for metadata: items of the `meta` box, each with a `cdsc` reference
/// to the image it describes. EXIF is an `Exif` item (a 4-byte offset to the TIFF header, then
/// the block), XMP a `mime` item of type `application/rdf+xml`, IPTC-IIM an `iptc` item (bare
/// datasets: pillow-heif writes them, libvips reads them, exiftool does not).
///
/// Of several EXIF or XMP items, the one describing the primary image is read (the others are
/// removed on writing all the same); every `iptc` item is merged.
public enum HEIFMetadata: MetadataContainer {
    /// Far above a real metadata item (a Xiaomi HEIC pads its EXIF to 192 KB).
    static let largestItem = 16 << 20

    // MARK: Reading

    public static func readMetadata(path: String) throws -> MetadataBlocks {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MetadataFormatError(message: "cannot open \(path)") }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        let metaBox = try walking { try ISOBox.topLevelBoxes(of: handle).first { $0.type == "meta" } }
        guard let metaBox, metaBox.size <= HEIFStructure.largestMeta else {
            throw MetadataFormatError(message: "\(path) has no usable HEIF 'meta' box")
        }
        let bytes = try walking { try handle.readBytes(at: metaBox.start, count: metaBox.size) }
        let meta = try walking { try HEIFMetaBox(bytes, ISOBox(type: "meta", start: 0, headerSize: metaBox.headerSize, size: metaBox.size)) }
        var copies = MetadataCopies()
        for (item, kind) in meta.metadataItems {
            do {
                let data = try self.data(of: item.id, meta, bytes) { start, count in
                    guard start >= 0, count <= size - start else { throw MetadataFormatError(message: "data past the end of the file") }
                    return try walking { try handle.readBytes(at: start, count: count) }
                }
                let place = "item \(item.id)"
                switch kind {
                case .exif: copies.addExif(try exifBlock(in: data), rank: 0, place: place)
                case .xmp: copies.addXMP(data, rank: 0, place: place)
                case .iptc: copies.addIPTC(data, place: place)
                }
            } catch {
                copies.addUnreadable(kind.blockName, place: "item \(item.id)", reason: "\(error)")
            }
        }
        return copies.blocks
    }

    /// ISO boxes report `MovieFileError`; here the container is an image's.
    static func walking<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MovieFileError {
            throw MetadataFormatError(message: error.message)
        }
    }

    /// An item's data, its extents joined: in the file (`read(offset, count)`) or in `idat`.
    static func data(of id: Int, _ meta: HEIFMetaBox, _ bytes: [UInt8],
                     read: (Int, Int) throws -> [UInt8]) throws -> [UInt8] {
        let location = try meta.location(of: id)
        guard location.dataReference == 0, location.constructionMethod < 2, location.extents.count <= 64 else {
            throw MetadataFormatError(message: "data kept elsewhere than this file's 'mdat' or 'idat'")
        }
        var data: [UInt8] = []
        for extent in location.extents {
            let (start, overflow) = location.baseOffset.addingReportingOverflow(extent.offset)
            guard !overflow, start >= 0, extent.length > 0, extent.length <= largestItem - data.count else {
                throw MetadataFormatError(message: "an extent of \(extent.length) bytes at \(start)")
            }
            if location.constructionMethod == 0 {
                data += try read(start, extent.length)
            } else {
                guard let idat = meta.idat, extent.length <= idat.end - idat.payloadStart - start else {
                    throw MetadataFormatError(message: "data past the end of 'idat'")
                }
                data += bytes[idat.payloadStart + start..<idat.payloadStart + start + extent.length]
            }
        }
        return data
    }

    /// The EXIF block after the item's 4-byte offset to its TIFF header.
    private static func exifBlock(in data: [UInt8]) throws -> [UInt8] {
        guard let offset = data.uint32(at: 0).map(Int.init), offset <= data.count - 4, ExifData(Array(data[(4 + offset)...])) != nil else {
            throw MetadataFormatError(message: "no TIFF header where the item says")
        }
        return Array(data[(4 + offset)...])
    }
}
