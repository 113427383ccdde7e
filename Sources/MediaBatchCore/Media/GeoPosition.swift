import MetadataKit

/// A position in signed decimal degrees (south and west negative) and metres above sea level
/// (below is negative), read from EXIF GPS or ISO 6709 text.
public struct GeoPosition: Equatable, Sendable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    public init?(latitude: Double, longitude: Double, altitude: Double? = nil) {
        guard abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// EXIF GPS: degrees, minutes and seconds with N/S and E/W references; an altitude
    /// reference of 1 means below sea level. All three rationals must be readable: `numbers`
    /// skips a 0/0 one, and the rest would then be read as the wrong units.
    public init?(exif: ExifData) {
        let latitudeParts = exif.numbers(ExifTag.gpsLatitude, in: .gps), longitudeParts = exif.numbers(ExifTag.gpsLongitude, in: .gps)
        guard latitudeParts.count == 3, longitudeParts.count == 3,
              let latitude = Self.decimalDegrees(latitudeParts, reference: exif.string(ExifTag.gpsLatitudeRef, in: .gps)),
              let longitude = Self.decimalDegrees(longitudeParts, reference: exif.string(ExifTag.gpsLongitudeRef, in: .gps)) else { return nil }
        let altitude = exif.number(ExifTag.gpsAltitude, in: .gps).map {
            exif.number(ExifTag.gpsAltitudeRef, in: .gps) == 1 ? -$0 : $0
        }
        self.init(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// Degrees, minutes and seconds (any trailing ones may be missing) as signed decimal
    /// degrees: "S" and "W" references make it negative.
    public static func decimalDegrees(_ degreesMinutesSeconds: [Double], reference: String?) -> Double? {
        guard !degreesMinutesSeconds.isEmpty, degreesMinutesSeconds.count <= 3,
              degreesMinutesSeconds.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
        let magnitude = zip(degreesMinutesSeconds, [1.0, 60, 3600]).reduce(0) { $0 + $1.0 / $1.1 }
        return ["S", "W"].contains(reference?.uppercased()) ? -magnitude : magnitude
    }

    /// ISO 6709 text as QuickTime stores it: `+52.2097-000.8955+103.640/`. Latitude and
    /// longitude may be degrees (`±DD.D`, `±DDD.D`), degrees and minutes (`±DDMM.M`,
    /// `±DDDMM.M`) or degrees, minutes and seconds (`±DDMMSS.S`, `±DDDMMSS.S`); the altitude
    /// and a `CRS` suffix are optional.
    public init?(iso6709 text: String) {
        let body = text.prefix { $0 != "/" }.split(separator: "C", maxSplits: 1).first ?? ""
        var components: [Substring] = []
        var start = body.startIndex
        for index in body.indices.dropFirst() where body[index] == "+" || body[index] == "-" {
            components.append(body[start..<index])
            start = index
        }
        components.append(body[start...])
        guard components.count == 2 || components.count == 3,
              let latitude = Self.iso6709Angle(components[0], degreeDigits: 2),
              let longitude = Self.iso6709Angle(components[1], degreeDigits: 3) else { return nil }
        var altitude: Double?
        if components.count == 3 {
            guard let value = Self.signedNumber(components[2]) else { return nil }
            altitude = value
        }
        self.init(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// One ISO 6709 angle: the length of its whole part says whether minutes and seconds follow
    /// the degrees.
    private static func iso6709Angle(_ component: Substring, degreeDigits: Int) -> Double? {
        guard let value = signedNumber(component) else { return nil }
        let wholeDigits = component.dropFirst().prefix { $0 != "." }.count
        var remaining = abs(value)
        var parts: [Double] = []
        switch wholeDigits - degreeDigits {
        case 0:
            parts = [remaining]
        case 2:
            parts = [(remaining / 100).rounded(.down), remaining.truncatingRemainder(dividingBy: 100)]
        case 4:
            parts = [(remaining / 10000).rounded(.down)]
            remaining = remaining.truncatingRemainder(dividingBy: 10000)
            parts += [(remaining / 100).rounded(.down), remaining.truncatingRemainder(dividingBy: 100)]
        default:
            return nil
        }
        guard parts.dropFirst().allSatisfy({ $0 < 60 }), let degrees = decimalDegrees(parts, reference: nil) else { return nil }
        return value < 0 ? -degrees : degrees
    }

    /// `+12.5` or `-003.25`: a sign, digits, at most one decimal point.
    private static func signedNumber(_ component: Substring) -> Double? {
        guard let sign = component.first, sign == "+" || sign == "-" else { return nil }
        let digits = component.dropFirst()
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              digits.filter({ $0 == "." }).count <= 1, let value = Double(digits) else { return nil }
        return sign == "-" ? -value : value
    }
}
