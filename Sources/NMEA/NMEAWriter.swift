import FoundationEssentials
import Glibc
import NavigationCore

/// The sentences a receiver sends per epoch, in its order: the shapes of real receivers, for tests and demos.
public enum NMEAReceiverProfile: String, Hashable, Sendable, CaseIterable, Codable {
    /// RMC then GGA (most u-blox and SiRF defaults).
    case rmcThenGGA
    /// GGA then RMC (MediaTek-style receivers).
    case ggaFirst
    /// RMC alone: no HDOP, no altitude, no satellites.
    case rmcOnly
    /// GGA, GSA, GST, RMC, VTG: a survey-style receiver that reports its error estimate (GST) and ends on VTG.
    case withGST
}

/// Writes fixes as NMEA 0183 sentences with the GP talker, as a receiver of a given ``NMEAReceiverProfile`` would.
public enum NMEAWriter {
    /// One epoch's sentences for a fix, each with its checksum, without line endings. GST carries the fix's
    /// accuracy as equal latitude and longitude sigmas; HDOP is the one that maps to it.
    public static func sentences(for fix: UserLocation, profile: NMEAReceiverProfile) -> [String] {
        let plain = sentences(for: fix)
        let (rmc, gga) = (plain[0], plain[1])
        switch profile {
        case .rmcThenGGA: return plain
        case .ggaFirst: return [gga, rmc]
        case .rmcOnly: return [rmc]
        case .withGST:
            let time = gga.split(separator: ",")[1]
            let sigma = fix.horizontalAccuracy / 1.5096
            let gst = "GPGST,\(time),\(String(cFormat: "%.1f", sigma)),,,,\(String(cFormat: "%.2f", sigma)),\(String(cFormat: "%.2f", sigma)),3.0"
            let hdop = max(0.5, NMEAAccuracy.hdop(forAccuracy68: fix.horizontalAccuracy))
            let gsa = "GPGSA,A,3,01,03,06,11,14,17,19,22,,,,,\(String(cFormat: "%.1f", hdop * 1.6)),\(String(cFormat: "%.1f", hdop)),1.2"
            let knots = (fix.speed?.metersPerSecond ?? 0) / 0.514444
            let course = fix.course.map { String(cFormat: "%.1f", $0.degrees) } ?? ""
            let vtg = "GPVTG,\(course),T,,M,\(String(cFormat: "%.2f", knots)),N,\(String(cFormat: "%.2f", knots * 1.852)),K,A"
            return [gga] + [gsa, gst].map(withChecksum) + [rmc] + [withChecksum(vtg)]
        }
    }

    static func withChecksum(_ body: String) -> String { "$\(body)*\(checksum(body))" }

    /// `$GPRMC` and `$GPGGA` for one fix, each with its checksum, without line endings.
    public static func sentences(for fix: UserLocation) -> [String] {
        let date = fix.timestamp
        let seconds = date.timeIntervalSince1970
        // Held to the years 0 to 9999, as ISO8601Timestamp.format does: writing never traps.
        let millis = Int64(CheckedNumber.clampedWhole(seconds * 1000, in: ISO8601Timestamp.formattableMillis))
        let dayMillis = ((millis % 86_400_000) + 86_400_000) % 86_400_000
        let (year, month, day) = ISO8601Timestamp.civilFromDays((millis - dayMillis) / 86_400_000)
        let time = String(
            cFormat: "%02ld%02ld%02ld.%02ld", Int(dayMillis / 3_600_000), Int(dayMillis / 60_000 % 60), Int(dayMillis / 1000 % 60),
            Int(dayMillis % 1000 / 10))
        let dateField = String(cFormat: "%02ld%02ld%02ld", Int(day), Int(month), Int(year % 100))
        let (lat, ns) = angle(fix.coordinate.latitude, degreesWidth: 2, positive: "N", negative: "S")
        let (lon, ew) = angle(fix.coordinate.longitude, degreesWidth: 3, positive: "E", negative: "W")
        let knots = (fix.speed?.metersPerSecond ?? 0) / 0.514444
        let course = fix.course.map { String(cFormat: "%.1f", $0.degrees) } ?? ""
        let hdop = max(0.5, NMEAAccuracy.hdop(forAccuracy68: fix.horizontalAccuracy))
        let rmc = "GPRMC,\(time),A,\(lat),\(ns),\(lon),\(ew),\(String(cFormat: "%.2f", knots)),\(course),\(dateField),,,A"
        let gga = "GPGGA,\(time),\(lat),\(ns),\(lon),\(ew),1,08,\(String(cFormat: "%.1f", hdop)),10.0,M,18.0,M,,"
        return [rmc, gga].map { "$\($0)*\(checksum($0))" }
    }

    /// XOR of the bytes between `$` and `*`, as two upper-case hex digits.
    public static func checksum(_ body: String) -> String {
        String(cFormat: "%02X", UInt32(body.utf8.reduce(0) { $0 ^ $1 }))
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
        let text = String(cFormat: "%0\(degreesWidth)ld%09.6f", degrees, minutes)
        return (text, value < 0 ? negative : positive)
    }
}
