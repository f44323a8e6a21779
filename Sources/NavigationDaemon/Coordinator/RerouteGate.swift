import FoundationEssentials
import Glibc
import NavigationCore

/// Decides whether an off-route vehicle may request a reroute now. Pure: time comes from the fixes.
///
/// A request needs: none in flight; `cooldown` seconds since the previous request; `minimumMovement` metres
/// driven since it; after failures, a backoff; and no reroute loop.
///
/// - **Failures back off**: a reroute that failed (after the runner's own attempts) or whose answer was unusable
///   (its first maneuver already behind the vehicle: the engine was too slow) makes the next request wait
///   `max(cooldown, 2 s)`, doubling with each failure in a row up to 60 s, so a slow or failing engine never gets
///   back-to-back requests. An applied reroute ends the streak. A reroute refused because the vehicle is back on
///   the route is no failure of the engine: it does not back off. An answer that is the route already in use
///   is no failure either, but the next request still waits for `minimumMovement` from where it was asked.
/// - **Loops**: `loopCount` reroutes that ended within `loopWindow` seconds, applied, failed or refused alike,
///   stop rerouting for `loopBackoff` seconds, so a vehicle that keeps leaving the route (a wrong map, a closed
///   road the engine does not know) or an engine that keeps failing does not hammer the server and flood clients.
public struct RerouteGate: Sendable, Equatable {
    public enum Decision: Equatable, Sendable {
        case request
        case inFlight
        case cooldown(remaining: Double)
        case notMovedEnough(moved: Double)
        /// A loop was detected on this decision; rerouting pauses until `until`.
        case loopDetected(until: Date)
        case loopBackoff(until: Date)

        /// The name clients see in `deviation.reroute`.
        public var name: String {
            switch self {
            case .request: "requested"
            case .inFlight: "in_flight"
            case .cooldown: "cooldown"
            case .notMovedEnough: "waiting_for_movement"
            case .loopDetected: "loop_detected"
            case .loopBackoff: "loop_backoff"
            }
        }
    }

    public var settings: NavdConfig.Reroute
    /// When and where the last reroute was requested.
    public private(set) var lastRequest: (time: Date, coordinate: GeographicCoordinate)?
    /// Times reroutes ended (applied, failed or refused), within the loop window.
    public private(set) var ended: [Date] = []
    /// Failed or unusable reroutes in a row, and when the last one ended.
    public private(set) var failureStreak = 0
    public private(set) var lastFailure: Date?
    public private(set) var backoffUntil: Date?

    public init(settings: NavdConfig.Reroute) {
        self.settings = settings
    }

    public static func == (a: RerouteGate, b: RerouteGate) -> Bool {
        a.lastRequest?.time == b.lastRequest?.time && a.ended == b.ended && a.backoffUntil == b.backoffUntil
            && a.failureStreak == b.failureStreak && a.lastFailure == b.lastFailure
    }

    /// What to do for an off-route fix at `time` (the fix's timestamp) and `coordinate`.
    public mutating func decide(time: Date, coordinate: GeographicCoordinate, inFlight: Bool) -> Decision {
        if let until = backoffUntil {
            if time < until { return .loopBackoff(until: until) }
            backoffUntil = nil
            ended.removeAll()
        }
        if inFlight { return .inFlight }
        ended.removeAll { time.timeIntervalSince($0) > settings.loopWindow }
        if ended.count >= settings.loopCount {
            let until = time.addingTimeInterval(settings.loopBackoff)
            backoffUntil = until
            return .loopDetected(until: until)
        }
        if let failed = lastFailure {
            let wait = failureBackoff
            let elapsed = time.timeIntervalSince(failed)
            if elapsed < wait { return .cooldown(remaining: wait - elapsed) }
        }
        if let last = lastRequest {
            let elapsed = time.timeIntervalSince(last.time)
            if elapsed < settings.cooldown { return .cooldown(remaining: settings.cooldown - elapsed) }
            let moved = Geodesy.distance(last.coordinate, coordinate)
            if moved < settings.minimumMovement { return .notMovedEnough(moved: moved) }
        }
        return .request
    }

    public mutating func recordRequest(time: Date, coordinate: GeographicCoordinate) {
        lastRequest = (time, coordinate)
    }

    /// Seconds to wait after the last failure: `max(cooldown, 2 s)` doubled per further failure in a row, at most 60 s.
    public var failureBackoff: Double {
        guard failureStreak > 0 else { return 0 }
        return min(Self.maximumFailureBackoff, max(settings.cooldown, 2) * pow(2, Double(failureStreak - 1)))
    }

    static let maximumFailureBackoff = 60.0

    /// The reroute failed, or its answer could not be used: back off, and count it toward loop detection. The
    /// next request need not wait for movement (the vehicle may be standing off the route).
    public mutating func recordFailure(time: Date) {
        lastRequest = nil
        ended.append(time)
        failureStreak += 1
        lastFailure = time
    }

    /// The answer came but the vehicle is back on the route: counted toward loop detection, no backoff.
    public mutating func recordUnneeded(time: Date) {
        lastRequest = nil
        ended.append(time)
    }

    /// The answer was the route already in use: counted toward loop detection, and the next request waits for the
    /// cooldown and for movement from where this one was asked (the same place would get the same answer).
    public mutating func recordSameRoute(time: Date) {
        ended.append(time)
    }

    public mutating func recordApplied(time: Date) {
        ended.append(time)
        failureStreak = 0
        lastFailure = nil
    }

    /// A new trip starts with a clean slate.
    public mutating func reset() {
        lastRequest = nil
        ended.removeAll()
        backoffUntil = nil
        failureStreak = 0
        lastFailure = nil
    }
}
