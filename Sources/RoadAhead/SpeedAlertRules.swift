import NavigationCore

/// When navd raises a speed alert (`[speed_alert]` in navd.toml). Tolerances are in the limit's own unit (km/h, or
/// mph where the road's limit is posted in mph) below `bandLimit`, and percentages of the limit at and above it: a
/// driver reads "+10 over" on town roads and "+10 %" on motorways.
public struct SpeedAlertRules: Hashable, Sendable {
    /// False: no speed alert is ever raised (the level stays `none`).
    public var enabled = true
    /// The limit, in its unit, from which the tolerances are percentages.
    public var bandLimit = 100.0
    /// Minor alert: over the limit by more than this (limit's unit) below `bandLimit`…
    public var minorOver = 10.0
    /// …and by more than this percentage of the limit at and above it.
    public var minorOverPercent = 10.0
    /// Major alert: over the limit by more than this (limit's unit) below `bandLimit`…
    public var majorOver = 20.0
    /// …and by more than this percentage at and above it.
    public var majorOverPercent = 20.0
    /// Seconds (by fix time) a speed must stay over a level's threshold before that level is raised: a moment's
    /// overtaking or a Doppler spike is not speeding.
    public var hold = 2.0
    /// Hysteresis, in the limit's unit: a level clears only when the speed is this far under its threshold, so a
    /// speed hovering at the threshold does not flap.
    public var clearMargin = 3.0
    /// The slow-down warning comes this many seconds of driving before a lower limit begins…
    public var aheadSeconds = 5.0
    /// …and never later than this many metres before it.
    public var aheadMinimum = 100.0

    public init() {}

    /// Metres before a lower limit at which the slow-down warning comes, at `speed` metres per second.
    public func warningDistance(speed: Double) -> Double { max(aheadMinimum, max(0, speed) * aheadSeconds) }

    /// The speed, in the limit's unit, above which `level` applies on a road limited to `limit` (its unit).
    public func threshold(_ level: SpeedAlert.Level, limit: Double) -> Double {
        let percentBand = limit >= bandLimit
        switch level {
        case .none: return 0
        case .minor: return limit + (percentBand ? limit * minorOverPercent / 100 : minorOver)
        case .major: return limit + (percentBand ? limit * majorOverPercent / 100 : majorOver)
        }
    }

    /// The level a speed (limit's unit) is over, with no hold and no hysteresis.
    public func level(speed: Double, limit: Double) -> SpeedAlert.Level {
        if speed > threshold(.major, limit: limit) { return .major }
        if speed > threshold(.minor, limit: limit) { return .minor }
        return .none
    }
}
