import Foundation

/// Google's Ultra HDR JPEG (spec v1.1): a primary SDR JPEG followed by its gain map JPEG, the
/// two tied together by an MPF index and a GContainer directory in the primary's XMP, the map's
/// metadata in its own XMP (`hdrgm`) and ISO 21496-1 APP2.
public enum UltraHDR {
    /// The Ultra HDR file of `primary`, a complete JPEG (its EXIF, XMP, ICC and IPTC segments are
    /// kept), and `gainMap`, a bare JPEG (e.g. libvips', JFIF only):
    /// - the primary, its XMP given `hdrgm:Version` and the GContainer directory (merged into its
    ///   XMP packet, or a new XMP APP1 after APP0 and EXIF), followed by the ISO 21496-1
    ///   version-only APP2 and a big-endian MPF APP2 listing both images, as the spec orders them;
    /// - then the gain map, its `hdrgm` XMP APP1 and full ISO 21496-1 APP2 after its SOI and APP0.
    ///
    /// Segments either already had for these roles (an earlier MPF index, ISO APP2, `hdrgm` and
    /// GContainer properties) are replaced, so an Ultra HDR file can be assembled again.
    ///
    /// - Throws: `MetadataFormatError` when either is not a JPEG whose segments can be walked,
    ///   the metadata is invalid, the primary's XMP is not well-formed or would outgrow its
    ///   segment, or the file would exceed MPF's 32-bit offsets.
    public static func assemble(primary: [UInt8], gainMap: [UInt8], metadata: GainMapMetadata) throws -> [UInt8] {
        let metadata = try metadata.validated()
        let map = try gainMapImage(gainMap, metadata: metadata)
        let primarySegments = try walkable(primary, "primary")
        let existingXMP = primarySegments.first { isXMP($0, in: primary) }.map { Array(primary[$0.payload].dropFirst(JPEGMetadata.xmpSignature.count)) }
        let xmp = try primaryXMP(existing: existingXMP, gainMapLength: map.count)
        let added = try segment(0xE1, JPEGMetadata.xmpSignature + xmp) + segment(0xE2, ISO21496.versionOnlyPayload)
        var output: [UInt8] = [0xFF, 0xD8]
        var mpfStart = 0
        let insertAt = insertionIndex(primarySegments, in: primary, hasXMP: existingXMP != nil)
        for (index, segment) in primarySegments.dropLast().enumerated() {
            if index == insertAt {
                output += added
                mpfStart = output.count
                output += try Self.segment(0xE2, MPFPayload.placeholder)
            }
            guard !isXMP(segment, in: primary), !isReplaced(segment, in: primary) else { continue }
            output += primary[segment.range]
        }
        if mpfStart == 0 {
            output += added
            mpfStart = output.count
            output += try segment(0xE2, MPFPayload.placeholder)
        }
        if let scan = primarySegments.last { output += primary[scan.range.lowerBound...] }
        try MPFPayload.fill(&output, segmentStart: mpfStart, primarySize: output.count, gainMapSize: map.count)
        return output + map
    }

    /// The gain map JPEG with its metadata segments in front of everything but SOI and APP0.
    static func gainMapImage(_ jpeg: [UInt8], metadata: GainMapMetadata) throws -> [UInt8] {
        let segments = try walkable(jpeg, "gain map")
        let added = try segment(0xE1, JPEGMetadata.xmpSignature + metadata.hdrgmXMP()) + segment(0xE2, metadata.iso21496Payload())
        var output: [UInt8] = [0xFF, 0xD8]
        let insertAt = segments.first?.marker == 0xE0 ? 1 : 0
        for (index, segment) in segments.dropLast().enumerated() {
            if index == insertAt { output += added }
            guard !isXMP(segment, in: jpeg), !isReplaced(segment, in: jpeg) else { continue }
            output += jpeg[segment.range]
        }
        if insertAt >= segments.count - 1 { output += added }
        if let scan = segments.last { output += jpeg[scan.range.lowerBound...] }
        return output
    }

    /// Where the primary's new segments go, as an index into its segments: where its XMP is, or
    /// after the APP0 and EXIF segments that open it.
    static func insertionIndex(_ segments: [JPEGSegments.Segment], in jpeg: [UInt8], hasXMP: Bool) -> Int {
        if hasXMP, let xmp = segments.firstIndex(where: { isXMP($0, in: jpeg) }) { return xmp }
        let leading = segments.prefix { $0.marker == 0xE0 || ($0.marker == 0xE1 && jpeg[$0.payload].starts(with: JPEGMetadata.exifSignature)) }
        return min(leading.count, segments.count - 1)
    }

