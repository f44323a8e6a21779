import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import Testing
import TestSupport

/// The coordinator with a trip that starts in a parking lot 45 m from the road its route starts on: no reroute while
/// the car stands, no instruction for a road it cannot reach, one reroute (with its course) when it drives away.
@Suite struct OffRoadStartTests {
    /// The fixture route, and a lot 45 m to the side of its start, behind it.
    static func setting() throws -> (route: Route, lot: GeographicCoordinate, along: Double) {
        let route = try CoordinatorHarness.route()
        let along = Geodesy.bearing(from: route.geometry[0], to: route.geometry[1])
        return (route, Geodesy.destination(from: route.geometry[0], distance: 45, bearing: along + 180 + 70), along)
    }

    static func parked(at point: GeographicCoordinate, seconds: Int, seed: UInt64) -> [UserLocation] {
        let track = FieldTrack(speed: 5, error: .openSky, seed: seed, stops: [.init(distance: 0, seconds: Double(seconds))])
        return Array(track.fixes(along: [point, Geodesy.destination(from: point, distance: 1, bearing: 0)]).prefix(seconds))
    }

    /// A trip navigated from the lot on the first of `seconds` parked fixes: the harness and the fixes.
    static func parkedTrip(seconds: Int, seed: UInt64) throws -> (harness: CoordinatorHarness, fixes: [UserLocation]) {
        let (route, lot, _) = try setting()
        var harness = CoordinatorHarness()
        let fixes = parked(at: lot, seconds: seconds, seed: seed)
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        return (harness, fixes)
    }

    @Test func standingInTheLotNeitherReroutesNorInstructs() throws {
        var (harness, fixes) = try Self.parkedTrip(seconds: 90, seed: 3)
        let effects = harness.feed(fixes.dropFirst())
        #expect(effects.startedSessions.isEmpty, "a reroute while the car stands")
        #expect(harness.effects.events(.instruction).isEmpty, "an instruction for a road the car cannot reach")
        #expect(harness.effects.events(.deviation).isEmpty)
        let states = harness.effects.events(.tripState).filter { $0["state"] == "navigating" }
        #expect(states.count == 90)
        for state in states {
            #expect(state["deviation"]?["kind"] == "approaching")
            let distance = try #require(state["approach"]?["distance"]?.doubleValue)
            #expect(distance > 30 && distance < 60)
        }
    }

    /// navd restarts (the journal as the next process reads it) while the car still stands in the lot: the resumed
    /// trip approaches as before, with no reroute and no instruction.
    @Test func aRestartWhileStandingInTheLotStillApproaches() throws {
        var (harness, fixes) = try Self.parkedTrip(seconds: 60, seed: 4)
        _ = harness.feed(fixes[1..<30])
        let saved = try #require(harness.coordinator.checkpoint(now: harness.now))
        var restarted = CoordinatorHarness(resume: try TripJournal.record(from: try TripJournal.data(of: saved)))
        restarted.now = harness.now
        let effects = restarted.feed(fixes[30...])
        #expect(effects.startedSessions.isEmpty, "a reroute after the restart while the car stands")
        #expect(restarted.effects.events(.instruction).isEmpty, "an instruction after the restart for a road the car cannot reach")
        let states = restarted.effects.events(.tripState).filter { $0["state"] == "navigating" }
        #expect(states.count == 30)
        #expect(states.allSatisfy { $0["deviation"]?["kind"] == "approaching" && $0["approach"]?["roadName"] != nil })
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func drivingAwayReroutesOnceWithTheCourse(seed: UInt64) throws {
        let (route, lot, along) = try Self.setting()
        var harness = CoordinatorHarness()
        let parked = Self.parked(at: lot, seconds: 20, seed: seed)
        _ = harness.feed(parked[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(parked.dropFirst())
        // Off through the lot's exit, away from the route: straight back, behind its start.
        let away = Geodesy.destination(from: lot, distance: 200, bearing: along + 180)
        let drive = FieldTrack(speed: 6, error: .openSky, seed: seed, startTime: parked.last!.timestamp.addingTimeInterval(1))
            .fixes(along: [lot, away])
        var requests: [(index: Int, request: TripCoordinator.CalculationRequest)] = []
        for (i, fix) in drive.enumerated() {
            requests += harness.feed(fix).startedSessions.map { (i, $0.request) }
        }
        #expect(requests.count == 1, "\(requests.count) reroutes while leaving the lot")
        #expect(harness.effects.events(.instruction).isEmpty)
        guard case .route(let query, _)? = requests.first?.request else { return }
        let course = try #require(query.origin.course?.degrees)
        #expect(Geodesy.angleBetween(course, along + 180) < 10, "the reroute carries the car's course (\(course))")
    }
}
