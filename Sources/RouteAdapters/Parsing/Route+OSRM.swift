import FoundationEssentials
import Glibc
import NavigationCore

extension Route {
    /// Routes from a whole OSRM-format response (`{"code":"Ok","routes":[...],"waypoints":[...]}`), for
    /// ``CustomRouteProvider`` implementations that produce OSRM JSON themselves.
    /// - Parameter polylinePrecision: 5 or 6, the precision the geometries were encoded with.
    public static func fromOSRMResponse(_ data: Data, polylinePrecision: Int = 6) throws -> [Route] {
        try OSRMResponseParser(polylinePrecision: polylinePrecision).parseRoutes(from: data)
    }

    /// A route from one OSRM-format route object (an element of `routes`), through the given waypoints.
    public static func fromOSRMRoute(_ data: Data, waypoints: [Waypoint] = [], polylinePrecision: Int = 6) throws -> Route {
        try OSRMResponseParser(polylinePrecision: polylinePrecision).parseRoute(from: data, waypoints: waypoints)
    }
}
