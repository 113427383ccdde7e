import Foundation
import MediaBatchCore

/// The human-readable form of an inspection: the path, then one aligned "Label: value" line
/// per known value.
enum InspectionText {
    static func render(_ inspection: Inspection) -> String {
        let rows = self.rows(inspection)
        let labelWidth = rows.map(\.label.count).max() ?? 0
        return rows.reduce("\(inspection.path)\n") { text, row in
            text + "  " + (row.label + ":").padding(toLength: labelWidth + 2, withPad: " ", startingAt: 0) + row.value + "\n"
        }
    }

    private static func rows(_ inspection: Inspection) -> [(label: String, value: String)] {
        var rows: [(label: String, value: String)] = []
        func add(_ label: String, _ value: String?) {
            if let value { rows.append((label, value)) }
        }
        add("Kind", "\(inspection.kind.rawValue) (\(inspection.format))")
        add("Media kinds", inspection.kinds.map(\.rawValue).joined(separator: ", "))
        if let width = inspection.width, let height = inspection.height { add("Dimensions", "\(width) × \(height)") }
        add("Orientation", inspection.orientation.map {
            // libheif applies the HEIF container's rotation and mirroring on load.
            orientation($0) + (["heic", "avif"].contains(inspection.format) && $0 != 1 ? ", already applied by the container" : "")
        })
        add("Duration", inspection.durationSeconds.map { "\(decimal($0, digits: 2)) s" })
        add("Streams", inspection.streams.map(streams))
        add("Frame rate", inspection.framesPerSecond.map { "\(decimal($0, digits: 2)) fps" })
        add("Rotation", inspection.rotation.map { "\($0)° clockwise" })
        add("Colour profile", inspection.colourProfile)
        add("Camera", camera(make: inspection.make, model: inspection.model))
        add("Lens", inspection.lens)
        add("Aperture", inspection.fNumber.map(aperture))
        add("Shutter", inspection.exposureSeconds.flatMap(shutter))
        add("ISO", inspection.iso.map { "ISO \($0)" })
        add("Focal length", inspection.focalLengthMillimetres.map {
            focalLength($0, in35mm: inspection.focalLength35mmMillimetres)
        })
        add("Captured", inspection.captureDate.map { date in
            inspection.captureDateSource.map { "\(date) (\($0 == .mtime ? "file modified; nothing else dates it" : $0.rawValue))" } ?? date
        })
        if let latitude = inspection.latitude, let longitude = inspection.longitude {
            add("Location", coordinates(latitude: latitude, longitude: longitude, altitude: inspection.altitude))
        }
        add("Location found in", inspection.locationFoundIn?.joined(separator: ", "))
        add("HDR gain map", inspection.gainMap)
        add("Live Photo ID", inspection.contentIdentifier)
        add("Live Photo pair", inspection.livePhotoPartner)
        return rows
    }

    /// EXIF orientation with what it asks a viewer to do.
    static func orientation(_ value: Int) -> String {
        let meanings = [
            1: "normal", 2: "mirrored horizontally", 3: "rotate 180°", 4: "mirrored vertically",
            5: "mirrored horizontally, rotate 270° CW", 6: "rotate 90° CW",
            7: "mirrored horizontally, rotate 90° CW", 8: "rotate 270° CW",
        ]
        return meanings[value].map { "\(value) (\($0))" } ?? String(value)
    }

    /// "Apple iPhone 6s", but "Canon EOS 7D" rather than "Canon Canon EOS 7D".
    static func camera(make: String?, model: String?) -> String? {
        guard let model else { return make }
        guard let make, !model.lowercased().hasPrefix(make.lowercased()) else { return model }
        return "\(make) \(model)"
    }

    static func aperture(_ fNumber: Double) -> String {
        "f/\(decimal(fNumber, digits: 1))"
    }

    /// Photographers' notation: fractions of a second as `1/N s`, longer exposures in seconds.
    static func shutter(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds > 0 else { return nil }
        if seconds >= 1 { return "\(decimal(seconds, digits: 1)) s" }
        return "1/\(decimal(1 / seconds, digits: 0)) s"
    }

    static func focalLength(_ millimetres: Double, in35mm: Double?) -> String {
        let actual = "\(decimal(millimetres, digits: 1)) mm"
        return in35mm.map { "\(actual) (\(decimal($0, digits: 0)) mm in 35 mm)" } ?? actual
    }

    /// Signed decimal degrees (south and west negative) to 6 places, about 10 cm.
    static func coordinates(latitude: Double, longitude: Double, altitude: Double?) -> String {
        let position = String(format: "%.6f, %.6f", latitude, longitude)
        return altitude.map { "\(position), altitude \(decimal($0, digits: 1)) m" } ?? position
    }

    /// "video h264, audio aac, data": codecs libavformat cannot name are left out.
    static func streams(_ streams: [Inspection.Stream]) -> String {
        streams.map { ["unknown", "none"].contains($0.codec) ? $0.kind : "\($0.kind) \($0.codec)" }.joined(separator: ", ")
    }

    /// At most `digits` decimals, without trailing zeros: 2.2, 11, 103.6.
    static func decimal(_ value: Double, digits: Int) -> String {
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
