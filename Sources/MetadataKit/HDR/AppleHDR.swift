import Foundation

/// Apple's HDR gain maps (iPhone JPEG and HEIC, `urn:com:apple:photo:2020:aux:hdrgainmap`): a
/// gray map whose values, linearised by the sRGB curve, give each pixel's share of the photo's
/// headroom H: `HDR = SDR · (1 + (H − 1) · g)`. H comes from the map's XMP on newer iPhones, from
/// two MakerNote values by Apple's published formula on older ones.
public enum AppleHDR {
    public static let gainMapAuxiliaryType = "urn:com:apple:photo:2020:aux:hdrgainmap"
    public static let gainMapNamespace = "http://ns.apple.com/HDRGainMap/1.0/"
    /// Where Apple's JPEG gain map says what it is (`apdi:AuxiliaryImageType`).
    static let auxiliaryImageNamespace = "http://ns.apple.com/pixeldatainfo/1.0/"

    /// The headroom (linear, ≥ 1) the gain map reaches: XMP `HDRGainMap:HDRGainMapHeadroom`
    /// where present, else from the MakerNote's tags 0x0021 ("maker33") and 0x0030 ("maker48")
    /// by Apple's formula ("Applying Apple HDR effect to your photos"):
    /// stops = maker33 < 1 ? (maker48 ≤ 0.01 ? −20·maker48 + 1.8 : −0.101·maker48 + 1.601)
    ///                     : (maker48 ≤ 0.01 ? −70·maker48 + 3.0 : −0.303·maker48 + 2.303),
    /// headroom = 2^max(stops, 0). Many photos have tag 0x0021 but no 0x0030: it is then taken as
    /// 0, as libavif and Skia do. Nil when neither source has a usable value.
    /// For a photo whose headroom is found nowhere: the formula with both MakerNote values 0, as
    /// libavif does (2^1.8 ≈ 3.48).
    public static let unknownHeadroom = pow(2, 1.8)

    public static func headroom(xmp: [UInt8]?, makerNote: AppleMakerNote?) -> Double? {
        if let xmp, let value = xmpHeadroom(xmp) { return value }
        guard let makerNote, let maker33 = makerNote.rational(AppleMakerNote.hdrHeadroomTag), maker33.isFinite else { return nil }
        let maker48 = makerNote.rational(AppleMakerNote.hdrGainTag) ?? 0
        guard maker48.isFinite else { return nil }
        let stops = maker33 < 1
            ? (maker48 <= 0.01 ? -20 * maker48 + 1.8 : -0.101 * maker48 + 1.601)
            : (maker48 <= 0.01 ? -70 * maker48 + 3.0 : -0.303 * maker48 + 2.303)
        return pow(2, max(stops, 0))
    }

    private static func xmpHeadroom(_ packet: [UInt8]) -> Double? {
        guard packet.firstOffset(of: Array(gainMapNamespace.utf8)) != nil,
              let properties = try? XMPPacket.properties(in: packet),
              let text = properties.first(where: { $0.namespace == gainMapNamespace && $0.name == "HDRGainMapHeadroom" })?.values.first,
              let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 else { return nil }
        return value
    }

    /// Whether an XMP packet is that of Apple's gain map image (`apdi:AuxiliaryImageType`).
    static func isGainMapXMP(_ packet: [UInt8]) -> Bool {
        guard packet.firstOffset(of: Array(gainMapAuxiliaryType.utf8)) != nil,
              let properties = try? XMPPacket.properties(in: packet) else { return false }
        return properties.contains {
            $0.namespace == auxiliaryImageNamespace && $0.name == "AuxiliaryImageType" && $0.values.first == gainMapAuxiliaryType
        }
    }

    /// Apple's map values remapped to ISO 21496-1 / Ultra HDR recovery values for
    /// `GainMapMetadata.apple(headroom:)`, one entry per byte value. Apple's value g (byte/255
    /// through the sRGB EOTF) boosts by f = 1 + (H − 1)·g; the ISO form boosts by
    /// 2^(min + v·(max − min)) = H^v with min 0, max log2 H, gamma 1, so v = log2 f / log2 H,
    /// stored as round(255·v). It is exact (up to the byte's rounding) because both offsets are
    /// 0: ISO applies `(SDR + offsetSDR)·boost − offsetHDR`, which is Apple's `SDR·f` only then.
    /// A headroom of 1 or less has no boost to give: every value maps to 0.
    ///
    /// Both generations of Apple's map take this curve: HDRGainMapVersion 65536 (headroom from
    /// the MakerNote only) and 131072 (headroom in the map's XMP) differ in where H comes from,
    /// not in what a map value means. libavif, libultrahdr (so libvips 8.18's `uhdrload`) and Skia's
    /// metadata read Apple's map as an ISO map as it is (boost H^(byte/255), no linearisation),
    /// which Skia calls an approximation: for H = 8 it is up to 23% brighter than Apple's formula
    /// at bytes 50–100 (the bright areas of libavif's apple_gainmap_old.jpg, 18% there), and
    /// libultrahdr also reads the XMP headroom as log2 (4.53 → 23.1). Neither is a yardstick.
    public static func recoveryLUT(headroom: Double) -> [UInt8] {
        guard headroom.isFinite, headroom > 1 else { return [UInt8](repeating: 0, count: 256) }
        let stops = log2(headroom)
        return (0..<256).map { byte in
            let gain = sRGBToLinear(Double(byte) / 255)
            let value = log2(1 + (headroom - 1) * gain) / stops
            return UInt8(min(max((255 * value).rounded(), 0), 255))
        }
    }

    /// The sRGB EOTF (IEC 61966-2-1).
    static func sRGBToLinear(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }
}
