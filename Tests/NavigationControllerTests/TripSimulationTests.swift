import Foundation
import NavigationCore
import RouteAdapters
import RouteClient
import Testing

/// Whole trips along real routes: the recorded fixtures and routes fetched live from the local engines.
@Suite("Trip simulations")
struct TripSimulationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var route: String
        var noise: Double
        var testDescription: String { "\(route), noise \(noise) m" }
    }

    static let fixtureCases = TestRoutes.fixtureNames.flatMap { name in [0.0, 5].map { Case(route: name, noise: $0) } }

    /// Drives a route at 10 m/s with 2 fixes a second and checks the trip's invariants.
    static func checkTrip(_ route: Route, noise: Double, seed: UInt64 = 11, label: String) throws {
        let controller = try NavigationController(route: route)
        var drive = Drive(controller)
        let fixes = LocationSimulator(speed: 10, sampleRate: 2, noise: noise, seed: seed).simulate(along: controller.index.points)
        drive.run(fixes)
        #expect(drive.isComplete, "\(label): the trip did not complete")
        let states = drive.navigating
        // No deviation of any kind, with or without noise.
        #expect(states.allSatisfy { $0.deviation == .none }, "\(label): \(states.map(\.deviation).filter { $0 != .none }.prefix(3))")
        // Steps in order, none skipped unless driven past between two fixes; each prompt said once, in order,
        // none lost but those that would be late or doubled. A step may be passed whole between the fix that
        // confirms the previous maneuver (5 m past it: the default exit) and the next: 5 m per fix + 5 m exit.
        let problems = drive.guidanceProblems(route: route, maximumHop: 10 + 2 * noise)
        #expect(problems.isEmpty, "\(label): \(problems.prefix(5))")
        let steps = drive.navigating.map(\.stepIndex)
        let last = route.steps.count - 1
        #expect(steps.last == (route.steps[last].maneuver.type == .arrive && last > 0 ? last - 1 : last), "\(label): did not reach the approach step")
        // Progress is finite, non-negative, and the distance remaining never grows.
        for state in states {
            let p = state.progress
            #expect(p.distanceRemaining.isFinite && p.distanceRemaining >= 0)
            #expect(p.distanceToNextManeuver.isFinite && p.distanceToNextManeuver >= 0)
            #expect(p.durationRemaining.isFinite && p.durationRemaining >= 0)
        }
        let remaining = states.map(\.progress.distanceRemaining)
        #expect(zip(remaining, remaining.dropFirst()).allSatisfy { $1 <= $0 + 1e-6 }, "\(label): distance remaining grew")
    }

    @Test(arguments: fixtureCases)
    func fixtureRoutes(c: Case) throws {
        try Self.checkTrip(try TestRoutes.fixture(c.route), noise: c.noise, label: c.testDescription)
    }

    static let liveTrips: [(String, GeographicCoordinate, GeographicCoordinate)] = [
        ("Kaivokatu to Fabianinkatu", .init(latitude: 60.1699, longitude: 24.9384), .init(latitude: 60.1686, longitude: 24.9500)),
        ("Bulevardi to Pitkänsillanranta", .init(latitude: 60.1660, longitude: 24.9400), .init(latitude: 60.1770, longitude: 24.9480)),
        ("Esplanadi to Kaisaniemi", .init(latitude: 60.1680, longitude: 24.9480), .init(latitude: 60.1720, longitude: 24.9370)),
    ]

    static func fetch(_ engine: String, from: GeographicCoordinate, to: GeographicCoordinate) async throws -> Route {
        let variable = "NAVD_\(engine.uppercased())_URL"
        let url = try #require(
            ProcessInfo.processInfo.environment[variable],
            "\(variable) is not set: start the engines with `eval \"$(scripts/engines start)\"` or run scripts/test")
        let adapter: RouteAdapter = engine == "valhalla" ? .valhalla(baseURL: url) : .osrm(baseURL: url)
        let executor = RouteHTTPExecutor()
        defer { Task { try? await executor.shutdown() } }
        let origin = UserLocation(coordinate: from, horizontalAccuracy: 5, timestamp: TestRoutes.start)
        return try #require(
            try await RouteFetcher(source: .http(adapter), executor: executor)
                .routes(for: RouteQuery(origin: origin, waypoints: [Waypoint(coordinate: to)])).first)
    }

    @Test(arguments: ["valhalla", "osrm"], [0.0, 5.0])
    func liveHelsinkiRoutes(engine: String, noise: Double) async throws {
        for (name, from, to) in Self.liveTrips {
            let route = try await Self.fetch(engine, from: from, to: to)
            try Self.checkTrip(route, noise: noise, label: "\(engine) \(name), noise \(noise) m")
        }
    }

    /// Leaves a live route onto another real street: the track follows route A to one of its turns, then follows
    /// route B, which the engine plans from just before that turn to a destination elsewhere.
    @Test(arguments: ["valhalla", "osrm"])
    func leavingTheRouteIsCaughtSoon(engine: String) async throws {
        let (_, from, to) = Self.liveTrips[1]
        let routeA = try await Self.fetch(engine, from: from, to: to)
        let indexA = RouteIndex(route: routeA)
        // The second step's maneuver (Bulevardi onto Mannerheimintie): leave there, go to Kamppi instead.
        let turn = indexA.stepEnd[0]
        let leavePoint = indexA.coordinate(atDistance: max(0, turn - 40))
        let routeB = try await Self.fetch(engine, from: leavePoint, to: .init(latitude: 60.1655, longitude: 24.9330))
        var track = Array(indexA.points.prefix { indexA.cumulativeDistance[indexA.points.firstIndex(of: $0)!] < turn - 40 })
        track.append(contentsOf: RouteIndex(route: routeB).points)
        let fixes = LocationSimulator(speed: 10, sampleRate: 1, noise: 0).simulate(along: track)
        var drive = Drive(try NavigationController(route: routeA))
        drive.run(fixes)
        // Where the track first leaves the rest of route A (from the leave point on): more than 5 m from it, or
        // driving back along it (route B may begin with a U-turn), and how far it drove from there to the report.
        let states = drive.navigating
        let ahead = Array(indexA.points[indexA.segment(atDistance: max(0, turn - 45))...])
        let leaveFix = Int(((turn - 40) / 10).rounded(.down))
        func drivesAgainstA(_ fix: UserLocation) -> Bool {
            guard let course = fix.course?.degrees else { return false }
            let nearest = (0..<indexA.segmentCount).min {
                Geodesy.closestPoint(on: indexA.points[$0], indexA.points[$0 + 1], to: fix.coordinate).distance
                    < Geodesy.closestPoint(on: indexA.points[$1], indexA.points[$1 + 1], to: fix.coordinate).distance
            }!
            return Geodesy.angleBetween(course, indexA.bearing(ofSegment: nearest)) > 135
        }
        let departure = try #require(
            fixes.indices.first { $0 >= leaveFix && (distanceFromLine(fixes[$0].coordinate, ahead) > 5 || drivesAgainstA(fixes[$0])) })
        let uTurn = drivesAgainstA(fixes[departure])
        let report = try #require(states.firstIndex { $0.deviation.isOffRoute }, "\(engine): never reported off-route")
        #expect(report >= departure, "\(engine): off-route before leaving")
        let driven = Double(report - departure + 1) * 10
        // A wrong turn within 30 m; driving back along the route (a U-turn) within 50 m.
        print("\(engine): \(uTurn ? "U-turn" : "wrong turn") reported after \(Int(driven)) m")
        #expect(driven <= (uTurn ? 50 : 30), "\(engine): reported \(driven) m after leaving")
        #expect(states[..<report].allSatisfy { $0.spokenInstruction == nil || !$0.deviation.isOffRoute })
    }
}

/// Shortest distance from a point to a polyline, metres.
func distanceFromLine(_ point: GeographicCoordinate, _ line: [GeographicCoordinate]) -> Double {
    var best = Double.infinity
    for i in 1..<line.count { best = min(best, Geodesy.closestPoint(on: line[i - 1], line[i], to: point).distance) }
    return best
}
