import Foundation
import NavigationCore
import RouteAdapters
import Testing
import TripPlanning

/// A refreshed answer laid onto the route being navigated: a real OSRM route from the Helsinki extract, re-costed
/// as an engine would answer it from where the vehicle is (the same way, slower, with traffic, a new limit and
/// an incident), and the same data grown too old.
struct RouteRefreshTests {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func route() throws -> Route {
        let data = try Data(contentsOf: repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/helsinki_osrm_plain.json"))
        return try #require(try OSRMResponseParser().parseRoutes(from: data).first)
    }

    /// The engine's answer from the start of step `first` on: the same steps, `factor` times slower, every
    /// segment `level` traffic and limited to `limit` km/h, with an incident on points 1...2 of its second step.
    static func refreshed(_ route: Route, from first: Int, factor: Double, level: String, limit: Double) -> Route {
        var answer = route
        answer.steps = Array(route.steps[first...])
        for i in answer.steps.indices {
            answer.steps[i].duration *= factor
            answer.steps[i].annotations = SegmentAnnotations(answer.steps[i].annotations.map { annotation in
                var values = annotation.values
                if let d = annotation.duration { values["duration"] = .number(d * factor) }
                values["congestion"] = .string(level)
                values["maxspeed"] = ["speed": .number(limit), "unit": "km/h"]
                return SegmentAnnotation(values: values)
            })
            answer.steps[i].incidents = []
        }
        if answer.steps.count > 1, answer.steps[1].geometry.count > 2 {
            answer.steps[1].incidents = [Incident(id: "works-1", type: "construction", description: "lane closed", impact: "major", geometryIndexStart: 1, geometryIndexEnd: 2)]
        }
        answer.geometry = answer.steps.flatMap(\.geometry).reduce(into: []) { if $0.last != $1 { $0.append($1) } }
        answer.duration = answer.steps.reduce(0) { $0 + $1.duration }
        return answer
    }

    @Test(arguments: [0, 3])
    func theRouteAheadGetsTheNewFiguresAndTheRestIsUnchanged(first: Int) throws {
        let route = try Self.route()
        let index = RouteIndex(route: route)
        let start = index.stepStart[first]
        let answer = Self.refreshed(route, from: first, factor: 1.5, level: "heavy", limit: 30)
        let outcome = RouteRefresh(route: route, index: index, start: start).merged(with: answer)
        let merged = outcome.route

        // The way and the guidance are the route's own.
        #expect(merged.geometry == route.geometry && merged.steps.count == route.steps.count)
        #expect(merged.steps.map(\.instruction) == route.steps.map(\.instruction))
        #expect(merged.steps.map(\.spokenInstructions) == route.steps.map(\.spokenInstructions))
        // Behind the vehicle: as it was. Ahead: the refreshed times, step by step.
        for i in 0..<first { #expect(merged.steps[i].duration == route.steps[i].duration) }
        for i in first..<route.steps.count {
            #expect(abs(merged.steps[i].duration - 1.5 * route.steps[i].duration) < 1e-6 * max(1, route.steps[i].duration), "step \(i)")
        }
        let ahead = route.steps[first...].reduce(0) { $0 + $1.duration }
        #expect(abs(outcome.remainingBefore - ahead) < 1e-6 && abs(outcome.remainingAfter - 1.5 * ahead) < 1e-6)
        #expect(abs(merged.duration - merged.steps.reduce(0) { $0 + $1.duration }) < 1e-9)
        // Traffic: one heavy stretch from the vehicle to the destination.
        #expect(outcome.congestion.count == 1 && outcome.congestion.first?.level == "heavy")
        #expect(outcome.congestion.first?.from == 0 && abs((outcome.congestion.first?.to ?? 0) - (index.totalDistance - start)) < 0.5)
        // Every segment ahead now limited to 30 km/h (the fixture had no limits).
        let segmentsAhead = (0..<index.segmentCount).filter { index.cumulativeDistance[$0 + 1] > start }.count
        #expect(outcome.limitsChanged == segmentsAhead)
        #expect(merged.steps[first].annotations.allSatisfy { $0.maxSpeed == .limit(value: 30, unit: .kilometersPerHour) })
        // The incident, where the answer put it: the same step and points.
        let incident = try #require(outcome.incidents.first)
        #expect(outcome.incidents.count == 1 && incident.incident.id == "works-1")
        #expect(merged.steps[first + 1].incidents.map(\.geometryIndexStart) == [1] && merged.steps[first + 1].incidents.map(\.geometryIndexEnd) == [2])
        let expectedDistance = index.stepStart[first + 1] + Geodesy.distance(route.steps[first + 1].geometry[0], route.steps[first + 1].geometry[1]) - start
        #expect(abs(incident.distance - expectedDistance) < 1, "incident at \(incident.distance) m, expected \(expectedDistance) m")
    }

    /// An answer whose length differs by the engines' rounding (0.5 % shorter) still maps end to end.
    @Test func aSlightlyShorterAnswerIsScaledToTheRouteAhead() throws {
        let route = try Self.route()
        let index = RouteIndex(route: route)
        var answer = Self.refreshed(route, from: 2, factor: 1, level: "low", limit: 50)
        // The engine's last point 0.5 % of the way short of ours.
        let last = answer.steps.count - 2
        let points = answer.steps[last].geometry
        answer.steps[last].geometry[points.count - 1] = Geodesy.destination(
            from: points[points.count - 1], distance: 0.005 * (index.totalDistance - index.stepStart[2]), bearing: Geodesy.bearing(from: points[points.count - 1], to: points[points.count - 2]))
        answer.steps[last + 1].geometry = answer.steps[last + 1].geometry.map { _ in answer.steps[last].geometry[points.count - 1] }
        let shorter = RouteIndex(route: answer).totalDistance / (index.totalDistance - index.stepStart[2])
        #expect(abs(shorter - 0.995) < 0.001, "the answer is \(shorter) of the route ahead")
        let outcome = RouteRefresh(route: route, index: index, start: index.stepStart[2]).merged(with: answer)
        #expect(abs(outcome.remainingAfter - outcome.remainingBefore) < 1e-6 * outcome.remainingBefore + 1e-6)
        #expect(abs((outcome.congestion.last?.to ?? 0) - (index.totalDistance - index.stepStart[2])) < 0.5)
    }

    /// Traffic older than the refresh allows: congestion and incidents ahead go, times and limits stay; what is
    /// behind the vehicle is not touched.
    @Test func expiredTrafficIsDroppedAheadOnly() throws {
        let route = try Self.route()
        let index = RouteIndex(route: route)
        let refreshed = RouteRefresh(route: route, index: index, start: 0).merged(with: Self.refreshed(route, from: 0, factor: 2, level: "severe", limit: 40)).route
        let along = index.stepStart[4]
        let expired = RouteRefresh.expired(refreshed, index: index, from: along)
        #expect(RouteRefresh.congestion(expired, index: index, from: along).isEmpty)
        #expect(RouteRefresh.incidents(expired, index: index, from: along).isEmpty)
        #expect(expired.steps.map(\.duration) == refreshed.steps.map(\.duration))
        #expect(expired.steps[5].annotations.allSatisfy { $0.maxSpeed == .limit(value: 40, unit: .kilometersPerHour) && $0.congestion == nil })
        #expect(expired.steps[1].annotations.allSatisfy { $0.congestion == "severe" }, "traffic behind the vehicle was dropped")
    }
}
