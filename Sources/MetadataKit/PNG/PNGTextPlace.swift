/// What a PNG text chunk holds, by its keyword, when it is a copy of metadata.
enum PNGTextPlace: Equatable {
    /// `XML:com.adobe.xmp`: an XMP packet.
    case xmp
    /// `Raw profile type <name>` with one of `profileKinds` (exiftool also reads the keyword
    /// with a lower-case first letter). Nil: libvips' `Raw`, where the name is inside.
    case rawProfile(String?)
    /// ImageMagick's copies of single EXIF and XMP properties (`exif:GPSLatitude`,
    /// `photoshop:City`), one text chunk each. Not read (the blocks they come from are), but
    /// removed: libvips carries them as PNG comments into what it writes.
    case propertyCopy

    /// Raw profiles of the kinds `MetadataBlocks` holds (lower case).
    static let profileKinds: Set<String> = ["exif", "app1", "iptc", "xmp", "8bim"]
    static let rawProfilePrefix = "raw profile type "
    /// libvips 8.14 writes a PNG comment's keyword only up to its first space, so a raw profile
    /// it copies is keyed `Raw`.
    static let truncatedRawProfile = "raw"

    init?(keyword: String) {
        let lowercased = keyword.lowercased()
        if keyword == PNGMetadata.xmpKeyword {
            self = .xmp
        } else if lowercased.hasPrefix(Self.rawProfilePrefix) {
            let name = String(lowercased.dropFirst(Self.rawProfilePrefix.count))
            guard Self.profileKinds.contains(name) else { return nil }
            self = .rawProfile(name)
        } else if lowercased == Self.truncatedRawProfile {
            self = .rawProfile(nil)
        } else if let colon = keyword.firstIndex(of: ":"),
                  XMPPacket.locationNamespaces.contains(where: { $0.prefix == keyword[..<colon] }) {
            self = .propertyCopy
        } else {
            return nil
        }
    }

    /// The kind a raw profile's own name line gives: `iptc`, or exiftool's `IPTC profile`.
    static func profileKind(named name: String) -> String {
        let lowercased = name.lowercased()
        return lowercased.hasSuffix(" profile") ? String(lowercased.dropLast(" profile".count)) : lowercased
    }

    /// How a report names the block, e.g. "IPTC".
    var kindName: String {
        switch self {
        case .xmp: "XMP"
        case .rawProfile(let name?): name == "8bim" ? "Photoshop" : name == "app1" ? "APP1" : name.uppercased()
        case .rawProfile(nil): "raw profile"
        case .propertyCopy: "property"
        }
    }
}
