import FoundationEssentials
import Glibc

/// Direction of travel over the ground.
public struct CourseOverGround: Hashable, Sendable, Codable {
    /// Degrees clockwise from true north, in 0..<360.
    public var degrees: Double
    /// Uncertainty in degrees (68% convention), when the source reports one.
    public var accuracy: Double?

    public init(degrees: Double, accuracy: Double? = nil) {
        let normalized = degrees.truncatingRemainder(dividingBy: 360)
        self.degrees = normalized < 0 ? normalized + 360 : normalized
        self.accuracy = accuracy
    }
}

/// Speed over the ground.
public struct Speed: Hashable, Sendable, Codable {
    /// Metres per second, never negative.
    public var metersPerSecond: Double
    /// Uncertainty in metres per second (68% convention), when known.
    public var accuracy: Double?

    public init(metersPerSecond: Double, accuracy: Double? = nil) {
        self.metersPerSecond = max(0, metersPerSecond)
        self.accuracy = accuracy
    }
}

/// One position fix of the vehicle, from any source (gpsd, serial NMEA, replay, simulation).
///
/// Accuracy convention: every accuracy in navd is a **68% (one-sigma) radius** in metres, the
/// convention phones use. gpsd and most receivers report 95% estimates; convert them with
/// ``UserLocation/accuracy68(fromConfidence95:)`` before building a `UserLocation`.
///
/// JSON form (one object per line in track files):
/// `{"lat":60.17,"lon":24.94,"accuracy":4.2,"course":87,"courseAccuracy":5,"speed":13.4,"speedAccuracy":0.3,"time":"2026-11-21T06:08:10.250Z"}`
public struct UserLocation: Hashable, Sendable {
    public var coordinate: GeographicCoordinate
    /// Horizontal accuracy in metres: radius of the 68% confidence circle. Never negative.
    public var horizontalAccuracy: Double
    /// Course over ground, absent when the source does not know it (e.g. standing still).
    public var course: CourseOverGround?
    /// Speed over ground, absent when unknown.
    public var speed: Speed?
    /// When the fix was taken (receiver time, UTC). The core never reads a clock: time enters here.
    public var timestamp: Date

    public init(
        coordinate: GeographicCoordinate, horizontalAccuracy: Double, course: CourseOverGround? = nil,
        speed: Speed? = nil, timestamp: Date
    ) {
        self.coordinate = coordinate
        self.horizontalAccuracy = max(0, horizontalAccuracy)
        self.course = course
        self.speed = speed
        self.timestamp = timestamp
    }

    /// Ratio between the radius of a 68% and a 95% circle of a circular two-dimensional normal
    /// distribution: sqrt(-2 ln 0.32) / sqrt(-2 ln 0.05) = 1.5096 / 2.4477 = 0.6167.
    public static let confidence95To68Ratio = 0.6167

    /// Converts a 95% horizontal error estimate (what gpsd calls `eph`), metres, to navd's 68% convention, metres.
    public static func accuracy68(fromConfidence95 value: Double) -> Double {
        value * confidence95To68Ratio
    }
    /// Ground speed, metres per second, below which a receiver's course means nothing (it is the direction of the
    /// position noise, or the course held from before the vehicle stopped): 3 m/s, about 11 km/h. Below it the
    /// course is not used to match, to tell a wrong way, to shape a route request, or to place the reroute origin.
    public static let minimumSpeedForCourse = 3.0

    /// This fix without its course unless the vehicle moves at ``minimumSpeedForCourse`` or faster.
    public func withCourseOnlyWhenMoving() -> UserLocation {
        guard course != nil, (speed?.metersPerSecond ?? 0) < Self.minimumSpeedForCourse else { return self }
        var location = self
        location.course = nil
        return location
    }
}

extension UserLocation: Codable {
    private enum CodingKeys: String, CodingKey {
        case lat, lon, accuracy, course, courseAccuracy, speed, speedAccuracy, time
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        coordinate = GeographicCoordinate(
            latitude: try c.decode(Double.self, forKey: .lat), longitude: try c.decode(Double.self, forKey: .lon))
        horizontalAccuracy = max(0, try c.decodeIfPresent(Double.self, forKey: .accuracy) ?? 0)
        if let degrees = try c.decodeIfPresent(Double.self, forKey: .course) {
            course = CourseOverGround(degrees: degrees, accuracy: try c.decodeIfPresent(Double.self, forKey: .courseAccuracy))
        }
        if let value = try c.decodeIfPresent(Double.self, forKey: .speed) {
            speed = Speed(metersPerSecond: value, accuracy: try c.decodeIfPresent(Double.self, forKey: .speedAccuracy))
        }
        let text = try c.decode(String.self, forKey: .time)
        guard let date = ISO8601Timestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: c, debugDescription: "'\(text)' is not an ISO 8601 UTC time such as 2026-11-21T06:08:10.25Z")
        }
        timestamp = date
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate.latitude, forKey: .lat)
        try c.encode(coordinate.longitude, forKey: .lon)
        try c.encode(horizontalAccuracy, forKey: .accuracy)
        try c.encodeIfPresent(course?.degrees, forKey: .course)
        try c.encodeIfPresent(course?.accuracy, forKey: .courseAccuracy)
        try c.encodeIfPresent(speed?.metersPerSecond, forKey: .speed)
        try c.encodeIfPresent(speed?.accuracy, forKey: .speedAccuracy)
        try c.encode(ISO8601Timestamp.format(timestamp), forKey: .time)
    }
}
