/// Blocks written back where they were, in the bytes they had: what containers whose other data
/// is found by offsets (HEIF items, TIFF directories) do, so that nothing else in the file moves.
/// An edit only ever removes, so a block comes back no longer than it was, and is padded as its
/// readers expect: EXIF and IPTC-IIM with zeros after their last value or dataset, XMP with the
/// whitespace its packet wrapper reserves for padding.
enum InPlace {
    /// An edited block that cannot stay where it was: removed whole, or grown.
    struct DoesNotFit: Error {}

    /// `bytes` padded to `length`, as a block of `kind` is; nil when it no longer fits.
    static func padded(_ bytes: [UInt8], to length: Int, as kind: HEIFMetaBox.MetadataKind) -> [UInt8]? {
        guard bytes.count <= length else { return nil }
        let padding = length - bytes.count
        guard kind == .xmp else { return bytes + [UInt8](repeating: 0, count: padding) }
        // Before the closing `<?xpacket end=...?>`, where the XMP specification puts padding.
        let end = bytes.lastOffset(of: Array("<?xpacket end".utf8)) ?? bytes.count
        let whitespace = (0..<padding).map { $0 % 100 == 99 ? UInt8(ascii: "\n") : UInt8(ascii: " ") }
        return Array(bytes[..<end]) + whitespace + bytes[end...]
    }

    /// `data` written over the ranges of `bytes` it came from, in order (a HEIF item's extents).
    static func scatter(_ data: [UInt8], over ranges: [Range<Int>], in bytes: inout [UInt8]) {
        var start = 0
        for range in ranges {
            bytes.replaceSubrange(range, with: data[start..<start + range.count])
            start += range.count
        }
    }
}

extension Array where Element == UInt8 {
    /// Where `pattern` last occurs.
    func lastOffset(of pattern: [UInt8]) -> Int? {
        guard !pattern.isEmpty, count >= pattern.count else { return nil }
        return stride(from: count - pattern.count, through: 0, by: -1).first { self[$0..<$0 + pattern.count].elementsEqual(pattern) }
    }
}
