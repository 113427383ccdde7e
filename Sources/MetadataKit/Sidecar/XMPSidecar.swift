/// An XMP sidecar file: a whole XMP document beside a photo (`IMG_1234.CR2.xmp` from darktable,
/// `IMG_1234.xmp` from Lightroom, `exiftool -o IMG_1234.xmp`). darktable and Lightroom write an XML
/// declaration and no `<?xpacket?>` wrapper, exiftool the wrapper alone; `XMPPacket` reads both as
/// they are. This keeps what lies outside the root element as the file had it.
public enum XMPSidecar {
    /// What a run needs of the sidecar.
    public struct Facts: Equatable, Sendable {
        /// When the photo was taken, as written: the first present of `exif:DateTimeOriginal`,
        /// `photoshop:DateCreated` and `xmp:CreateDate`. ISO 8601 from exiftool and Lightroom
        /// (`2011-01-13T14:33:39`), EXIF's own form from darktable (`2023:12:24 17:30:00.000`).
        public var captured: String?
        /// Whether a property places the photo, by `XMPPacket`'s rules.
        public var hasLocation: Bool
    }

    /// The properties that say when the photo was taken, in order of preference.
    static let captureProperties: [XMPPacket.PropertyName] = [
        .init("http://ns.adobe.com/exif/1.0/", "DateTimeOriginal"),
        .init("http://ns.adobe.com/photoshop/1.0/", "DateCreated"),
        .init("http://ns.adobe.com/xap/1.0/", "CreateDate"),
    ]

    /// - Throws: `MetadataFormatError` when the sidecar is not well-formed XML.
    public static func facts(in bytes: [UInt8]) throws -> Facts {
        let properties = try XMPPacket.properties(in: bytes)
        return Facts(captured: captured(in: properties), hasLocation: XMPPacket.placesPhoto(properties))
    }

    /// `Facts.captured` of any XMP's properties (a photo's own packet too), as written.
    public static func captured(in properties: [XMPPacket.Property]) -> String? {
        captureProperties.lazy.compactMap { wanted in
            properties.first { $0.namespace == wanted.namespace && $0.name == wanted.localName }?.values.first
        }.first
    }

    /// The sidecar without its location properties, or nil when it has none: the root element as
    /// `XMPPacket.removingLocation` cuts it, and the XML declaration, `<?xpacket?>` wrapper (or its
    /// absence), padding and final newline around it byte for byte. A sidecar in UTF-16 or Latin-1
    /// comes back as `XMPPacket` writes it, UTF-8 in a new wrapper: its declaration would name the
    /// wrong encoding.
    ///
    /// - Throws: `MetadataFormatError` when the sidecar is not well-formed XML and may place the
    ///   photo. One that names no location namespace is nil unread, as in `XMPPacket`: no reader
    ///   can find location in it.
    public static func removingLocation(from bytes: [UInt8]) throws -> MetadataRemoval? {
        guard let removal = try XMPPacket.removingLocation(from: bytes) else { return nil }
        let (source, text) = try XMPPacket.sourceAndText(of: bytes)
        guard source == text, let root = rootElement(in: text), let edited = rootElement(in: removal.bytes) else { return removal }
        return MetadataRemoval(bytes: Array(text[..<root.lowerBound]) + removal.bytes[edited] + text[root.upperBound...],
                               removed: removal.removed)
    }

    /// Where the root element stands, its start tag to its end tag; nil when the text does not
    /// tokenize, which text `XMPPacket` has just read and written does.
    private static func rootElement(in text: [UInt8]) -> Range<Int>? {
        var tokenizer = XMLTokenizer(text)
        var start: Int?, depth = 0
        while let token = try? tokenizer.next() {
            switch token {
            case .startTag(_, _, let isEmpty, let extent):
                start = start ?? extent.lowerBound
                if !isEmpty { depth += 1 } else if depth == 0, let start { return start..<extent.upperBound }
            case .endTag(_, let extent):
                depth -= 1
                if depth == 0, let start { return start..<extent.upperBound }
            default:
                continue
            }
        }
        return nil
    }
}
