/// Whether an XMP packet places its subject somewhere. A plain text search: XMP blocks are
/// removed whole when they carry location, so a false positive costs metadata, never privacy.
public enum XMPLocation {
    /// XMP properties that place a photo or video: GPS, city/state/country, IPTC location
    /// structures, drone telemetry.
    public static let markers = [
        "exif:GPS", "GPSLatitude", "GPSLongitude", "GPSAltitude",
        "photoshop:City", "photoshop:State", "photoshop:Country",
        "Iptc4xmpCore:Location", "Iptc4xmpCore:CountryCode",
        "Iptc4xmpExt:LocationCreated", "Iptc4xmpExt:LocationShown",
        "drone-dji:GpsLatitude", "drone-dji:GpsLongitude", "drone-dji:AbsoluteAltitude",
    ]

    public static func isPresent<Bytes: Collection>(in packet: Bytes) -> Bool where Bytes.Element == UInt8 {
        let text = String(decoding: packet, as: UTF8.self)
        return markers.contains { text.contains($0) }
    }
}
