import Foundation
import NavigationCore

/// Decides whether an off-route vehicle may request a reroute now. Pure: time comes from the fixes.
///
/// A request needs: none in flight; `cooldown` seconds since the previous request; `minimumMovement` metres
/// driven since it; and no reroute loop. A loop is `loopCount` reroutes applied within `loopWindow` seconds:
/// then rerouting stops for `loopBackoff` seconds, so a vehicle that keeps leaving the route (a wrong map, a
/// closed road the engine does not know) does not hammer the server and flood clients with routes.
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
    /// Times reroutes were applied, within the loop window.
    public private(set) var applied: [Date] = []
    public private(set) var backoffUntil: Date?

    public init(settings: NavdConfig.Reroute) {
        self.settings = settings
    }

    public static func == (a: RerouteGate, b: RerouteGate) -> Bool {
        a.lastRequest?.time == b.lastRequest?.time && a.applied == b.applied && a.backoffUntil == b.backoffUntil
    }

    /// What to do for an off-route fix at `time` (the fix's timestamp) and `coordinate`.
    public mutating func decide(time: Date, coordinate: GeographicCoordinate, inFlight: Bool) -> Decision {
        if let until = backoffUntil {
            if time < until { return .loopBackoff(until: until) }
            backoffUntil = nil
            applied.removeAll()
        }
        if inFlight { return .inFlight }
        applied.removeAll { time.timeIntervalSince($0) > settings.loopWindow }
        if applied.count >= settings.loopCount {
            let until = time.addingTimeInterval(settings.loopBackoff)
            backoffUntil = until
            return .loopDetected(until: until)
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

    /// A failed or rejected request does not count against the cooldown: the next off-route fix may retry.
    public mutating func forgetRequest() {
        lastRequest = nil
    }

    public mutating func recordApplied(time: Date) {
        applied.append(time)
    }

    /// A new trip starts with a clean slate.
    public mutating func reset() {
        lastRequest = nil
        applied.removeAll()
        backoffUntil = nil
    }
}
