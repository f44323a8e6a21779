import Foundation
import NavigationCore
import RouteAdapters
import Testing

/// How far the engine moved the origin onto its road: OSRM and Valhalla say it (`waypoints[].distance`);
/// GraphHopper's and a custom provider's answers give only the snapped point, where the route begins.
@Suite struct OriginSnapDistanceTests {
    /// A fix 45 m south of where the fixture's route begins.
    static func query(_ route: Route) throws -> RouteQuery {
        let start = try #require(route.geometry.first)
        let fix = UserLocation(
            coordinate: Geodesy.destination(from: start, distance: 45, bearing: 180), horizontalAccuracy: 5, course: nil, speed: nil,
            timestamp: Date(timeIntervalSince1970: 1_795_241_290))
        return RouteQuery(origin: fix, waypoints: [Waypoint(coordinate: try #require(route.geometry.last))])
    }

    @Test func theEnginesOwnDistanceIsKept() throws {
        let route = try #require(try OSRMResponseParser(polylinePrecision: 6).parseRoutes(from: Fixture.data("helsinki_osrm_plain")).first)
        #expect(route.waypoints.first?.snapDistance == 0.3145574465)
        let filled = try Self.query(route).withOriginSnapDistance([route])
        #expect(filled == [route])
    }

    @Test func withoutItTheDistanceToWhereTheRouteBeginsIsUsed() throws {
        var object = try Fixture.json("helsinki_osrm_plain")
        let waypoints = try #require(object["waypoints"] as? [[String: Any]])
        object["waypoints"] = waypoints.map { $0.filter { $0.key != "distance" } }
        let route = try #require(try OSRMResponseParser(polylinePrecision: 6).parseRoutes(from: Fixture.encode(object)).first)
        #expect(route.waypoints.allSatisfy { $0.snapDistance == nil })
        let filled = try #require(try Self.query(route).withOriginSnapDistance([route]).first)
        let distance = try #require(filled.waypoints.first?.snapDistance)
        #expect(abs(distance - 45) < 0.01, "\(distance) m")
        // Only the origin: the destination's snap is the engine's to say.
        #expect(filled.waypoints.dropFirst().allSatisfy { $0.snapDistance == nil })
        #expect(filled.geometry == route.geometry && filled.steps == route.steps)
    }
}
