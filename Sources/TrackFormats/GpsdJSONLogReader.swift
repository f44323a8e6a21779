import FoundationEssentials
import Glibc
import NavigationCore

/// Reads gpsd JSON logs (`gpspipe -w` output): one JSON object per line; TPV reports become readings, every other
/// class (VERSION, DEVICES, WATCH, SKY, ...) is skipped. SKY reports fill in satellite counts and HDOP.
public enum GpsdJSONLogReader {
    public static func read(_ data: Data) throws(TrackReadError) -> [GNSSReading] {
        var readings: [GNSSReading] = []
        var satellitesUsed: Int?
        var satellitesInView: Int?
        var hdop: Double?
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { $0 > 32 }) else { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(line)
            } catch {
                throw .invalidJSON("line \(lineNumber): \(error)")
            }
            // Every number passes CheckedNumber with its physical range; a TPV with one outside is no fix, as
            // gpsd's live reports are (GpsdSource).
            var check = RangeCheck()
            switch value["class"]?.stringValue {
            case "SKY":
                hdop = check.measure(value["hdop"], in: PhysicalRange.hdop) ?? hdop
                if let satellites = value["satellites"]?.arrayValue {
                    satellitesInView = satellites.count
                    satellitesUsed = satellites.filter { $0["used"]?.boolValue == true }.count
                }
                if let used = check.whole(value["uSat"], in: PhysicalRange.satelliteCount) { satellitesUsed = used }
                if let seen = check.whole(value["nSat"], in: PhysicalRange.satelliteCount) { satellitesInView = seen }
            case "TPV":
                // A mode of 1e30 used to trap converting to Int (found by fuzzing).
                let mode = GNSSFixMode(rawValue: CheckedNumber.whole(value["mode"], in: 0...3) ?? 1) ?? .noFix
                let time = value["time"]?.stringValue.flatMap(ISO8601Timestamp.parse)
                let accuracy = check.measure(value["eph"], in: PhysicalRange.accuracy).map(UserLocation.accuracy68(fromConfidence95:))
                let quality = GNSSQuality(
                    mode: mode, satellitesUsed: satellitesUsed, satellitesInView: satellitesInView, hdop: hdop,
                    horizontalAccuracy: accuracy, altitude: check.measure(value["altMSL"], in: PhysicalRange.altitude) ?? check.measure(value["alt"], in: PhysicalRange.altitude),
                    // gpsd's status 5 (STATUS_DR): the receiver dead-reckoned the fix; gpsd omits status on a plain fix.
                    estimated: CheckedNumber.whole(value["status"], in: 0...99) == 5)
                let lat = check.measure(value["lat"], in: -90...90)
                let lon = check.measure(value["lon"], in: -180...180)
                let track = check.measure(value["track"], in: PhysicalRange.course)
                let speed = check.measure(value["speed"], in: PhysicalRange.speed)
                guard !check.failed, mode >= .twoDimensional, let lat, let lon, let time else {
                    readings.append(.noFix(quality, time: time))
                    continue
                }
                let location = UserLocation(
                    coordinate: GeographicCoordinate(latitude: lat, longitude: lon), horizontalAccuracy: accuracy ?? 10,
                    course: track.map { CourseOverGround(degrees: $0) }, speed: speed.map { Speed(metersPerSecond: $0) }, timestamp: time)
                readings.append(.fix(GNSSFix(location: location, quality: quality)))
            default:
                continue
            }
        }
        return readings
    }
}
