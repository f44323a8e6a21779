import NavigationCore

/// What sets a route apart when a driver chooses between routes: its length and time, whether it has tolls or
/// motorways, and the roads it mostly follows ("via Mannerheimintie"). Pure.
public struct RouteSummary: Sendable, Equatable {
    /// Metres and the engine's seconds.
    public var distance: Double
    public var duration: Double
    /// Some stretch of it is a toll road, or it passes a toll booth or gantry.
    public var tolls: Bool
    /// Some stretch of it is a motorway.
    public var motorways: Bool
    /// The roads it follows longest, longest first (at most ``mainRoadLimit``): their reference where they have
    /// one (`E18`), else their name.
    public var mainRoads: [String]

    public static let mainRoadLimit = 2

    public init(route: Route) {
        distance = route.distance
        duration = route.duration
        let features = route.steps.flatMap(\.features)
        tolls = features.contains { $0.classes.contains("toll") || $0.tollCollection != nil }
        motorways = features.contains { $0.classes.contains("motorway") }
        var length: [String: Double] = [:]
        var order: [String] = []
        for step in route.steps {
            guard let road = step.roadRef.flatMap({ $0.isEmpty ? nil : $0 }) ?? step.roadName.flatMap({ $0.isEmpty ? nil : $0 }) else { continue }
            if length[road] == nil { order.append(road) }
            length[road, default: 0] += step.distance
        }
        // Longest first; the first met first among equals, so that the order is the same on every run.
        mainRoads = Array(order.enumerated().sorted { (a, b) in
            let (la, lb) = (length[a.element]!, length[b.element]!)
            return la != lb ? la > lb : a.offset < b.offset
        }.prefix(Self.mainRoadLimit).map(\.element))
    }
}
