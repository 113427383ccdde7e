/// The marker segments at the head of a JPEG file, up to the start of scan.
///
/// libvips writes EXIF through libexif, which drops MakerNotes it cannot re-serialise (Apple's
/// among them); splicing our own EXIF segment into the encoded file is how they survive.
public enum JPEGSegments {
    public static let exifHeader = Array("Exif\0\0".utf8)
    /// A segment's length field counts itself, so a payload can be at most this long.
    public static let maximumPayload = 0xFFFF - 2

    public struct Segment: Equatable {
        public let marker: UInt8
        /// The whole segment, marker included.
        public let range: Range<Int>
        public let payload: Range<Int>
    }

    /// Segments from SOI to SOS; nil when the bytes are not a JPEG or a length lies.
    public static func segments(of jpeg: [UInt8]) -> [Segment]? {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var segments: [Segment] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            guard let length = jpeg.uint16(at: offset + 2).map(Int.init), length >= 2,
                  offset + 2 + length <= jpeg.count else { return nil }
            segments.append(Segment(marker: marker, range: offset..<offset + 2 + length, payload: offset + 4..<offset + 2 + length))
            if marker == 0xDA { return segments }
            offset += 2 + length
        }
        return nil
    }

    /// The file with every EXIF APP1 segment replaced by one carrying `exif`, placed after a
    /// JFIF APP0 if there is one. Nil when the file is not a JPEG or `exif` cannot fit a segment.
    public static func replacingExif(in jpeg: [UInt8], with exif: ExifData) -> [UInt8]? {
        let payload = exif.app1Payload
        guard payload.count <= maximumPayload, let segments = segments(of: jpeg) else { return nil }
        let isExif = { (segment: Segment) in
            segment.marker == 0xE1 && jpeg[segment.payload].starts(with: exifHeader)
        }
        let insertAt = segments.first.map { $0.marker == 0xE0 ? $0.range.upperBound : 2 } ?? 2
        var output = Array(jpeg[..<insertAt])
        output += [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        var copied = insertAt
        for segment in segments where segment.range.lowerBound >= insertAt && isExif(segment) {
            output += jpeg[copied..<segment.range.lowerBound]
            copied = segment.range.upperBound
        }
        output += jpeg[copied...]
        return output
    }
}
