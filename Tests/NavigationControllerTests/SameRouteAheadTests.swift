import NavigationCore
import Testing

/// ``SameRouteAhead``: the same way ahead is recognised, whatever the vertices; a different one never.
@Suite struct SameRouteAheadTests {
    /// North 1 km, then east 500 m.
    static let current = RouteIndex(route: TestRoutes.polyline([(0, 1000), (90, 500)]))
    static let corner = Geodesy.destination(from: TestRoutes.origin, distance: 1000, bearing: 0)

    /// The current route from `progress` metres on, drawn with other vertices (every 7 m from there).
    static func ahead(from progress: Double) -> [(bearing: Double, length: Double)] {
        progress < 1000 ? [(0, 1000 - progress), (90, 500)] : [(90, 1500 - progress)]
    }

    static func start(at progress: Double) -> GeographicCoordinate {
        progress < 1000
            ? Geodesy.destination(from: TestRoutes.origin, distance: progress, bearing: 0)
            : Geodesy.destination(from: corner, distance: progress - 1000, bearing: 90)
    }

    @Test(arguments: [0.0, 150.0, 600.0, 1200.0])
    func theRouteFromAnyPointAheadIsTheSame(from progress: Double) {
        let candidate = TestRoutes.polyline(Self.ahead(from: progress), spacing: 7, from: Self.start(at: progress))
        #expect(SameRouteAhead().isSame(RouteIndex(route: candidate), as: Self.current, from: progress))
        // Also when the engine snapped the vehicle 40 m back.
        #expect(SameRouteAhead().isSame(RouteIndex(route: candidate), as: Self.current, from: progress + 40))
    }

    @Test(arguments: [
        ("a parallel street 20 m east", [(0.0, 900.0), (90.0, 480.0)], 20.0),
        ("the same road, ending 50 m short", [(0.0, 900.0), (90.0, 450.0)], 0.0),
        ("a 15 m detour midway", [(0.0, 400.0), (90.0, 15.0), (0.0, 200.0), (270.0, 15.0), (0.0, 300.0), (90.0, 500.0)], 0.0),
        ("turning east 100 m early", [(0.0, 800.0), (90.0, 500.0), (0.0, 100.0)], 0.0),
    ])
    func aDifferentWayIsNot(_ name: String, legs: [(Double, Double)], aside: Double) {
        let from = Geodesy.destination(from: Self.start(at: 100), distance: aside, bearing: 90)
        let candidate = TestRoutes.polyline(legs.map { (bearing: $0.0, length: $0.1) }, from: from)
        #expect(!SameRouteAhead().isSame(RouteIndex(route: candidate), as: Self.current, from: 100), "\(name)")
    }
}