    /// The primary's XMP: `existing` without its `hdrgm` and GContainer properties, with an
    /// `rdf:Description` of them added; a new packet when there is none.
    static func primaryXMP(existing: [UInt8]?, gainMapLength: Int) throws -> [UInt8] {
        // No indentation before it and whitespace after it: it is cut out with that whitespace
        // when written again (`XMPPacket.removingEmptyDescriptions`), leaving the packet as it was.
        let description = """
            <rdf:Description rdf:about="" xmlns:rdf="\(XMPPacket.rdfNamespace)" xmlns:hdrgm="\(HDRGainMapXMP.namespace)"
                xmlns:Container="\(HDRGainMapXMP.containerNamespace)" xmlns:Item="\(HDRGainMapXMP.itemNamespace)"
                hdrgm:Version="\(HDRGainMapXMP.version)">
               <Container:Directory>
                <rdf:Seq>
                 <rdf:li rdf:parseType="Resource">
                  <Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/>
                 </rdf:li>
                 <rdf:li rdf:parseType="Resource">
                  <Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(gainMapLength)"/>
                 </rdf:li>
                </rdf:Seq>
               </Container:Directory>
              </rdf:Description>
            """ + "\n "
        guard let existing else { return XMPWriting.packet(descriptions: description) }
        let namespaces: Set<String> = [HDRGainMapXMP.namespace, HDRGainMapXMP.containerNamespace, HDRGainMapXMP.itemNamespace]
        let cleaned = try XMPPacket.removingProperties(inNamespaces: namespaces, from: existing)
        let merged = try XMPPacket.inserting(description: Array(description.utf8), into: cleaned)
        _ = try XMPPacket.properties(in: merged) // refuse to write what no reader could parse
        return merged
    }

    /// `xmp` without what ties a primary image to its gain map (`hdrgm` and the GContainer
    /// directory): for an output written without one, so no reader looks for a map that is not
    /// there. Nil when it has none of it.
    public static func removingGainMapReferences(fromXMP xmp: [UInt8]) throws -> [UInt8]? {
        let namespaces: Set<String> = [HDRGainMapXMP.namespace, HDRGainMapXMP.containerNamespace, HDRGainMapXMP.itemNamespace]
        guard namespaces.contains(where: { xmp.firstOffset(of: Array($0.utf8)) != nil }) else { return nil }
        return try XMPPacket.removingProperties(inNamespaces: namespaces, from: xmp)
    }

    static func walkable(_ jpeg: [UInt8], _ role: String) throws -> [JPEGSegments.Segment] {
        guard let segments = JPEGSegments.segments(of: jpeg), segments.last?.marker == 0xDA else {
            throw MetadataFormatError(message: "the \(role) is not a JPEG whose segments can be walked to its image data")
        }
        return segments
    }

    static func isXMP(_ segment: JPEGSegments.Segment, in jpeg: [UInt8]) -> Bool {
        segment.marker == 0xE1 && jpeg[segment.payload].starts(with: JPEGMetadata.xmpSignature)
    }

    /// An MPF index or ISO 21496-1 segment: written anew.
    static func isReplaced(_ segment: JPEGSegments.Segment, in jpeg: [UInt8]) -> Bool {
        segment.marker == 0xE2 && (jpeg[segment.payload].starts(with: MPFIndex.signature) || jpeg[segment.payload].starts(with: ISO21496.namespace))
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) throws -> [UInt8] {
        guard payload.count <= JPEGSegments.maximumPayload else {
            throw MetadataFormatError(message: "a \(payload.count)-byte payload does not fit a JPEG segment")
        }
        return [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }
}

/// The MPF index an Ultra HDR primary carries (CIPA DC-007), big-endian: the TIFF header, one IFD
/// of MPFVersion "0100", NumberOfImages 2 and the MP entries, then the two 16-byte entries — the
/// primary (type 0x030000, offset 0) and the gain map (type 0, offset from the TIFF header).
enum MPFPayload {
    /// The entries' offset from the TIFF header: header (8), tag count (2), 3 tags (36), next IFD (4).
    static let entriesOffset = 50

    static var placeholder: [UInt8] {
        var payload = MPFIndex.signature + [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 3]
        payload += tag(0xB000, type: 7, count: 4, value: Array("0100".utf8))
        payload += tag(0xB001, type: 4, count: 1, value: bigEndian(2))
        payload += tag(0xB002, type: 7, count: 32, value: bigEndian(UInt32(entriesOffset)))
        payload += [0, 0, 0, 0] + bigEndian(0x03_0000) + [UInt8](repeating: 0, count: 28)
        return payload
    }

    /// Sets the sizes and the gain map's offset in the placeholder at `segmentStart` in `output`.
    static func fill(_ output: inout [UInt8], segmentStart: Int, primarySize: Int, gainMapSize: Int) throws {
        let tiffHeader = segmentStart + 4 + MPFIndex.signature.count
        let entries = tiffHeader + entriesOffset
        guard segmentStart > 0, entries + 32 <= output.count, primarySize + gainMapSize <= Int(UInt32.max) else {
            throw MetadataFormatError(message: "the MPF index cannot place a gain map \(primarySize) bytes in")
        }
        output.setUInt32(UInt32(primarySize), at: entries + 4)
        output.setUInt32(UInt32(gainMapSize), at: entries + 16 + 4)
        output.setUInt32(UInt32(primarySize - tiffHeader), at: entries + 16 + 8)
    }

    private static func tag(_ tag: UInt16, type: UInt16, count: UInt32, value: [UInt8]) -> [UInt8] {
        [UInt8(tag >> 8), UInt8(tag & 0xFF), 0, UInt8(type)] + bigEndian(count) + value
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
