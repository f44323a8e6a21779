import NavigationCore
import NavigationProtocol
import RouteAdapters

extension TripCoordinator {
    /// How a session's answer may be made ready ahead, off the loop (``PreparedRoute``): the controller settings in
    /// force when the session began, and their generation, which a reload of the settings moves on.
    public struct RoutePreparation: Sendable {
        public var controller: NavigationControllerConfig
        public var settingsGeneration: Int
    }

    /// How `session`'s answer may be prepared; nil when the session's answer does not become the trip's route as it
    /// comes (a refresh, a look for a faster way, free drive's match) or the session is not running.
    public func routePreparation(forSession session: Int) -> RoutePreparation? {
        guard let calculation = calculations[session] else { return nil }
        switch calculation.purpose {
        case .initial, .snap, .reroute, .addStop, .removeStop, .skipWaypoint:
            return RoutePreparation(controller: settings.controller, settingsGeneration: settingsGeneration)
        case .refresh, .fasterRoute:
            return nil
        }
    }

    /// `prepared` when it was made from `route` itself with the settings in force; nil when the coordinator must
    /// make the controller itself. Made from the same value, the two routes' lists share their storage and compare
    /// equal at once, whatever the route's length.
    func usable(_ prepared: PreparedRoute?, for route: Route) -> PreparedRoute? {
        guard let prepared, prepared.settingsGeneration == settingsGeneration, prepared.source == route else { return nil }
        return prepared
    }

    /// A controller for `route`: `prepared`'s (already checked with ``usable(_:for:)``) or one made here.
    func controller(for route: Route, prepared: PreparedRoute?) throws(NavigationControllerError) -> NavigationController {
        if let prepared { return prepared.controller }
        return try NavigationController(route: route, config: settings.controller)
    }
}
