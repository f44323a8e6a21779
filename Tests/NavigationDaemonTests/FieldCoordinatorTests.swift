import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import Testing

/// The coordinator's part of the field: the plausibility gate before the controller, dead reckoning on the tick,
/// a stale position said out loud, and a course only when it means something.
@Suite("Coordinator in the field")
struct FieldCoordinatorTests {
    @Test func implausibleFixesAreRejectedCountedAndMoveNothing() throws {
        var (harness, _, fixes) = try CoordinatorHarness.navigating(drivenTo: 20)
        var teleport = fixes[21]
        teleport.coordinate = Geodesy.destination(from: teleport.coordinate, distance: 5_000_000, bearing: 90)
        let rejected = harness.feed(teleport)
        #expect(rejected.events(.tripState).isEmpty, "a rejected fix publishes no trip state")
        #expect(rejected.events(.deviation).isEmpty)
        #expect(rejected.contains { if case .log(.notice, let m) = $0 { m.contains("impossible speed") } else { false } })
        var past = fixes[5]
        past.timestamp = fixes[20].timestamp.addingTimeInterval(-10)
        #expect(harness.feed(past).events(.tripState).isEmpty)
        #expect(harness.feed(fixes[20]).events(.tripState).isEmpty, "a repeated time is rejected too")
        let snapshot = harness.coordinator.snapshot(now: harness.now)
        #expect(snapshot.gnss.rejectedFixes == .init(backwardsInTime: 1, repeatedTime: 1, impossibleSpeed: 1))
        // The drive goes on from where it was: the next good fix is navigated, the distance travelled unharmed.
        let next = harness.feed(fixes[21]).events(.tripState).first
        #expect(next?["state"] == "navigating")
        let travelled = try #require(next?["distanceTravelled"]?.doubleValue)
        #expect(travelled < 10 * 21 + 5, "\(travelled) m after 21 fixes at 10 m/s")
    }

    /// Found by the whole-daemon fuzz: a fix dated decades ahead at the vehicle's place was accepted, and the trip's
    /// real fixes after it were refused as going back in time.
    @Test func aFixDatedDecadesAheadChangesNothingAndTheDriveGoesOn() throws {
        var (harness, _, fixes) = try CoordinatorHarness.navigating(drivenTo: 20)
        var future = fixes[21]
        future.timestamp = fixes[21].timestamp.addingTimeInterval(86_400 * 365 * 150)
        let refused = harness.feed(future)
        #expect(refused.events(.tripState).isEmpty)
        #expect(refused.contains { if case .log(.notice, let m) = $0 { m.contains("more than an hour after") } else { false } })
        for index in 21...30 {
            let state = harness.feed(fixes[index]).events(.tripState).first
            #expect(state?["state"] == "navigating", "fix \(index)")
        }
        let snapshot = harness.coordinator.snapshot(now: harness.now)
        #expect(snapshot.gnss.rejectedFixes == .init(backwardsInTime: 0, repeatedTime: 0, impossibleSpeed: 0, timeJump: 1))
        let last = try #require(harness.feed(fixes[31]).events(.tripState).first)
        #expect(try #require(last["distanceTravelled"]?.doubleValue) < 10 * 31 + 5)
    }

    @Test func throughAnOutagePredictedStatesAreMarkedAndPromptsSaid() throws {
        var (harness, _, fixes) = try CoordinatorHarness.navigating(drivenTo: 40)
        // 30 s without fixes: the service ticks once a second.
        var predicted: [[String: JSONValue]] = []
        var spoken: [String] = []
        for second in 1...30 {
            harness.now = fixes[40].timestamp.addingTimeInterval(Double(second))
            harness.coordinator.tick(now: harness.now)
            let effects = harness.take()
            predicted += effects.events(.tripState)
            spoken += effects.events(.instruction).filter { $0["kind"] == "spoken" }.compactMap { $0["utteranceId"]?.stringValue }
        }
        #expect(predicted.count == 29, "a prediction per tick from 2 s on")
        #expect(predicted.allSatisfy { $0["predicted"] == true })
        let remaining = predicted.compactMap { $0["progress"]?["distanceRemaining"]?.doubleValue }
        #expect(zip(remaining, remaining.dropFirst()).allSatisfy { $1 < $0 }, "progress moves on")
        #expect(abs((remaining.first ?? 0) - (remaining.last ?? 0) - 280) < 15, "10 m/s for 28 s")
        #expect(!spoken.isEmpty, "prompts that fell due in the outage were said")
        // The first real fix after the outage: not predicted, nothing said twice.
        let after = harness.feed(fixes[71])
        #expect(after.events(.tripState).first?["predicted"] == nil)
        let again = after.events(.instruction).compactMap { $0["utteranceId"]?.stringValue }
        #expect(Set(again).isDisjoint(with: spoken))
        #expect(after.events(.deviation).isEmpty)
        // Past `gnss.dead_reckoning` (60 s) nothing more is predicted.
        harness.now = fixes[71].timestamp.addingTimeInterval(61)
        harness.coordinator.tick(now: harness.now)
        #expect(harness.take().events(.tripState).isEmpty)
    }

    @Test func nothingIsPredictedAfterAReplayEnds() throws {
        var (harness, _, fixes) = try CoordinatorHarness.navigating(drivenTo: 10)
        harness.coordinator.handle(.finished)
        harness.now = fixes[10].timestamp.addingTimeInterval(5)
        harness.coordinator.tick(now: harness.now)
        #expect(harness.take().events(.tripState).isEmpty)
    }

    @Test func navigateSaysWhenItsPositionIsOld() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let fix = CoordinatorHarness.fixes(along: route)[0]
        _ = harness.feed(fix)
        let fresh = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: harness.now)
        #expect(fresh.originStale == false)
        #expect(fresh.originAge == 0)
        harness.now += 40
        let stale = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: harness.now)
        #expect(stale.originStale == true)
        #expect(stale.originAge == 40)
        #expect(harness.take().contains { if case .log(.warning, let m) = $0 { m.contains("40 s old") } else { false } })
        #expect(harness.coordinator.snapshot(now: harness.now).gnss.lastFixAge == 40)
    }

    /// A parked vehicle's held course is not sent to the engine (Valhalla's `heading`, OSRM's hard `bearings`).
    @Test(arguments: [(0.0, false), (1.0, false), (8.0, true)])
    func aCourseGoesIntoTheRequestOnlyWhenMoving(speed: Double, expectsCourse: Bool) throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        var fix = CoordinatorHarness.fixes(along: route)[0]
        fix.speed = Speed(metersPerSecond: speed)
        fix.course = CourseOverGround(degrees: 200)
        _ = harness.feed(fix)
        _ = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: harness.now)
        let started = try #require(harness.take().startedSessions.first)
        guard case .route(let query, _) = started.request else {
            Issue.record("not a route request")
            return
        }
        #expect((query.origin.course != nil) == expectsCourse, "speed \(speed) m/s")
    }
}
