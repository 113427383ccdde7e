import Foundation

/// Parses the dates pipelines and metadata write: `2024-05-01`, `2024-05-01T13:45:00`, with
/// optional fractional seconds and a zone (`Z`, `+02:00`, `-0700`). A date without a zone is
/// read as UTC, so zone-less capture dates and zone-less filter dates compare as wall-clock
/// times.
public enum ISODate {
    /// The shape of the text `parse` reads, field ranges included, as a regular expression: the
    /// pipeline schema's pattern for filter dates. `parse` also refuses days a month lacks.
    public static let pattern = #"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"#
        + #"([T ]([01][0-9]|2[0-3]):[0-5][0-9](:([0-5][0-9]|60)(\.[0-9]*)?)?(Z|[+-][0-9]{2}:?[0-9]{2})?)?$"#

    public static func parse(_ text: String) -> Date? {
        parseWithOffset(text)?.date
    }

    /// The instant and, when the text names a zone, its offset from UTC in seconds.
    public static func parseWithOffset(_ text: String) -> (date: Date, utcOffsetSeconds: Int?)? {
        let characters = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= characters.count else { return nil }
            var value = 0
            for byte in characters[index..<index + digits] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard index < characters.count, characters[index] == byte else { return false }
            index += 1
            return true
        }
        var components = DateComponents()
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
              let day = number(2), (1...12).contains(month), (1...31).contains(day) else { return nil }
        (components.year, components.month, components.day) = (year, month, day)
        var offsetSeconds: Int?
        if skip(UInt8(ascii: "T")) || skip(UInt8(ascii: " ")) {
            guard let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2), hour < 24, minute < 60 else { return nil }
            (components.hour, components.minute) = (hour, minute)
            if skip(UInt8(ascii: ":")) {
                guard let second = number(2), second < 61 else { return nil }
                components.second = second
                if skip(UInt8(ascii: ".")) {
                    while index < characters.count, (48...57).contains(characters[index]) { index += 1 }
                }
            }
            if skip(UInt8(ascii: "Z")) {
                offsetSeconds = 0
            } else if index < characters.count, characters[index] == UInt8(ascii: "+") || characters[index] == UInt8(ascii: "-") {
                let sign = characters[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = number(2) else { return nil }
                _ = skip(UInt8(ascii: ":"))
                guard let minutes = number(2) else { return nil }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
            }
        }
        guard index == characters.count else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == day else { return nil } // no 31 February
        return (date.addingTimeInterval(TimeInterval(-(offsetSeconds ?? 0))), offsetSeconds)
    }
}

extension ISODate {
    /// `2021:04:10 11:44:00` and `+01:00` become `2021-04-10T11:44:00+01:00`. A date that is
    /// not in EXIF's form is kept as written; an offset that is not `±HH:MM` (cameras write
    /// blanks) is left off.
    public static func text(exifDateTime: String, offset: String?) -> String {
        guard matches(exifDateTime, "dddd:dd:dd dd:dd:dd") else { return exifDateTime }
        let date = exifDateTime.prefix(10).replacingOccurrences(of: ":", with: "-")
        let zone = offset.flatMap { matches($0, "+dd:dd") || matches($0, "-dd:dd") ? $0 : nil } ?? ""
        return "\(date)T\(exifDateTime.suffix(8))\(zone)"
    }

    /// Whether `text` has `pattern`'s shape: `d` stands for an ASCII digit, anything else for itself.
    private static func matches(_ text: String, _ pattern: String) -> Bool {
        text.count == pattern.count && zip(text, pattern).allSatisfy { character, expected in
            expected == "d" ? character.isASCII && character.isNumber : character == expected
        }
    }
}
