/// What a RAW's headers say, read by LibRaw without unpacking the sensor data.
public struct RawFacts: Sendable, Equatable {
    public struct Size: Sendable, Equatable {
        public let width: Int
        public let height: Int
    }

    /// The sensor data as stored (margins included).
    public let raw: Size
    /// What a full-size develop makes, before it is turned upright.
    public let developed: Size
    /// EXIF's 1...8, from LibRaw's `flip`.
    public let orientation: Int
    /// The embedded preview LibRaw chooses, as stored; nil when there is none. Whether it is a
    /// JPEG (mediabatch reads no other) is known once it is read.
    public let preview: Size?

    /// dcraw's `flip` bits (1: mirror across, 2: upside down, 4: transposed) as EXIF's orientation.
    static func orientation(flip: Int32) -> Int {
        [1, 2, 4, 3, 5, 8, 6, 7][Int(flip & 7)]
    }
}
