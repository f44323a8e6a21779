import FoundationEssentials
import Glibc
import NavigationCore

/// Reading NMEA field formats. Every reader returns nil for an empty or malformed field.
enum NMEAFields {
    /// `hhmmss` or `hhmmss.sss` → seconds since midnight (UTC).
    static func timeOfDay(_ field: Substring) -> Double? {
        let bytes = Array(field.utf8)
        guard bytes.count >= 6, bytes[0..<6].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let hours = Int(bytes[0] - 48) * 10 + Int(bytes[1] - 48)
        let minutes = Int(bytes[2] - 48) * 10 + Int(bytes[3] - 48)
        let seconds = Int(bytes[4] - 48) * 10 + Int(bytes[5] - 48)
        guard hours < 24, minutes < 60, seconds < 61 else { return nil }
        var fraction = 0.0
        if bytes.count > 6 {
            // Digits only after the point: Double("0.1e20") would read an exponent that no receiver writes.
            guard bytes[6] == UInt8(ascii: "."), bytes.count > 7, bytes[7...].allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Double("0" + String(field.dropFirst(6)))
            else { return nil }
            fraction = value
        }
        return Double(hours * 3600 + minutes * 60 + seconds) + fraction
    }

    /// `ddmmyy` → (year, month, day); two-digit years 80...99 are 1980...1999, 00...79 are 2000...2079
    /// (GPS time starts in 1980).
    static func date(_ field: Substring) -> (year: Int, month: Int, day: Int)? {
        let bytes = Array(field.utf8)
        guard bytes.count == 6, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        let day = Int(bytes[0] - 48) * 10 + Int(bytes[1] - 48)
        let month = Int(bytes[2] - 48) * 10 + Int(bytes[3] - 48)
        let yy = Int(bytes[4] - 48) * 10 + Int(bytes[5] - 48)
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        return (yy >= 80 ? 1900 + yy : 2000 + yy, month, day)
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` with a hemisphere letter → signed degrees.
    static func angle(_ field: Substring, hemisphere: Substring, degreeDigits: Int, positive: Character, negative: Character) -> Double? {
        guard field.count > degreeDigits + 1, let h = hemisphere.first, h == positive || h == negative else { return nil }
        let degreesText = field.prefix(degreeDigits)
        let minutesText = field.dropFirst(degreeDigits)
        guard degreesText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let degrees = Double(degreesText), let minutes = number(minutesText),
            minutes >= 0, minutes < 60
        else { return nil }
        let value = degrees + minutes / 60
        return h == negative ? -value : value
    }

    static func latitude(_ field: Substring, _ hemisphere: Substring) -> Double? {
        angle(field, hemisphere: hemisphere, degreeDigits: 2, positive: "N", negative: "S").flatMap { abs($0) <= 90 ? $0 : nil }
    }

    static func longitude(_ field: Substring, _ hemisphere: Substring) -> Double? {
        angle(field, hemisphere: hemisphere, degreeDigits: 3, positive: "E", negative: "W").flatMap { abs($0) <= 180 ? $0 : nil }
    }

    /// A decimal field as NMEA writes it: an optional sign, digits, an optional point and more digits, at least
    /// one digit in all. nil for anything else: `Double(_:)` alone would also read exponents (`1e300`), `inf`,
    /// `nan` and hexadecimal, which no receiver writes and line noise can. The caller checks the range.
    static func number(_ field: Substring) -> Double? {
        guard isDecimal(field.utf8) else { return nil }
        return Double(field)
    }

    /// A whole-number field: an optional sign and at most nine digits (no receiver's count, index or year
    /// is longer), so that sums of such fields cannot overflow. The caller checks the range.
    static func integer(_ field: Substring) -> Int? {
        let sign = field.utf8.first
        let digits = sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") ? field.utf8.dropFirst() : field.utf8[...]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(field)
    }

    static func isDecimal(_ bytes: Substring.UTF8View) -> Bool {
        var digits = 0
        var sawPoint = false
        for (offset, byte) in bytes.enumerated() {
            switch byte {
            case 48...57: digits += 1
            case UInt8(ascii: "."): guard !sawPoint else { return false }; sawPoint = true
            case UInt8(ascii: "-"), UInt8(ascii: "+"): guard offset == 0 else { return false }
            default: return false
            }
        }
        return digits > 0
    }
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
