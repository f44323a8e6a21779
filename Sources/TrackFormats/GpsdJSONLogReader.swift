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
            switch value["class"]?.stringValue {
            case "SKY":
                hdop = value["hdop"]?.doubleValue ?? hdop
                if let satellites = value["satellites"]?.arrayValue {
                    satellitesInView = satellites.count
                    satellitesUsed = satellites.filter { $0["used"]?.boolValue == true }.count
                }
                if let used = value["uSat"]?.intValue { satellitesUsed = used }
                if let seen = value["nSat"]?.intValue { satellitesInView = seen }
            case "TPV":
                // intValue: a mode of 1e30 used to trap converting to Int (found by fuzzing).
                let mode = GNSSFixMode(rawValue: value["mode"]?.intValue ?? 1) ?? .noFix
                let time = value["time"]?.stringValue.flatMap(ISO8601Timestamp.parse)
                let accuracy = value["eph"]?.doubleValue.map(UserLocation.accuracy68(fromConfidence95:))
                let quality = GNSSQuality(
                    mode: mode, satellitesUsed: satellitesUsed, satellitesInView: satellitesInView, hdop: hdop,
                    horizontalAccuracy: accuracy, altitude: value["altMSL"]?.doubleValue ?? value["alt"]?.doubleValue)
                // A position off the globe is no position (found by fuzzing: it used to become a fix).
                guard mode >= .twoDimensional, let lat = value["lat"]?.doubleValue, let lon = value["lon"]?.doubleValue, let time,
                    GeographicCoordinate(latitude: lat, longitude: lon).isValid
                else {
                    readings.append(.noFix(quality, time: time))
                    continue
                }
                let location = UserLocation(
                    coordinate: GeographicCoordinate(latitude: lat, longitude: lon), horizontalAccuracy: accuracy ?? 10,
                    course: value["track"]?.doubleValue.map { CourseOverGround(degrees: $0) },
                    speed: value["speed"]?.doubleValue.map { Speed(metersPerSecond: $0) }, timestamp: time)
                readings.append(.fix(GNSSFix(location: location, quality: quality)))
            default:
                continue
            }
        }
        return readings
    }
}
