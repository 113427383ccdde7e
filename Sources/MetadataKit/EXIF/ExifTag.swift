/// The EXIF tags mediabatch reads or edits, by the names the EXIF 2.32 spec gives them.
public enum ExifTag {
    // IFD0
    public static let make: UInt16 = 0x010F
    public static let model: UInt16 = 0x0110
    public static let orientation: UInt16 = 0x0112
    public static let software: UInt16 = 0x0131
    public static let copyright: UInt16 = 0x8298
    public static let gpsPointer: UInt16 = 0x8825
    /// IPTC-IIM in IFD0 (`IPTC-NAA`): TIFF's place for it, which some JPEG writers copy into EXIF.
    public static let iptc: UInt16 = 0x83BB
    /// A second IPTC-IIM copy in IFD0 (exiftool's `AFCP_IPTC`).
    public static let afcpIPTC: UInt16 = 0x8568
    /// XMP and Photoshop resources in IFD0: a TIFF's places for them, which exiftool reads in
    /// any EXIF block.
    public static let xmp: UInt16 = 0x02BC
    public static let photoshop: UInt16 = 0x8649
    /// GeoTIFF's georeferencing (exiftool names them PixelScale, ModelTiePoint, ModelTransform,
    /// GeoTiffDirectory, GeoTiffDoubleParams and GeoTiffAsciiParams): where on Earth each pixel
    /// is. Only the tie point and the transform are in exiftool's Location group, and
    /// `exiftool -location:all=` leaves the keys that decode to a place.
    public static let geoTIFF: [UInt16: String] = [
        0x830E: "PixelScale", 0x8482: "ModelTiePoint", 0x85D8: "ModelTransform",
        0x87AF: "GeoTiffDirectory", 0x87B0: "GeoTiffDoubleParams", 0x87B1: "GeoTiffAsciiParams",
    ]
    public static let cameraSerialNumber: UInt16 = 0xC62F
    public static let imageDescription: UInt16 = 0x010E
    public static let xResolution: UInt16 = 0x011A
    public static let yResolution: UInt16 = 0x011B
    public static let resolutionUnit: UInt16 = 0x0128
    public static let dateTime: UInt16 = 0x0132
    public static let artist: UInt16 = 0x013B
    public static let hostComputer: UInt16 = 0x013C
    /// IFD0 tags that describe the photo rather than how a TIFF stores its pixels: what an EXIF
    /// block taken from a TIFF file keeps.
    public static let descriptiveIFD0: Set<UInt16> = [
        imageDescription, make, model, orientation, xResolution, yResolution, resolutionUnit, software,
        dateTime, artist, hostComputer, copyright,
    ]
    // EXIF IFD
    public static let exposureTime: UInt16 = 0x829A
    public static let fNumber: UInt16 = 0x829D
    public static let isoSpeed: UInt16 = 0x8827
    public static let dateTimeOriginal: UInt16 = 0x9003
    public static let offsetTimeOriginal: UInt16 = 0x9011
    public static let subSecTimeOriginal: UInt16 = 0x9291
    public static let focalLength: UInt16 = 0x920A
    public static let makerNote: UInt16 = 0x927C
    public static let userComment: UInt16 = 0x9286
    /// 0 normal, 1 custom; Apple adds 2/3 HDR, 4 HDR original, 6 panorama, 7 portrait HDR, 8 portrait.
    public static let customRendered: UInt16 = 0xA401
    public static let pixelXDimension: UInt16 = 0xA002
    public static let pixelYDimension: UInt16 = 0xA003
    public static let focalLengthIn35mm: UInt16 = 0xA405
    public static let ownerName: UInt16 = 0xA430
    public static let bodySerialNumber: UInt16 = 0xA431
    public static let lensModel: UInt16 = 0xA434
    public static let lensSerialNumber: UInt16 = 0xA435
    // GPS IFD
    public static let gpsLatitudeRef: UInt16 = 1
    public static let gpsLatitude: UInt16 = 2
    public static let gpsLongitudeRef: UInt16 = 3
    public static let gpsLongitude: UInt16 = 4
    public static let gpsAltitudeRef: UInt16 = 5
    public static let gpsAltitude: UInt16 = 6
}
