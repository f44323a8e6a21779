import NavigationCore

/// Where the route's stops are in time: for each stop and the destination, the engine's seconds of the route after
/// it, so that the time still to drive to a stop is the time to the destination less what follows the stop.
public struct LegDurations: Sendable, Equatable {
    /// One stop (a `break` waypoint after the origin, the destination last).
    public struct Stop: Sendable, Equatable {
        /// Index in ``Route/waypoints``.
        public var waypoint: Int
        /// Expected seconds of the route after this stop (0 for the destination).
        public var durationAfter: Double
    }

    public let stops: [Stop]

    /// The stops of `route`: its `break` waypoints after the origin, each ending the leg of the same rank. A route
    /// whose legs do not match its stops (an engine that merged them) keeps the destination only.
    public init(route: Route) {
        let breaks = route.waypoints.indices.dropFirst().filter { route.waypoints[$0].kind == .break }
        var durationOfLeg = [Double](repeating: 0, count: route.legCount)
        for step in route.steps where step.legIndex < durationOfLeg.count { durationOfLeg[step.legIndex] += step.duration }
        guard breaks.count == route.legCount else {
            stops = route.waypoints.isEmpty ? [] : [Stop(waypoint: route.waypoints.count - 1, durationAfter: 0)]
            return
        }
        var after = 0.0
        var stops: [Stop] = []
        for (leg, waypoint) in breaks.enumerated().reversed() {
            stops.append(Stop(waypoint: waypoint, durationAfter: after))
            after += durationOfLeg[leg]
        }
        self.stops = stops.reversed()
    }

    /// The stops not reached yet (`next`: the index in ``Route/waypoints`` of the next waypoint) with the engine's
    /// seconds still to drive to each when `remaining` seconds remain to the destination.
    public func ahead(next: Int, remaining: Double) -> [(stop: Stop, remaining: Double)] {
        stops.filter { $0.waypoint >= next }.map { ($0, max(0, remaining - $0.durationAfter)) }
    }
}
