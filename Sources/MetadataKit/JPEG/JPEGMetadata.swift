import Foundation

/// A JPEG's places for metadata, all in marker segments before the scan: EXIF in APP1
/// (`Exif\0\0`), XMP in APP1 (`http://ns.adobe.com/xap/1.0/\0`), IPTC-IIM and other Photoshop
/// image resources in APP13 (`Photoshop 3.0\0`), which may come in several segments.
///
/// Not carried: ExtendedXMP (APP1 `…/xmp/extension/`), which holds the depth and portrait maps of
/// the original's size and nothing an output of another size should keep.
public enum JPEGMetadata: MetadataContainer {
    static let exifSignature = Array("Exif\0\0".utf8)
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let photoshopSignature = Array("Photoshop 3.0\0".utf8)

    public static func readMetadata(path: String) throws -> MetadataBlocks {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MetadataFormatError(message: "cannot open \(path)") }
        defer { try? handle.close() }
        let payloads = try applicationPayloads(handle)
        var copies = MetadataCopies()
        for payload in payloads[0xE1] ?? [] {
            if payload.starts(with: exifSignature) {
                copies.addExif(Array(payload.dropFirst(exifSignature.count)), rank: 0, place: "APP1")
            } else if payload.starts(with: xmpSignature) {
                copies.addXMP(Array(payload.dropFirst(xmpSignature.count)), rank: 0, place: "APP1")
            }
        }
        // A resource larger than a segment continues in the next APP13: joined, the segments'
        // resources read as one sequence whether they were split or are separate copies.
        let photoshop = (payloads[0xED] ?? []).filter { $0.starts(with: photoshopSignature) }
        if !photoshop.isEmpty {
            copies.addIPTC(photoshop.flatMap { $0.dropFirst(photoshopSignature.count) }, place: "APP13")
        }
        return copies.blocks
    }

    /// The APP1 and APP13 payloads in file order, read segment by segment up to the scan.
    private static func applicationPayloads(_ handle: FileHandle) throws -> [UInt8: [[UInt8]]] {
        let size = Int(try handle.seekToEnd())
        guard size >= 4, try read(handle, at: 0, count: 2) == [0xFF, 0xD8] else { throw MetadataFormatError(message: "not a JPEG") }
        var payloads: [UInt8: [[UInt8]]] = [:]
        var offset = 2
        while offset + 4 <= min(size, JPEGStructure.headerReadLimit) {
            let header = try read(handle, at: offset, count: 4)
            guard header[0] == 0xFF, header[1] != 0xDA, let length = header.uint16(at: 2).map(Int.init), length >= 2 else { break }
            guard offset + 2 + length <= size else { throw MetadataFormatError(message: "segment at offset \(offset) runs past the file") }
            if header[1] == 0xE1 || header[1] == 0xED {
                payloads[header[1], default: []].append(try read(handle, at: offset + 4, count: length - 2))
            }
            offset += 2 + length
        }
        return payloads
    }

    private static func read(_ handle: FileHandle, at offset: Int, count: Int) throws -> [UInt8] {
        do {
            return try handle.readBytes(at: offset, count: count)
        } catch let error as MovieFileError {
            throw MetadataFormatError(message: error.message)
        }
    }

    /// `jpeg` with every EXIF, XMP (ExtendedXMP included) and Photoshop segment replaced by ours,
    /// placed after the JFIF APP0 when there is one. A block too large for one segment is not
    /// carried (a segment holds 65 533 bytes; EXIF and XMP may not span segments).
    public static func writingMetadata(_ blocks: MetadataBlocks, into jpeg: [UInt8]) throws -> MetadataWriting {
        guard let segments = JPEGSegments.segments(of: jpeg) else { throw MetadataFormatError(message: "not a JPEG") }
        var notCarried: [String] = []
        var inserted: [UInt8] = []
        let resources = IPTCBlock.photoshopResources(iim: blocks.iptc, others: blocks.photoshop)
        let kinds: [(String, [UInt8]?)] = [
            ("EXIF", blocks.exif.map { exifSignature + $0.tiff }), ("XMP", blocks.xmp.map { xmpSignature + $0 }),
            ("IPTC and Photoshop resources", resources.map { photoshopSignature + $0 }),
        ]
        for (index, (name, payload)) in kinds.enumerated() {
            guard let payload else { continue }
            guard payload.count <= JPEGSegments.maximumPayload else {
                notCarried.append("\(name) (\(payload.count) bytes: more than a JPEG segment holds)")
                continue
            }
            inserted += [0xFF, index == 2 ? 0xED : 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        let insertAt = segments.first.map { $0.marker == 0xE0 ? $0.range.upperBound : 2 } ?? 2
        var output = Array(jpeg[..<insertAt]) + inserted
        var copied = insertAt
        for segment in segments where segment.range.lowerBound >= insertAt && isMetadata(segment, in: jpeg) {
            output += jpeg[copied..<segment.range.lowerBound]
            copied = segment.range.upperBound
        }
        output += jpeg[copied...]
        return MetadataWriting(bytes: output, notCarried: notCarried)
    }

    static let extendedXMPSignature = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    /// The segments this container owns: whatever the encoder wrote there goes.
    private static func isMetadata(_ segment: JPEGSegments.Segment, in jpeg: [UInt8]) -> Bool {
        let payload = jpeg[segment.payload]
        switch segment.marker {
        case 0xE1: return [exifSignature, xmpSignature, extendedXMPSignature].contains { payload.starts(with: $0) }
        case 0xED: return payload.starts(with: photoshopSignature)
        default: return false
        }
    }
}
