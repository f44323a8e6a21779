import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import Testing

/// The arrival as clients see it in `trip_state`, through the coordinator: the fix time plus the time still to
/// drive, each stop's before the destination's, later by itself while the vehicle stands. Fix times only.
@Suite struct ArrivalCoordinatorTests {
    static func arrival(_ state: [String: JSONValue]) throws -> (time: Date, remaining: Double, pace: Double, waypoints: [JSONValue]) {
        let arrival = try #require(state["arrival"], "no arrival in \(state)")
        return (
            try #require(arrival["time"]?.stringValue.flatMap(ISO8601Timestamp.parse)), try #require(arrival["durationRemaining"]?.doubleValue),
            try #require(arrival["pace"]?.doubleValue), arrival["waypoints"]?.arrayValue ?? []
        )
    }

    @Test func everyNavigatingStateHasTheArrivalAndStandingMovesItOn() throws {
        var (harness, _, fixes) = try CoordinatorHarness.navigating(drivenTo: 40)
        let states = harness.effects.events(.tripState).filter { $0["state"]?.stringValue == "navigating" }
        #expect(states.count >= 40)
        for state in states {
            let (time, remaining, pace, waypoints) = try Self.arrival(state)
            let fixTime = try #require(state["time"]?.stringValue.flatMap(ISO8601Timestamp.parse))
            #expect(abs(time.timeIntervalSince(fixTime) - remaining) <= 0.51, "arrival \(time) is not the fix time \(fixTime) plus \(remaining) s")
            #expect((0.5...2).contains(pace))
            // One destination: the list is it, index 0 of the navigate command, with the same time.
            #expect(waypoints.count == 1 && waypoints.first?["index"]?.doubleValue == 0 && waypoints.first?["time"]?.stringValue == state["arrival"]?["time"]?.stringValue)
        }
        // Standing for a minute where fix 40 was: the arrival is one minute later, the pace unchanged.
        let before = try Self.arrival(try #require(states.last))
        var standing = fixes[40]
        standing.speed = Speed(metersPerSecond: 0)
        for second in 1...60 {
            standing.timestamp = fixes[40].timestamp.addingTimeInterval(Double(second))
            _ = harness.feed(standing)
        }
        let after = try Self.arrival(try #require(harness.effects.events(.tripState).last))
        #expect(after.pace == before.pace)
        #expect(abs(after.time.timeIntervalSince(before.time) - 60) <= 2, "the arrival moved \(after.time.timeIntervalSince(before.time)) s in a minute's standing")
    }

    /// A trip with a stop on the way (a real two-leg OSRM answer): the stop's arrival comes before the
    /// destination's by the second leg's duration (at the pace), each with its index in the navigate command;
    /// once the stop is passed, the destination only.
    @Test func aStopHasItsOwnArrivalBeforeTheDestinations() throws {
        var (harness, route, fixes, _) = try CoordinatorHarness.navigatingTwoLegs(drivenTo: 5)
        let first = try Self.arrival(try #require(harness.effects.events(.tripState).last))
        #expect(first.waypoints.map { $0["index"]?.doubleValue } == [0, 1], "\(first.waypoints)")
        let secondLeg = route.steps.filter { $0.legIndex == 1 }.reduce(0) { $0 + $1.duration }
        let stop = try #require(first.waypoints.first?["durationRemaining"]?.doubleValue)
        // Both within the pace's horizon: the legs after the stop at the pace (rounded to hundredths in the state).
        #expect(first.remaining < 1200)
        #expect(abs(first.remaining - stop - secondLeg * first.pace) <= 0.005 * secondLeg + 0.2, "stop \(stop) s, destination \(first.remaining) s, second leg \(secondLeg) s")
        // Drive on past the stop.
        _ = harness.feed(fixes.dropFirst(6))
        let reached = harness.effects.events(.waypointReached)
        #expect(!reached.isEmpty, "the stop was never reached")
        let laterStates = harness.effects.events(.tripState).filter { $0["state"]?.stringValue == "navigating" }
        let last = try Self.arrival(try #require(laterStates.last))
        #expect(last.waypoints.map { $0["index"]?.doubleValue } == [1], "\(last.waypoints)")
    }
}
