/// Short human-readable forms of distances and durations for terminals and status lines.
public enum HumanReadable {
    /// "40 m", "850 m", "1.2 km", "12 km". Distances in metres; below 1 km rounded to 10 m (5 m below 100 m).
    public static func distance(_ meters: Double) -> String {
        RoundedDistance(meters).description
    }

    /// A distance rounded as ``distance(_:)`` writes it, before it is text: two distances with the same rounding have
    /// the same text, so a status line can tell that its text would not change without writing it.
    public enum RoundedDistance: Hashable, Sendable, CustomStringConvertible {
        /// Not a finite number of metres.
        case unknown
        /// Whole metres: multiples of 5 below 100 m, of 10 below 995 m.
        case meters(Int)
        /// Tenths of a kilometre, from 995 m to 9.95 km.
        case kilometerTenths(Int)
        case kilometers(Int)

        public init(_ meters: Double) {
            guard meters.isFinite else {
                self = .unknown
                return
            }
            let m = max(0, meters)
            if m < 100 {
                self = .meters(CheckedNumber.clampedWhole(m / 5) * 5)
            } else if m < 995 {
                self = .meters(CheckedNumber.clampedWhole(m / 10) * 10)
            } else if m < 9_950 {
                self = .kilometerTenths(CheckedNumber.clampedWhole(m / 1000 * 10))  // 10 ... 99, half away from zero
            } else {
                self = .kilometers(CheckedNumber.clampedWhole(m / 1000))
            }
        }

        public var description: String {
            switch self {
            case .unknown: "?"
            case .meters(let meters): "\(meters) m"
            case .kilometerTenths(let tenths): "\(tenths / 10).\(tenths % 10) km"
            case .kilometers(let kilometers): "\(kilometers) km"
            }
        }
    }

    /// "45 s", "3 min", "1 h 05 min". Durations in seconds.
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        let s = CheckedNumber.clampedWhole(seconds, in: 0...(1 << 53))
        if s < 60 { return "\(s) s" }
        let minutes = (s + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        let m = minutes % 60
        return "\(minutes / 60) h \(m < 10 ? "0" : "")\(m) min"
    }
}
