import FoundationEssentials
import Glibc
import NavigationCore

/// What the journal holds: enough to resume a trip after a restart. JSON, see docs/daemon.md.
public struct TripJournalRecord: Codable, Sendable, Equatable {
    public static let currentVersion = 1

    public var version: Int
    public var routeId: String
    /// The active route, in navd's route JSON (docs/route-format.md).
    public var route: Route
    /// The route options the trip was requested with (reroutes reuse them).
    public var options: JSONValue
    /// Metres along the route the vehicle had reached.
    public var distanceAlong: Double
    public var stepIndex: Int
    /// GNSS time of the trip's first fix (at `navigate`; a reroute continues the trip).
    public var startedAt: Date
    /// Metres driven since the trip started (absent in journals written before navd saved it: 0).
    public var distanceTravelled: Double?
    /// Reroutes applied since the trip started (absent in older journals: 0).
    public var reroutes: Int?
    /// The trip's waypoints as `navigate` asked for them and `add_stop`, `remove_stop` and `skip_waypoint`
    /// changed them, the destination last (absent in older journals: the route's own after its origin).
    public var waypoints: [Waypoint]?
    /// How many of `waypoints` were passed before the saved route began (its waypoints after the origin are the
    /// rest).
    public var passedWaypoints: Int?
    /// Wall-clock time of this save. Only trusted for freshness when nothing better is known: a board without a
    /// real-time clock may have written it with a clock that later jumped (see `TripJournal.load`).
    public var savedAt: Date
    /// GNSS time (UTC) of the last fix the trip had when this was saved: the clock that is right on every board.
    public var lastFixTime: Date?
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`) when this was saved, stamped by the service.
    public var bootId: String?
    /// Seconds since boot (CLOCK_BOOTTIME, counts suspend) when this was saved, stamped by the service.
    public var uptime: Double?

    public init(
        routeId: String, route: Route, options: JSONValue, distanceAlong: Double, stepIndex: Int, startedAt: Date, savedAt: Date,
        lastFixTime: Date? = nil, distanceTravelled: Double? = nil, reroutes: Int? = nil, waypoints: [Waypoint]? = nil, passedWaypoints: Int? = nil
    ) {
        version = Self.currentVersion
        self.routeId = routeId
        self.route = route
        self.options = options
        self.distanceAlong = distanceAlong
        self.stepIndex = stepIndex
        self.startedAt = startedAt
        self.savedAt = savedAt
        self.lastFixTime = lastFixTime
        self.distanceTravelled = distanceTravelled
        self.reroutes = reroutes
        self.waypoints = waypoints
        self.passedWaypoints = passedWaypoints
    }
}
