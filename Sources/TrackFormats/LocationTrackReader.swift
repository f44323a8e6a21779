import FoundationEssentials
import Glibc
import NavigationCore

/// Reads a track of fixes for replay: JSON Lines of ``UserLocation`` (what `navctl simulate` writes), or GPX.
/// GPX points without times are taken 1 s apart; course and speed are derived from consecutive points.
public enum LocationTrackReader {
    /// Accuracy given to GPX points, which carry none, metres (68%).
    public static let gpxAccuracy = 5.0

    public static func read(_ data: Data) throws(TrackReadError) -> [UserLocation] {
        guard let first = data.first(where: { $0 > 32 }) else { throw .empty }
        if first == UInt8(ascii: "{") { return try readJSONLines(data) }
        return fixes(from: try TrackReader.read(data))
    }

    static func readJSONLines(_ data: Data) throws(TrackReadError) -> [UserLocation] {
        let decoder = JSONDecoder()
        var fixes: [UserLocation] = []
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { $0 > 32 }) else { continue }
            let fix: UserLocation
            do {
                fix = try decoder.decode(UserLocation.self, from: Data(line))
            } catch {
                throw .invalidJSON("line \(lineNumber): \(Self.describe(error))")
            }
            // Found by fuzzing: a fix off the globe used to be replayed as if it were one.
            guard fix.coordinate.isValid else { throw .invalidJSON("line \(lineNumber): lat/lon is outside the world") }
            fixes.append(fix)
        }
        guard !fixes.isEmpty else { throw .empty }
        return fixes
    }

    /// Fixes from plain track points.
    public static func fixes(from points: [TrackPoint]) -> [UserLocation] {
        let start = Date(timeIntervalSince1970: 1_795_241_290)
        var fixes: [UserLocation] = []
        for (i, point) in points.enumerated() {
            let time = point.timestamp ?? start.addingTimeInterval(Double(i))
            var course: CourseOverGround?
            var speed: Speed?
            if i + 1 < points.count {
                let next = points[i + 1]
                let distance = Geodesy.distance(point.coordinate, next.coordinate)
                if distance > 0.5 { course = CourseOverGround(degrees: Geodesy.bearing(from: point.coordinate, to: next.coordinate)) }
                let dt = (next.timestamp ?? start.addingTimeInterval(Double(i + 1))).timeIntervalSince(time)
                if dt > 0 { speed = Speed(metersPerSecond: distance / dt) }
            } else if let previous = fixes.last {
                course = previous.course
                speed = Speed(metersPerSecond: 0)
            }
            fixes.append(UserLocation(coordinate: point.coordinate, horizontalAccuracy: gpxAccuracy, course: course, speed: speed, timestamp: time))
        }
        return fixes
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context): return context.debugDescription
        case .keyNotFound(let key, _): return "missing '\(key.stringValue)'"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "bad '\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
