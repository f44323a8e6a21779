import Foundation
import NavigationCore
import PropertyBased
import RoadAhead
import Testing

/// A route's limits along its length, from the engine's `maxspeed` annotations.
struct RouteLimitsTests {
    static let origin = GeographicCoordinate(latitude: 60.1699, longitude: 24.9384)

    /// One straight step north, a point every 50 m, each segment annotated with `limits[i]` (km/h; nil: unknown).
    static func route(_ limits: [Double?]) -> Route {
        let points = (0...limits.count).map { Geodesy.destination(from: origin, distance: 50 * Double($0), bearing: 0) }
        let annotations = limits.map { limit in
            SegmentAnnotation(values: ["maxspeed": limit.map { ["speed": .number($0), "unit": "km/h"] } ?? ["unknown": true]])
        }
        let step = RouteStep(
            geometry: points, distance: 50 * Double(limits.count), duration: 60, instruction: "Drive north",
            maneuver: Maneuver(type: .depart, location: origin), annotations: SegmentAnnotations(annotations))
        let arrive = RouteStep(geometry: [points.last!, points.last!], distance: 0, duration: 0, instruction: "Arrive", maneuver: Maneuver(type: .arrive, location: points.last!))
        return Route(
            geometry: points, distance: step.distance, duration: 60, waypoints: [Waypoint(coordinate: origin), Waypoint(coordinate: points.last!)],
            steps: [step, arrive])
    }

    static func limits(_ values: [Double?]) -> RouteLimits {
        let route = route(values)
        return RouteLimits(route: route, index: RouteIndex(route: route))
    }

    @Test func runsJoinEqualLimitsAndSkipUnknownStretches() {
        let limits = Self.limits([60, 60, 60, nil, 40, 40, 60])
        #expect(limits.runs.map(\.value) == [60, 40, 60])
        #expect(limits.runs.map { ($0.start / 50).rounded() } == [0, 4, 6])
        #expect(limits.runs.map { ($0.end / 50).rounded() } == [3, 6, 7])
        #expect(limits.limit(at: 10)?.value == 60)
        #expect(limits.limit(at: 170) == nil, "an unknown stretch has no limit")
        #expect(limits.limit(at: 210)?.value == 40)
        #expect(limits.limit(at: 400) == nil, "beyond the route")
    }

    @Test func theFirstLowerLimitAheadWithinReach() {
        let limits = Self.limits([60, 60, 60, 60, 40, 40, 30])
        let over50: (RouteLimits.Run) -> Bool = { $0.value < 50 }
        #expect(limits.firstLimitAhead(of: 10, within: 100, over: over50) == nil, "the 40 begins 190 m ahead")
        let ahead = limits.firstLimitAhead(of: 110, within: 100, over: over50)
        #expect(ahead?.value == 40 && abs((ahead?.start ?? 0) - 200) < 1)
        #expect(limits.firstLimitAhead(of: 210, within: 100, over: over50)?.value == 30, "inside the 40: the 30 next")
        #expect(Self.limits([]).firstLimitAhead(of: 0, within: 1000, over: { _ in true }) == nil)
    }

    /// A street's segments share one `maxspeed` value (the reader reads a repeat once): its limit is read once for
    /// them, and the runs are those of the same limits each in storage of its own.
    @Test func sharedLimitValuesGiveTheRunsOfTheirOwn() async {
        let shared: [JSONValue] = [
            ["speed": .number(60), "unit": "km/h"], ["speed": .number(40), "unit": "km/h"], ["unknown": true], ["none": true],
            ["speed": .number(30), "unit": "mph"],
        ]
        // The same values made again, each time: equal, never identical.
        let fresh: [() -> JSONValue] = [
            { ["speed": .number(60), "unit": "km/h"] }, { ["speed": .number(40), "unit": "km/h"] }, { ["unknown": true] }, { ["none": true] },
            { ["speed": .number(30), "unit": "mph"] },
        ]
        await propertyCheck(count: 300, input: Gen.int(in: 0...(shared.count - 1)).array(of: 1...30)) { picks in
            func limits(_ column: [JSONValue]) -> RouteLimits {
                var route = Self.route(picks.map { _ in nil })
                route.steps[0].annotations = SegmentAnnotations(columns: ["maxspeed": column], offset: 0, count: column.count)
                return RouteLimits(route: route, index: RouteIndex(route: route))
            }
            let sharing = limits(picks.map { shared[$0] })
            #expect(sharing.runs == limits(picks.map { fresh[$0]() }).runs)
            #expect(sharing.runs.count == picks.indices.filter { i in picks[i] != 2 && picks[i] != 3 && (i == 0 || picks[i - 1] != picks[i]) }.count)
        }
    }
}
