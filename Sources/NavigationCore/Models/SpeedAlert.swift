/// How the vehicle's speed stands against the posted limit, as navd reports it (`trip_state.speedAlert` and the
/// `speed_alert` event; the rules that decide it are RoadAhead's `SpeedAlertRules`). Speeds and limits are in the
/// limit's own unit (km/h, or mph where the road's limit is posted in mph).
public struct SpeedAlert: Hashable, Sendable, Codable {
    public enum Level: String, Hashable, Sendable, Codable, Comparable {
        /// At or under the limit and its tolerance, or no limit or no trustworthy speed known.
        case none
        /// Over the limit by more than the minor tolerance.
        case minor
        /// Over the limit by more than the major tolerance.
        case major

        private var rank: Int {
            switch self {
            case .none: 0
            case .minor: 1
            case .major: 2
            }
        }

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
    }

    /// A lower limit that begins ahead while the vehicle is over it.
    public struct LimitAhead: Hashable, Sendable, Codable {
        /// The lower limit, in `unit`.
        public var limit: Double
        /// `km/h` or `mph`.
        public var unit: String
        /// Metres from the vehicle to where the lower limit begins.
        public var distance: Double

        public init(limit: Double, unit: String, distance: Double) {
            self.limit = limit
            self.unit = unit
            self.distance = distance
        }
    }

    public var level: Level
    /// The posted limit in force, in `unit`; nil where none is known.
    public var limit: Double?
    /// `km/h` or `mph`: the unit of `limit`, `speed` and the tolerances.
    public var unit: String
    /// The vehicle's speed over ground as the receiver measured it (Doppler), in `unit`; nil without one.
    public var speed: Double?
    /// A lower limit ahead that the vehicle is over (the slow-down warning); nil otherwise.
    public var lowerLimitAhead: LimitAhead?

    public init(level: Level, limit: Double?, unit: String, speed: Double?, lowerLimitAhead: LimitAhead? = nil) {
        self.level = level
        self.limit = limit
        self.unit = unit
        self.speed = speed
        self.lowerLimitAhead = lowerLimitAhead
    }

    /// Nothing known, nothing to say.
    public static let silent = SpeedAlert(level: .none, limit: nil, unit: SpeedUnit.kilometersPerHour.rawValue, speed: nil)
}

extension SpeedAlert {
    /// One line for a person: "speed alert major: 82 km/h where the limit is 50 km/h", "slow down: 40 km/h in
    /// 120 m", "speed alert cleared" (navctl watch, the drive report).
    public var summary: String {
        func whole(_ value: Double?) -> String { value.map { "\(CheckedNumber.clampedWhole($0))" } ?? "?" }
        var parts: [String] = []
        if level != .none {
            parts.append("speed alert \(level.rawValue): \(whole(speed)) \(unit) where the limit is \(whole(limit)) \(unit)")
        }
        if let ahead = lowerLimitAhead {
            parts.append("slow down: \(whole(ahead.limit)) \(ahead.unit) in \(HumanReadable.distance(ahead.distance))")
        }
        return parts.isEmpty ? "speed alert cleared" : parts.joined(separator: "; ")
    }
}
