import FoundationEssentials
import Glibc

/// What kind of solution the receiver has.
public enum GNSSFixMode: Int, Hashable, Sendable, Codable, Comparable {
    /// No position (or a stale one the receiver keeps repeating).
    case noFix = 1
    /// Latitude and longitude only.
    case twoDimensional = 2
    /// Latitude, longitude and altitude.
    case threeDimensional = 3

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// How good a fix is, as every source (gpsd, serial NMEA, replay) reports it.
public struct GNSSQuality: Hashable, Sendable, Codable {
    public var mode: GNSSFixMode
    /// Satellites used in the solution, when reported.
    public var satellitesUsed: Int?
    /// Satellites in view, when reported.
    public var satellitesInView: Int?
    /// Horizontal dilution of precision (unitless), when reported.
    public var hdop: Double?
    /// Mean signal strength (carrier-to-noise density, dB-Hz) of the satellites in view that report one, from GSV.
    public var averageSignalStrength: Double?
    /// Horizontal accuracy, metres, 68% radius (navd's convention), when it could be estimated.
    public var horizontalAccuracy: Double?
    /// Altitude above mean sea level, metres, when known.
    public var altitude: Double?
    /// True when the receiver says it estimated this fix itself (dead reckoning from its own sensors or its last
    /// motion: NMEA GGA quality 6 or mode indicator `E`, gpsd status DR). Its speed is the receiver's guess, not a
    /// measurement: navd raises no speed alert on it.
    public var estimated: Bool

    public init(
        mode: GNSSFixMode, satellitesUsed: Int? = nil, satellitesInView: Int? = nil, hdop: Double? = nil,
        averageSignalStrength: Double? = nil, horizontalAccuracy: Double? = nil, altitude: Double? = nil, estimated: Bool = false
    ) {
        self.estimated = estimated
        self.mode = mode
        self.satellitesUsed = satellitesUsed
        self.satellitesInView = satellitesInView
        self.hdop = hdop
        self.averageSignalStrength = averageSignalStrength
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
    }
}

/// One fix from a GNSS source: the location (for the controller) and its quality.
///
/// JSON form (`navctl gnss --json`): the location's keys, plus `mode`, `satellitesUsed`, `satellitesInView`,
/// `hdop`, `altitude`, and `age` (seconds since the fix was taken, when the source knows when it arrived).
public struct GNSSFix: Hashable, Sendable {
    public var location: UserLocation
    public var quality: GNSSQuality

    public init(location: UserLocation, quality: GNSSQuality) {
        self.location = location
        self.quality = quality
    }

    /// True for a fix the controller may use: 2D or 3D.
    public var hasPosition: Bool { quality.mode >= .twoDimensional }
}

/// What a GNSS source reports for one receiver cycle (epoch).
public enum GNSSReading: Hashable, Sendable {
    /// A position.
    case fix(GNSSFix)
    /// The receiver reports no usable position. `time`: the receiver's time of the epoch, when it said.
    case noFix(GNSSQuality, time: Date?)

    public var fix: GNSSFix? {
        if case .fix(let fix) = self { return fix }
        return nil
    }
}
