import NavigationCore

/// A long route's controller and `route` text, made on Swift's pool before its answer reaches the navigation loop,
/// which would otherwise make them itself and hold fixes back meanwhile: for a 1000 km route, taking the answer
/// took the loop 7–11 ms, 1.1–1.3 ms with these made ahead (docs/performance.md, *How cost grows*). The coordinator takes them
/// when they were made from the very route it uses, with the settings in force (``TripCoordinator/usable(_:for:)``),
/// and otherwise makes its own: the route event's bytes are the same either way.
public struct PreparedRoute: Sendable {
    /// Routes with at least this many points are prepared ahead: as engines send them, about a 190 KB `route`
    /// event, whose answer the loop took in about 0.3 ms, a fix's whole way. Shorter ones, every city route among
    /// them, are taken in place, with no thread hop on their way.
    public static let minimumPoints = 1_500

    /// The route as the engine's answer gave it (before the controller's prompt timing).
    public let source: Route
    public let controller: NavigationController
    /// The text of `controller.route`, the route the `route` event carries.
    public let routeText: JSONTextWritten
    /// The coordinator's settings generation the controller was made with.
    public let settingsGeneration: Int

    /// Makes the controller and the text for `route` as `preparation` says; nil when the route cannot be navigated
    /// (the coordinator then says why, as for any answer).
    public init?(_ route: Route, _ preparation: TripCoordinator.RoutePreparation) {
        guard let controller = try? NavigationController(route: route, config: preparation.controller) else { return nil }
        source = route
        self.controller = controller
        routeText = JSONTextWritten(controller.route, capacity: controller.route.estimatedTextBytes)
        settingsGeneration = preparation.settingsGeneration
    }

    /// Whether a calculation's answer is worth preparing: its first route is long.
    public static func isWorthIt(_ routes: [Route]) -> Bool {
        (routes.first?.geometry.count ?? 0) >= minimumPoints
    }
}
