import FoundationEssentials
import Glibc
import NavigationCore

/// How the arrival estimate follows the driver (docs/trip.md#arrival-time).
public struct ArrivalSettings: Sendable, Equatable {
    /// Seconds of driving over which the pace is averaged (exponentially weighted): long enough that one slow
    /// junction does not move the arrival, short enough that a jam shows within minutes.
    public var timeConstant = 300.0
    /// Seconds of expected driving the pace starts from at 1 (the engine's own estimate), so that the first
    /// minutes of a trip do not swing it.
    public var prior = 300.0
    /// Seconds of the route ahead the pace applies to; the rest is at the engine's speeds. A jam or a slow road
    /// says how the next minutes will go, not how a motorway an hour away will.
    public var paceHorizon = 1200.0
    /// The pace is kept within this range (actual seconds per expected second).
    public var paceRange = 0.5...2.0
    /// Metres per second under which the vehicle stands: standing time is not pace; it delays the arrival by
    /// itself, second for second, because the arrival is the fix time plus the time still to drive.
    public var standingSpeed = 1.0
    /// Seconds between two fixes beyond which the interval is a gap (an outage, a restart), not driving.
    public var longestInterval = 30.0

    public init() {}
}

/// The arrival a driver can trust: the engine's remaining duration (along the route, from the snapped position)
/// scaled by the driver's pace over the next twenty minutes of it, the pace being the ratio of the time actually
/// taken to the time the engine expected for the stretch driven, averaged over the last minutes of driving. The arrival is the fix's time plus that: it moves
/// forward by itself while the vehicle stands (a known defect of a peer: its estimate froze when stationary), and
/// the pace changes slowly, so the arrival does not jump from one fix to the next. Fix times only; no clock.
public struct ArrivalEstimator: Sendable {
    public var settings: ArrivalSettings
    /// Weighted seconds actually driven and expected for the same stretches.
    private var actual: Double
    private var expected: Double
    /// The last fix observed: its time and the engine's remaining duration then.
    private var last: (time: Date, remaining: Double)?

    public init(settings: ArrivalSettings = ArrivalSettings()) {
        self.settings = settings
        actual = settings.prior
        expected = settings.prior
    }

    /// Actual seconds per expected second, within ``ArrivalSettings/paceRange``.
    public var pace: Double {
        let ratio = expected > 0 ? actual / expected : 1
        return min(settings.paceRange.upperBound, max(settings.paceRange.lowerBound, ratio))
    }

    /// One navigating state: `time` its fix time, `remaining` the engine's seconds still to drive from the snapped
    /// position, `speed` the receiver's ground speed (m/s; nil when it did not say), `measured` false for a state
    /// predicted through an outage (no new evidence of the pace). Returns the seconds still to drive at the
    /// driver's pace.
    @discardableResult
    public mutating func observe(time: Date, remaining: Double, speed: Double?, measured: Bool = true) -> Double {
        defer { last = (time, remaining) }
        guard measured, let last else { return paced(remaining) }
        let interval = time.timeIntervalSince(last.time)
        let driven = last.remaining - remaining
        // Standing is not pace (it adds itself); going back along the route (a U-turn) or a gap says nothing of it.
        let moving = (speed ?? (driven > 0 ? settings.standingSpeed : 0)) >= settings.standingSpeed
        if moving, interval > 0, interval <= settings.longestInterval, driven >= 0 {
            let decay = exp(-interval / settings.timeConstant)
            actual = actual * decay + interval
            expected = expected * decay + driven
        }
        return paced(remaining)
    }

    /// Seconds to drive `remaining` seconds of the engine's at the driver's pace: the pace over the next
    /// ``ArrivalSettings/paceHorizon`` seconds, the engine's speeds beyond.
    public func paced(_ remaining: Double) -> Double {
        let near = min(max(0, remaining), settings.paceHorizon)
        return near * pace + max(0, remaining - near)
    }

    /// A new route (a reroute, a stop added): its durations are the engine's again, but the pace is the driver's
    /// and is kept. The next state starts a new interval.
    public mutating func routeChanged() {
        last = nil
    }
}

extension ArrivalEstimator {
    /// What the estimator remembers between fixes, for a recording that starts mid-trip (its replay starts from
    /// it). Times as seconds since 2001-01-01 UTC.
    public struct Memory: Codable, Sendable, Equatable {
        public var actual: Double
        public var expected: Double
        public var lastTime: Double?
        public var lastRemaining: Double?

        public init(actual: Double, expected: Double, lastTime: Double?, lastRemaining: Double?) {
            self.actual = actual
            self.expected = expected
            self.lastTime = lastTime
            self.lastRemaining = lastRemaining
        }
    }

    public var memory: Memory {
        Memory(actual: actual, expected: expected, lastTime: last?.time.timeIntervalSinceReferenceDate, lastRemaining: last?.remaining)
    }

    /// The estimator `memory` describes; nil when a number in it is out of its range (a recording is input from
    /// outside: weighted seconds 0 to 10^7, times 1970 to 2200, a remaining duration up to 10^7 s).
    public init?(settings: ArrivalSettings, memory: Memory) {
        let seconds = 0.0...1e7
        guard let actual = CheckedNumber.measure(memory.actual, in: seconds), let expected = CheckedNumber.measure(memory.expected, in: seconds)
        else { return nil }
        self.settings = settings
        self.actual = actual
        self.expected = expected
        if let time = memory.lastTime, let remaining = memory.lastRemaining {
            guard let time = CheckedNumber.measure(time, in: PhysicalRange.referenceTime), let remaining = CheckedNumber.measure(remaining, in: seconds)
            else { return nil }
            last = (Date(timeIntervalSinceReferenceDate: time), remaining)
        }
    }
}
