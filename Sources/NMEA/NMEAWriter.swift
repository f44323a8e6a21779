import Foundation
import NavigationCore

/// Writes fixes as NMEA 0183 sentences (RMC and GGA with the GP talker), as a simple receiver would send them.
public enum NMEAWriter {
    /// `$GPRMC` and `$GPGGA` for one fix, each with its checksum, without line endings.
    public static func sentences(for fix: UserLocation) -> [String] {
        let date = fix.timestamp
        let seconds = date.timeIntervalSince1970
        let dayMillis = Int64((seconds * 1000).rounded()) % 86_400_000
        let (year, month, day) = ISO8601Timestamp.civilFromDays(Int64((seconds / 86_400).rounded(.down)))
        let time = String(
            format: "%02d%02d%02d.%02d", Int(dayMillis / 3_600_000), Int(dayMillis / 60_000 % 60), Int(dayMillis / 1000 % 60),
            Int(dayMillis % 1000 / 10))
        let dateField = String(format: "%02d%02d%02d", Int(day), Int(month), Int(year % 100))
        let (lat, ns) = angle(fix.coordinate.latitude, degreesWidth: 2, positive: "N", negative: "S")
        let (lon, ew) = angle(fix.coordinate.longitude, degreesWidth: 3, positive: "E", negative: "W")
        let knots = (fix.speed?.metersPerSecond ?? 0) / 0.514444
        let course = fix.course.map { String(format: "%.1f", $0.degrees) } ?? ""
        let hdop = max(0.5, NMEAAccuracy.hdop(forAccuracy68: fix.horizontalAccuracy))
        let rmc = "GPRMC,\(time),A,\(lat),\(ns),\(lon),\(ew),\(String(format: "%.2f", knots)),\(course),\(dateField),,,A"
        let gga = "GPGGA,\(time),\(lat),\(ns),\(lon),\(ew),1,08,\(String(format: "%.1f", hdop)),10.0,M,18.0,M,,"
        return [rmc, gga].map { "$\($0)*\(checksum($0))" }
    }

    /// XOR of the bytes between `$` and `*`, as two upper-case hex digits.
    public static func checksum(_ body: String) -> String {
        String(format: "%02X", body.utf8.reduce(0) { $0 ^ $1 })
    }

    /// `ddmm.mmmmmm` (or `dddmm.mmmmmm`) and the hemisphere letter.
    static func angle(_ value: Double, degreesWidth: Int, positive: String, negative: String) -> (String, String) {
        let absolute = abs(value)
        var degrees = Int(absolute)
        var minutes = (absolute - Double(degrees)) * 60
        if (minutes * 1_000_000).rounded() >= 60_000_000 {
            degrees += 1
            minutes = 0
        }
        let text = String(format: "%0\(degreesWidth)d%09.6f", degrees, minutes)
        return (text, value < 0 ? negative : positive)
    }
}
