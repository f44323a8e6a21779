import Foundation
import NavigationCore
import RouteAdapters
import Testing
import TripPlanning

/// Whether an answer holds a faster way worth the driver's attention, what sets routes apart, and where a route
/// leaves another.
struct FasterRouteTests {
    static let judge = FasterRouteJudge(rules: FasterRouteRules())

    static func candidate(_ index: Int, _ duration: Double, same: Bool = false, left: Bool = false, offered: Bool = false, leaves: Double = 60)
        -> FasterRouteCandidate
    {
        FasterRouteCandidate(index: index, duration: duration, isSameWay: same, isWayLeft: left, wasOffered: offered, secondsToLeaveRoute: leaves)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var routeLeft: Double
        var candidates: [FasterRouteCandidate]
        var expected: FasterRouteDecision?
        var refusalSays: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "saves 10 min of 60", routeLeft: 3600, candidates: [candidate(0, 3000)], expected: .faster(index: 0, saving: 600, baseline: 3600)),
        // The engine's fresh time for the same way is the yardstick, not the route's older one.
        Case(name: "the same way is slower now", routeLeft: 1000, candidates: [candidate(0, 1500, same: true), candidate(1, 1200)],
             expected: .faster(index: 1, saving: 300, baseline: 1500)),
        Case(name: "the fastest qualifying of several", routeLeft: 3600, candidates: [candidate(0, 3500), candidate(1, 3000, left: true), candidate(2, 3100)],
             expected: .faster(index: 2, saving: 500, baseline: 3600)),
        Case(name: "only the route itself", routeLeft: 1000, candidates: [candidate(0, 900, same: true)], refusalSays: "no other way"),
        Case(name: "50 s is under the 60 s", routeLeft: 400, candidates: [candidate(0, 350)], refusalSays: "saves 50 s of 400 s; it must save 60 s and 10 %"),
        Case(name: "90 s is under 10 % of an hour", routeLeft: 3600, candidates: [candidate(0, 3510)], refusalSays: "saves 90 s of 3600 s"),
        Case(name: "it turns off within 20 s", routeLeft: 3600, candidates: [candidate(0, 3000, leaves: 12)], refusalSays: "within 12 s of driving"),
        Case(name: "back to the way left", routeLeft: 3600, candidates: [candidate(0, 3000, left: true)], refusalSays: "switched away from"),
        Case(name: "offered already", routeLeft: 3600, candidates: [candidate(0, 3000, offered: true)], refusalSays: "offered already"),
    ]

    @Test(arguments: cases)
    func aFasterWayIsOfferedOnlyWhenItIsWorthIt(_ example: Case) {
        let decision = Self.judge.decide(routeLeft: example.routeLeft, candidates: example.candidates)
        if let expected = example.expected {
            #expect(decision == expected)
        } else if case .refused(let reason) = decision {
            #expect(reason.contains(example.refusalSays ?? ""), "\(reason)")
        } else {
            Issue.record("offered \(decision)")
        }
    }

    /// Both thresholds are the configuration's.
    @Test func theThresholdsAreConfigurable() {
        var rules = FasterRouteRules()
        rules.minimumSaving = 10
        rules.minimumFraction = 0.02
        rules.maneuverWindow = 5
        let decision = FasterRouteJudge(rules: rules).decide(routeLeft: 400, candidates: [Self.candidate(0, 385, leaves: 8)])
        #expect(decision == .faster(index: 0, saving: 15, baseline: 400))
    }

    static func helsinki(_ name: String) throws -> Route {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("RouteAdaptersTests/Fixtures/\(name)")
        return try #require(try OSRMResponseParser().parseRoutes(from: Data(contentsOf: url)).first)
    }

    /// A real route's summary: its length and time, and the roads it follows longest.
    @Test func aSummaryNamesTheRoadsARouteMostlyFollows() throws {
        let route = try Self.helsinki("helsinki_osrm_plain.json")
        let summary = RouteSummary(route: route)
        #expect(summary.distance == route.distance && summary.duration == route.duration)
        #expect(summary.mainRoads.count == min(2, Set(route.steps.compactMap { $0.roadName?.isEmpty == false ? $0.roadName : nil }).count))
        var length: [String: Double] = [:]
        for step in route.steps { if let name = step.roadName, !name.isEmpty { length[name, default: 0] += step.distance } }
        #expect(summary.mainRoads.first == length.max { $0.value < $1.value }?.key)
        #expect(!summary.tolls && !summary.motorways)
    }

    /// A route leaves another where its points first lie more than 20 m from it.
    @Test func aRouteLeavesAnotherWhereItTurnsOff() throws {
        let route = try Self.helsinki("helsinki_osrm_plain.json")
        let index = RouteIndex(route: route)
        #expect(abs(RouteDivergence.sharedLength(of: index, with: index, from: 0) - index.totalDistance) < 1e-6, "a route never leaves itself")
        // The same route for 3 steps, then 100 m off to the side.
        var other = route
        other.steps = Array(route.steps[0..<3])
        let corner = other.steps[2].geometry.last!
        let away = Geodesy.destination(from: corner, distance: 100, bearing: Geodesy.bearing(from: route.steps[3].geometry[0], to: route.steps[3].geometry[1]) + 90)
        other.steps[2].geometry.append(away)
        let shared = RouteDivergence.sharedLength(of: RouteIndex(route: other), with: index, from: 0)
        #expect(abs(shared - index.stepEnd[2]) < 1, "left after \(shared) m; the third step ends at \(index.stepEnd[2]) m")
    }
}
