import FoundationEssentials
import NavigationCore

/// What one fix tells the speed alert: the vehicle's speed as the receiver vouches for it, the limit in force where
/// the vehicle is, and the first lower limit ahead that the speed is over.
public struct SpeedObservation: Sendable {
    /// The fix's time (hold times are measured in fix time, never the wall clock).
    public var time: Date
    /// Speed over ground from the receiver (Doppler), metres per second; nil when no fix vouches for one (no fix,
    /// a fix without speed, a predicted state during an outage). Without it there is no alert.
    public var speed: Double?
    /// The posted limit in force; nil where none is known (off the route, no annotation, free drive without a match).
    public var limit: (value: Double, unit: SpeedUnit)?
    /// The first lower limit ahead and the metres to it, when the caller found one within the warning distance.
    public var ahead: (value: Double, unit: SpeedUnit, distance: Double)?

    public init(time: Date, speed: Double?, limit: (value: Double, unit: SpeedUnit)?, ahead: (value: Double, unit: SpeedUnit, distance: Double)? = nil) {
        self.time = time
        self.speed = speed
        self.limit = limit
        self.ahead = ahead
    }
}

/// Decides the speed alert fix by fix, with a hold before raising and hysteresis before clearing. Pure: a value
/// that observations update; the caller publishes ``alert`` (every state) and a `speed_alert` event whenever
/// ``update(_:)`` says it changed.
///
/// - A level is raised once the speed has stayed over its threshold for ``SpeedAlertRules/hold`` seconds, and
///   drops (to the level the speed is still over) once the speed is ``SpeedAlertRules/clearMargin`` under it.
/// - The slow-down warning (``SpeedAlert/lowerLimitAhead``) is on while a lower limit begins within the warning
///   distance and the speed is over that limit's minor threshold; it needs no hold (the limit comes at a fixed
///   place, and waiting would make the warning late).
/// - Without a vouched speed or a known limit the level is `none` at once: an alert is never raised, nor kept,
///   on a speed the receiver does not vouch for.
public struct SpeedAlertTracker: Sendable {
    public var rules: SpeedAlertRules
    /// The alert as it stands after the last observation.
    public private(set) var alert = SpeedAlert.silent
    /// Fix times since which the speed has been over the minor and the major threshold without a break.
    private var minorSince: Date?
    private var majorSince: Date?

    public init(rules: SpeedAlertRules = SpeedAlertRules()) {
        self.rules = rules
    }

    /// Takes one observation; true when the level or the slow-down warning changed (a `speed_alert` event is due).
    @discardableResult
    public mutating func update(_ observation: SpeedObservation) -> Bool {
        let before = alert
        let unit = observation.limit?.unit ?? .kilometersPerHour
        guard rules.enabled, let metres = observation.speed, let limit = observation.limit else {
            alert = SpeedAlert(
                level: .none, limit: rules.enabled ? observation.limit?.value : nil, unit: unit.rawValue,
                speed: observation.speed.map { Self.rounded($0 / unit.metersPerSecond) })
            minorSince = nil
            majorSince = nil
            return Self.isChange(before, alert)
        }
        let speed = metres / unit.metersPerSecond
        let time = observation.time
        minorSince = speed > rules.threshold(.minor, limit: limit.value) ? (minorSince ?? time) : nil
        majorSince = speed > rules.threshold(.major, limit: limit.value) ? (majorSince ?? time) : nil
        func held(_ since: Date?) -> Bool { since.map { time.timeIntervalSince($0) >= rules.hold - 0.001 } ?? false }
        // Rising: only after the hold.
        var level = before.level
        if held(majorSince) {
            level = .major
        } else if held(minorSince), level < .minor {
            level = .minor
        }
        // Falling: one level at a time, each once the speed is the clear margin under that level's threshold.
        while level > .none, speed < rules.threshold(level, limit: limit.value) - rules.clearMargin {
            level = level == .major ? .minor : .none
        }
        var warning: SpeedAlert.LimitAhead?
        if let ahead = observation.ahead {
            let speedThere = metres / ahead.unit.metersPerSecond
            let lower = ahead.value * ahead.unit.metersPerSecond < limit.value * unit.metersPerSecond
            if lower, speedThere > rules.threshold(.minor, limit: ahead.value) {
                warning = SpeedAlert.LimitAhead(limit: ahead.value, unit: ahead.unit.rawValue, distance: Self.rounded(ahead.distance))
            }
        }
        alert = SpeedAlert(level: level, limit: limit.value, unit: unit.rawValue, speed: Self.rounded(speed), lowerLimitAhead: warning)
        return Self.isChange(before, alert)
    }

    /// The limit the alert was judged on no longer applies (the trip that gave it ended): the level and the
    /// slow-down warning drop at once and the holds start again; a new limit (free drive's, the next trip's) is
    /// judged afresh. True when clients must hear of it.
    @discardableResult
    public mutating func limitEnded() -> Bool {
        let before = alert
        alert = SpeedAlert(level: .none, limit: nil, unit: before.unit, speed: before.speed)
        minorSince = nil
        majorSince = nil
        return Self.isChange(before, alert)
    }

    /// A change clients must hear of: the level, the limit it is judged on, or the slow-down warning (its start,
    /// end, or another lower limit), not the speed or the distance, which every `trip_state` carries.
    static func isChange(_ a: SpeedAlert, _ b: SpeedAlert) -> Bool {
        a.level != b.level || (a.level != .none && (a.limit != b.limit || a.unit != b.unit))
            || a.lowerLimitAhead?.limit != b.lowerLimitAhead?.limit || (a.lowerLimitAhead == nil) != (b.lowerLimitAhead == nil)
    }

    /// Tenths are plenty for a speed shown to a driver.
    static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

extension SpeedAlertTracker {
    /// What the tracker remembers between fixes, for a recording that starts mid-run (its replay starts from it).
    /// Times as seconds since 2001-01-01 UTC.
    public struct Memory: Codable, Sendable, Equatable {
        public var alert: SpeedAlert
        public var minorSince: Double?
        public var majorSince: Double?
    }

    public var memory: Memory {
        Memory(alert: alert, minorSince: minorSince?.timeIntervalSinceReferenceDate, majorSince: majorSince?.timeIntervalSinceReferenceDate)
    }

    /// A tracker that remembers `memory` (a replay's start).
    public init(rules: SpeedAlertRules, memory: Memory) {
        self.init(rules: rules)
        alert = memory.alert
        minorSince = memory.minorSince.map(Date.init(timeIntervalSinceReferenceDate:))
        majorSince = memory.majorSince.map(Date.init(timeIntervalSinceReferenceDate:))
    }
}
