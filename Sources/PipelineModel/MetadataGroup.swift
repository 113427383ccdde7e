/// What `stripMetadata` can remove. Everything a pipeline does not name stays.
public enum MetadataGroup: String, CaseIterable, Codable, Sendable {
    /// GPS (EXIF GPS IFD, XMP exif:GPS*), place names (XMP photoshop/Iptc4xmp, IPTC-IIM 2:26–2:101),
    /// drone telemetry, and QuickTime location keys/atoms in videos.
    case location
    /// Camera body and lens serial numbers (EXIF).
    case serialNumbers
    /// The camera owner's name (EXIF).
    case cameraOwner
    /// Every MakerNote, Apple's included (and with it the Live Photo content identifier).
    case makerNotes
    /// The whole XMP packet.
    case xmp
    /// The whole IPTC-IIM block.
    case iptc
}
