import Foundation

/// The capture time a camera or an app writes into a file's name (`IMG_20231224_183000.jpg`,
/// `PXL_20230102_030405123.jpg`, `Screenshot 2024-01-01 at 10.10.10.png`…), for files whose
/// metadata has none. A name that only looks like a date is not one: the date must exist, between
/// 1970 and 2099, and stand apart from any longer run of digits.
enum FileNameDate {
    /// A name's date and time as written.
    struct Reading: Equatable, Sendable {
        var year: Int, month: Int, day: Int
        var hour = 0, minute = 0, second = 0
        /// The fraction of the second, where the name has one (Pixel's milliseconds).
        var nanosecond: Int?
        /// Pixel names its files in UTC; every other name is on the wall clock of where it was taken.
        var isUTC = false
        /// WhatsApp's names hold the day alone: the time reads midnight.
        var hasTime = true

        /// The wall-clock time read as UTC, as `MediaFacts.Capture` holds a time whose zone is unknown.
        var date: Date {
            let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            return FileNameDate.utc.date(from: components)! + Double(nanosecond ?? 0) / 1e9
        }
    }

    /// The reading of the first pattern `fileName` fits; nil when none does, or its date does not exist.
    static func read(_ fileName: String) -> Reading? {
        let range = NSRange(fileName.startIndex..., in: fileName)
        for pattern in patterns {
            if let match = pattern.expression.firstMatch(in: fileName, range: range) {
                return reading(match, of: pattern, in: fileName)
            }
        }
        return nil
    }

    /// How a name spells its time: which app writes it, as a regular expression with named groups
    /// (`y`, `mo`, `d`, `h`, `mi`, `s`, and `ms`, `meridiem` where the name has them), and on what clock.
    private struct Pattern {
        let expression: NSRegularExpression
        let isUTC: Bool
        let hasTime: Bool

        /// Anchored at the name's start; a digit may not follow (`20231224_1830001` is no time).
        init(_ pattern: String, isUTC: Bool = false, hasTime: Bool = true) {
            expression = try! NSRegularExpression(pattern: "^" + pattern + "(?!\\d)", options: .caseInsensitive)
            self.isUTC = isUTC
            self.hasTime = hasTime
        }
    }

    /// The fields' groups, digits only: the date's checks come after the match.
    private static let year = "(?<y>\\d{4})", month = "(?<mo>\\d{2})", day = "(?<d>\\d{2})"
    private static let hour = "(?<h>\\d{2})", minute = "(?<mi>\\d{2})", second = "(?<s>\\d{2})"
    private static let compactDate = year + month + day, compactTime = hour + minute + second

    // Compiled once: every file's name is read.
    private static let patterns = [
        // Android cameras.
        Pattern("(?:IMG|VID)_\(compactDate)_\(compactTime)"),
        // Pixel, in UTC with milliseconds; `.MP` before the extension for a Motion Photo.
        Pattern("PXL_\(compactDate)_\(compactTime)(?<ms>\\d{3})", isUTC: true),
        // WhatsApp: the day it was sent or saved, and a counter.
        Pattern("(?:IMG|VID)-\(compactDate)-WA\\d+", hasTime: false),
        // Android screenshots, older and newer.
        Pattern("Screenshot_\(compactDate)-\(compactTime)"),
        Pattern("Screenshot_\(year)-\(month)-\(day)-\(hour)-\(minute)-\(second)"),
        // macOS (`Screen Shot` before Mojave), its hour a 12-hour clock's where the locale says AM or PM.
        Pattern("(?:Screenshot|Screen Shot) \(year)-\(month)-\(day) at (?<h>\\d{1,2})\\.\(minute)\\.\(second)(?:[ \u{202F}](?<meridiem>AM|PM))?"),
        // Samsung cameras.
        Pattern("\(compactDate)_\(compactTime)"),
        // Dropbox's camera uploads.
        Pattern("\(year)-\(month)-\(day) \(hour)\\.\(minute)\\.\(second)"),
        Pattern("signal-\(year)-\(month)-\(day)-\(compactTime)"),
    ]

    /// Reads a reading's wall clock as UTC.
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The match's fields checked: a day the month has, a time the clock shows.
    private static func reading(_ match: NSTextCheckingResult, of pattern: Pattern, in name: String) -> Reading? {
        func field(_ group: String) -> Substring? { Range(match.range(withName: group), in: name).map { name[$0] } }
        func number(_ group: String) -> Int? { field(group).flatMap { Int($0) } }
        guard let year = number("y"), let month = number("mo"), let day = number("d"), (1970...2099).contains(year),
              (1...12).contains(month), (1...days(inMonth: month, of: year)).contains(day) else { return nil }
        var reading = Reading(year: year, month: month, day: day, isUTC: pattern.isUTC, hasTime: pattern.hasTime)
        guard pattern.hasTime else { return reading }
        guard var hour = number("h"), let minute = number("mi"), let second = number("s") else { return nil }
        if let meridiem = field("meridiem") {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem.uppercased() == "PM" ? 12 : 0)
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        (reading.hour, reading.minute, reading.second) = (hour, minute, second)
        reading.nanosecond = number("ms").map { $0 * 1_000_000 }
        return reading
    }

    /// The Gregorian calendar's days in a month.
    private static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
