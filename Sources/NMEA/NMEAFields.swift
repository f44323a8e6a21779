import FoundationEssentials
import Glibc
import NavigationCore

/// A field's bytes, as the sentence holds them (printable ASCII).
typealias NMEAField = ArraySlice<UInt8>

/// Reading NMEA field formats from a field's bytes. Every reader returns nil for an empty or malformed field.
enum NMEAFields {
    /// `hhmmss` or `hhmmss.sss` → seconds since midnight (UTC).
    static func timeOfDay(_ field: NMEAField) -> Double? {
        guard field.count >= 6, let hours = twoDigits(field, at: 0), let minutes = twoDigits(field, at: 2),
            let seconds = twoDigits(field, at: 4), hours < 24, minutes < 60, seconds < 61
        else { return nil }
        var fraction = 0.0
        if field.count > 6 {
            // Digits only after the point: an exponent (`.1e20`) is no time any receiver writes.
            let point = field.startIndex + 6
            guard field[point] == UInt8(ascii: "."), field.count > 7, let value = decimal(field[(point + 1)...], fractionOnly: true) else {
                return nil
            }
            fraction = value
        }
        return Double(hours * 3600 + minutes * 60 + seconds) + fraction
    }

    /// `ddmmyy` → (year, month, day); two-digit years 80...99 are 1980...1999, 00...79 are 2000...2079
    /// (GPS time starts in 1980).
    static func date(_ field: NMEAField) -> (year: Int, month: Int, day: Int)? {
        guard field.count == 6, let day = twoDigits(field, at: 0), let month = twoDigits(field, at: 2), let yy = twoDigits(field, at: 4),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return (yy >= 80 ? 1900 + yy : 2000 + yy, month, day)
    }

