import FoundationEssentials
import Glibc

/// ISO 8601 UTC timestamps with millisecond precision, e.g. `2026-11-21T06:08:10.250Z`.
///
/// Written by hand (proleptic Gregorian arithmetic) so that formatting is deterministic and
/// independent of locale and time zone settings.
public enum ISO8601Timestamp {
    /// Milliseconds since 1970 that ``format(_:)`` writes as they are: years 0000 to 9999. Times outside are held
    /// at these bounds (and NaN is 1970): a time from outside is checked where it enters navd, and formatting
    /// never traps.
    public static let formattableMillis: ClosedRange<Int> = -62_167_219_200_000...253_402_300_799_999

    /// Formats a date as `YYYY-MM-DDThh:mm:ss.sssZ` (UTC, milliseconds rounded to nearest).
    public static func format(_ date: Date) -> String {
        let exactMillis = date.timeIntervalSince1970 * 1000
        let totalMillis = Int64(exactMillis.isNaN ? 0 : CheckedNumber.clampedWhole(exactMillis, in: formattableMillis))
        let days = totalMillis >= 0 ? totalMillis / 86_400_000 : (totalMillis - 86_399_999) / 86_400_000
        let millisOfDay = totalMillis - days * 86_400_000
        let (y, m, d) = civilFromDays(days)
        let hour = millisOfDay / 3_600_000
        let minute = (millisOfDay / 60_000) % 60
        let second = (millisOfDay / 1000) % 60
        let millis = millisOfDay % 1000
        // Written digit by digit into the string's own storage: made by interpolation of padded parts, one time
        // took eight strings (a fix's `trip_state` writes two or more).
        return String(unsafeUninitializedCapacity: 24) { text in
            func put(_ value: Int64, width: Int, at start: Int) {
                var rest = value
                for index in stride(from: start + width - 1, through: start, by: -1) {
                    text[index] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                    rest /= 10
                }
            }
            // The years are held to 0000-9999 above, so every part is non-negative and fits its width.
            put(y, width: 4, at: 0)
            put(m, width: 2, at: 5)
            put(d, width: 2, at: 8)
            put(hour, width: 2, at: 11)
            put(minute, width: 2, at: 14)
            put(second, width: 2, at: 17)
            put(millis, width: 3, at: 20)
            text[4] = UInt8(ascii: "-")
            text[7] = UInt8(ascii: "-")
            text[10] = UInt8(ascii: "T")
            text[13] = UInt8(ascii: ":")
            text[16] = UInt8(ascii: ":")
            text[19] = UInt8(ascii: ".")
            text[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Parses `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)`; returns nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for i in range {
                guard bytes[i] >= 48, bytes[i] <= 57 else { return nil }
                value = value * 10 + Int64(bytes[i] - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            if index == start { return nil }
        }
        var offsetSeconds: Int64 = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard bytes.count >= index + 6, bytes[index + 3] == UInt8(ascii: ":"),
                    let oh = number(index + 1..<index + 3), let om = number(index + 4..<index + 6)
                else { return nil }
                offsetSeconds = (oh * 3600 + om * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
                index += 6
            default:
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days since 1970-01-01 for a Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Gregorian (year, month, day) for days since 1970-01-01.
    public static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// The texts of the last few whole-second times formatted: a trip's arrival times, written on every fix, change a
/// few times a minute, and a time formatted before is not formatted again (about 1,000 instructions each).
public struct RecentTimestamps: Sendable {
    /// Seconds since the reference date, and their text; oldest first.
    private var entries: [(seconds: Double, text: String)] = []
    /// How many texts are kept: the arrival and a few stops.
    private static let capacity = 4

    public init() {}

    /// ``ISO8601Timestamp/format(_:)`` of the time `seconds` after the reference date (2001-01-01), seconds.
    public mutating func text(secondsSinceReference seconds: Double) -> String {
        // Compared by bits: equal bits are the same time, whose text is the same.
        if let kept = entries.first(where: { $0.seconds.bitPattern == seconds.bitPattern }) { return kept.text }
        let text = ISO8601Timestamp.format(Date(timeIntervalSinceReferenceDate: seconds))
        if entries.count == Self.capacity { entries.removeFirst() }
        entries.append((seconds, text))
        return text
    }
}
