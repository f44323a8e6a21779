/// The ranges a number from outside may take where it has a physical meaning, for ``CheckedNumber``. A value
/// outside is not clamped: it is rejected at the boundary it came through (docs/reliability.md, "Numbers from
/// outside"). The bounds are generous: they keep out what no real receiver, server, client or config sends,
/// not what is merely unusual.
public enum PhysicalRange {
    /// Horizontal dilution of precision. NMEA writes it in a field of at most 99.99, which receivers also send
    /// for "no solution"; gpsd's DOP limit is the same.
    public static let hdop: ClosedRange<Double> = 0...99.99
    /// A position's error radius or a receiver's one-sigma error, metres: up to 100 km (a receiver with a
    /// wild fix still reports less than that; a larger figure is not a position at all).
    public static let accuracy: ClosedRange<Double> = 0...100_000
    /// Speed over ground, metres per second: up to the COCOM limit of 1000 knots (514.4 m/s), above which
    /// GNSS receivers stop reporting.
    public static let speed: ClosedRange<Double> = 0...514.5
    /// Course over ground, degrees clockwise from true north; 360 is sent by some receivers for north.
    public static let course: ClosedRange<Double> = 0...360
    /// Altitude above mean sea level, metres: from the Dead Sea shore's depth and below it, to the COCOM
    /// limit of 18 km with room to spare.
    public static let altitude: ClosedRange<Double> = -1_000...50_000
    /// A calendar year from a receiver: GPS time starts in 1980; two centuries on is beyond any receiver.
    public static let year: ClosedRange<Int> = 1980...2200
    /// Satellites used or in view, as one sentence or report states them (NMEA writes two digits per
    /// constellation; gpsd's MAXCHANNELS is 184).
    public static let satelliteCount: ClosedRange<Int> = 0...255
    /// Signal strength, dB-Hz (NMEA GSV: 0 to 99).
    public static let signalStrength: ClosedRange<Int> = 0...99
    /// A search or snapping radius a client gives, metres: a route point within 10 km.
    public static let radius: ClosedRange<Double> = 0...10_000
    /// A route's or a leg's or a step's length from a routing server, metres: up to 100 000 km (two and a half
    /// times round the equator, more than any road trip).
    public static let routeDistance: ClosedRange<Double> = 0...100_000_000
    /// A route's or a step's expected duration from a routing server, seconds: up to 100 days.
    public static let routeDuration: ClosedRange<Double> = 0...8_640_000
    /// A speed from a routing server (annotations, speed limits), metres per second or km/h: up to 1000.
    public static let routeSpeed: ClosedRange<Double> = 0...1_000
    /// Identifiers and counters navd writes into JSON and reads back (sessions, sequence numbers): whole
    /// numbers a JSON number holds exactly (2^53).
    public static let identifier: ClosedRange<Int> = 0...(1 << 53)
    /// A user or group id in the config: what uid_t and gid_t hold, less (uid_t)-1, which means "none".
    public static let systemID: ClosedRange<Int> = 0...4_294_967_294
    /// A time in seconds since 1970 from outside (a recording, a replayed fix): years 1970 to 2200.
    public static let unixTime: ClosedRange<Double> = 0...7_258_118_400
    /// The same years in seconds since 2001-01-01 (`Date`'s reference date, which recordings write).
    public static let referenceTime: ClosedRange<Double> = -978_307_200...6_279_811_200
    /// A duration navd wrote into a recording or a reply (a retry delay, a silence), seconds: up to 100 days.
    public static let recordedDuration: ClosedRange<Double> = 0...8_640_000
}