    /// The two decimal digits at `offset` in `field` as a number, nil when either is not a digit.
    private static func twoDigits(_ field: NMEAField, at offset: Int) -> Int? {
        let (tens, ones) = (field[field.startIndex + offset], field[field.startIndex + offset + 1])
        guard isDigit(tens), isDigit(ones) else { return nil }
        return Int(tens - 48) * 10 + Int(ones - 48)
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` with a hemisphere letter → signed degrees.
    static func angle(_ field: NMEAField, hemisphere: NMEAField, degreeDigits: Int, positive: UInt8, negative: UInt8) -> Double? {
        guard field.count > degreeDigits + 1, let h = hemisphere.first, h == positive || h == negative else { return nil }
        let minutesStart = field.startIndex + degreeDigits
        var degrees = 0
        for digit in field[..<minutesStart] {
            guard isDigit(digit) else { return nil }
            degrees = degrees * 10 + Int(digit - 48)
        }
        guard let minutes = number(field[minutesStart...]), minutes >= 0, minutes < 60 else { return nil }
        let value = Double(degrees) + minutes / 60
        return h == negative ? -value : value
    }

    static func latitude(_ field: NMEAField, _ hemisphere: NMEAField) -> Double? {
        angle(field, hemisphere: hemisphere, degreeDigits: 2, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"))
            .flatMap { abs($0) <= 90 ? $0 : nil }
    }

    static func longitude(_ field: NMEAField, _ hemisphere: NMEAField) -> Double? {
        angle(field, hemisphere: hemisphere, degreeDigits: 3, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"))
            .flatMap { abs($0) <= 180 ? $0 : nil }
    }

    /// A decimal field as NMEA writes it: an optional sign, digits, an optional point and more digits, at least
    /// one digit in all. nil for anything else: `Double(_:)` alone would also read exponents (`1e300`), `inf`,
    /// `nan` and hexadecimal, which no receiver writes and line noise can. The caller checks the range.
    static func number(_ field: NMEAField) -> Double? {
        decimal(field, fractionOnly: false)
    }

    /// Powers of ten that a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = (0...22).map { power in (0..<power).reduce(1.0) { value, _ in value * 10 } }

    /// The value of a decimal field (``number(_:)``), or with `fractionOnly` of the digits after a point
    /// (`0.` and the field). A field of at most 15 digits, as every receiver writes, is its digits as a whole
    /// number divided by a power of ten: both are exact doubles, so the one division rounds correctly and gives
    /// the double nearest to the decimal, as `Double(_:)` does. Longer fields go through `Double(_:)`.
    private static func decimal(_ field: NMEAField, fractionOnly: Bool) -> Double? {
        var index = field.startIndex
        var negative = false
        if !fractionOnly, let sign = field.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            index += 1
        }
        var digits = 0
        var fractionDigits = 0
        var sawPoint = fractionOnly
        var whole: UInt64 = 0
        while index < field.endIndex {
            let byte = field[index]
            if isDigit(byte) {
                digits += 1
                if sawPoint { fractionDigits += 1 }
                // Past 15 digits the whole number may not be an exact double; it is not needed then.
                if digits <= 15 { whole = whole * 10 + UInt64(byte - 48) }
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        guard digits <= 15 else {
            let text = String(decoding: field, as: UTF8.self)
            return fractionOnly ? Double("0." + text) : Double(text)
        }
        let value = Double(whole) / exactPowersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// A whole-number field: an optional sign and at most nine digits (no receiver's count, index or year
    /// is longer), so that sums of such fields cannot overflow. The caller checks the range.
    static func integer(_ field: NMEAField) -> Int? {
        var digits = field[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var value = 0
        for digit in digits {
            guard isDigit(digit) else { return nil }
            value = value * 10 + Int(digit - 48)
        }
        return negative ? -value : value
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
}

/// Conversions between what receivers report and navd's accuracy convention (a 68% radius, see
/// docs/conventions.md).
public enum NMEAAccuracy {
    /// User equivalent range error assumed when a receiver reports only HDOP, metres (one sigma): a typical
    /// figure for a single-frequency receiver in open sky.
    public static let userEquivalentRangeError = 4.0

    /// HDOP assumed for a receiver that reports neither GST nor HDOP (RMC-only receivers): 2, a fair figure for
    /// a receiver that still has a fix (navd's accuracy-scaled thresholds then treat it as about 8.5 m).
    public static let assumedHDOP = 2.0

    /// 68% radius ÷ DRMS for a circular two-dimensional normal distribution: 1.5096σ / (√2 σ).
    static let radius68PerDRMS = 1.5096 / 2.0.squareRoot()

    /// 68% radius from HDOP: DRMS = HDOP × UERE, then the 68% radius. About 4.27 m per unit of HDOP.
    public static func accuracy68(hdop: Double) -> Double {
        hdop * userEquivalentRangeError * radius68PerDRMS
    }

    /// The HDOP that ``accuracy68(hdop:)`` maps to `accuracy`.
    public static func hdop(forAccuracy68 accuracy: Double) -> Double {
        accuracy / (userEquivalentRangeError * radius68PerDRMS)
    }

    /// 68% radius from GST's one-sigma latitude and longitude errors (metres).
    public static func accuracy68(latitudeSigma: Double, longitudeSigma: Double) -> Double {
        1.5096 * ((latitudeSigma * latitudeSigma + longitudeSigma * longitudeSigma) / 2).squareRoot()
    }
}

/// GPS week rollover: receivers whose week counter wrapped report dates 1024 weeks (19.6 years) in the past.
public enum GPSWeekRollover: Hashable, Sendable {
    /// Report dates as the receiver sent them.
    case none
    /// Add 1024 weeks to any date before `notBefore` (repeatedly, for receivers two rollovers behind).
    case correct(notBefore: Date)

    /// gpsd 3.22's rule: dates before 2017-01-01 (its most recent leap second) are rollover victims.
    public static let gpsdDefault = GPSWeekRollover.correct(notBefore: Date(timeIntervalSince1970: 1_483_228_800))

    static let period = 1024.0 * 7 * 86_400

    public func apply(to date: Date) -> Date {
        guard case .correct(let notBefore) = self else { return date }
        var corrected = date
        var guardCount = 0
        while corrected < notBefore, guardCount < 4 {
            corrected += Self.period
            guardCount += 1
        }
        return corrected
    }
}
