import FoundationEssentials
import Glibc
import NavigationCore

/// What to route: from the vehicle's current fix through the waypoints, with per-request engine options.
public struct RouteQuery: Hashable, Sendable {
    /// The vehicle's fix. Its course and accuracy shape the start of the route (heading, street side).
    public var origin: UserLocation
    /// Where to go, in order. The last one is the destination.
    public var waypoints: [Waypoint]
    /// Engine options for this request only, merged over the generator's configured options
    /// (Valhalla: JSON body keys; OSRM and GraphHopper: query parameters).
    public var options: [String: JSONValue]
    /// Further routes to ask for besides the best one (Valhalla `alternates`, OSRM `alternatives`); 0: none. An
    /// engine may find fewer; GraphHopper's navigation endpoint is not asked (it answers one route).
    public var alternatives: Int

    public init(origin: UserLocation, waypoints: [Waypoint], options: [String: JSONValue] = [:], alternatives: Int = 0) {
        self.origin = origin
        self.waypoints = waypoints
        self.options = options
        self.alternatives = alternatives
    }
}

extension RouteQuery {
    /// `routes` with their origin's ``Waypoint/snapDistance`` where the engine did not give it: metres from the
    /// fix to where the route starts. OSRM says how far it moved the origin (`waypoints[].distance`); GraphHopper and
    /// Valhalla give only the snapped point, which is where the route's geometry begins. A route without waypoints
    /// or geometry is left as it is.
    public func withOriginSnapDistance(_ routes: [Route]) -> [Route] {
        routes.map { route in
            guard route.waypoints.first?.snapDistance == nil, let start = route.geometry.first, !route.waypoints.isEmpty else { return route }
            var route = route
            route.waypoints[0].snapDistance = Geodesy.distance(origin.coordinate, start)
            return route
        }
    }
}

/// One point of a trace to snap to the road network.
public struct TracePoint: Hashable, Sendable, Codable {
    public var coordinate: GeographicCoordinate
    /// When the point was recorded, if known. Engines use it to tell slow from fast movement.
    public var timestamp: Date?
    /// How far the real position may be from this point, metres (search radius), if known.
    public var radius: Double?

    public init(coordinate: GeographicCoordinate, timestamp: Date? = nil, radius: Double? = nil) {
        self.coordinate = coordinate
        self.timestamp = timestamp
        self.radius = radius
    }
}
