import Foundation
import NavigationCore
import RouteAdapters
import Testing
import TripPlanning

/// The stops of a route in time: a real two-leg answer (OSRM on the Helsinki extract) and a route whose legs do
/// not match its stops.
struct LegDurationsTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func twoLegs() throws -> Route {
        let data = try Data(contentsOf: repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/helsinki_osrm_two_legs.json"))
        return try #require(try OSRMResponseParser().parseRoutes(from: data).first)
    }

    @Test func aStopIsTheDestinationLessTheLegsAfterIt() throws {
        let route = try Self.twoLegs()
        #expect(route.legCount == 2 && route.waypoints.count == 3)
        let legs = LegDurations(route: route)
        let second = route.steps.filter { $0.legIndex == 1 }.reduce(0) { $0 + $1.duration }
        #expect(legs.stops.map(\.waypoint) == [1, 2])
        #expect(abs(legs.stops[0].durationAfter - second) < 1e-9 && legs.stops[1].durationAfter == 0)
        // Before the stop: both, the stop's time being what is left less the second leg.
        let ahead = legs.ahead(next: 1, remaining: route.duration)
        #expect(ahead.count == 2)
        #expect(abs(ahead[0].remaining - (route.duration - second)) < 1e-9 && abs(ahead[1].remaining - route.duration) < 1e-9)
        // Past it: the destination only.
        #expect(legs.ahead(next: 2, remaining: 100).map(\.stop.waypoint) == [2])
    }

    @Test func legsThatDoNotMatchTheStopsKeepTheDestinationOnly() throws {
        var route = try Self.twoLegs()
        for i in route.steps.indices { route.steps[i].legIndex = 0 }
        let legs = LegDurations(route: route)
        #expect(legs.stops.map(\.waypoint) == [2])
        #expect(legs.ahead(next: 1, remaining: 300).map(\.remaining) == [300])
    }
}
