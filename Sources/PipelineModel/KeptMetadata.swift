/// What `stripMetadata`'s `keep` names: all that stays. Everything else goes, and location
/// always does, even inside kept XMP and IPTC.
public enum KeptMetadata: String, CaseIterable, Codable, Sendable {
    /// EXIF Copyright and Artist, XMP dc:rights, dc:creator and xmpRights, IPTC CopyrightNotice and By-line.
    case copyright
    /// The ICC profile. Without it, colour is converted to sRGB first, which is what a reader assumes.
    case icc
    /// The EXIF orientation. Without it, the pixels are turned upright first.
    case orientation
    /// Make, model, lens and the exposure settings; never serial numbers or the owner.
    case camera
    /// When the photo was taken (EXIF, XMP and IPTC dates).
    case date
    /// Apple's MakerNote, which holds the Live Photo content identifier that pairs a still with its movie.
    case livePhoto
    /// The whole XMP packet (without location).
    case xmp
    /// The whole IPTC-IIM block and Photoshop resources (without location).
    case iptc
}
