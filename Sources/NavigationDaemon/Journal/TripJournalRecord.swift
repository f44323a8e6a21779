import Foundation
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
    public var startedAt: Date
    /// Wall-clock time of this save; a journal older than `journal.max_age` is not resumed.
    public var savedAt: Date

    public init(routeId: String, route: Route, options: JSONValue, distanceAlong: Double, stepIndex: Int, startedAt: Date, savedAt: Date) {
        version = Self.currentVersion
        self.routeId = routeId
        self.route = route
        self.options = options
        self.distanceAlong = distanceAlong
        self.stepIndex = stepIndex
        self.startedAt = startedAt
        self.savedAt = savedAt
    }
}
