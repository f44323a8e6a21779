import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import Testing

/// One trip, one clock: the trip starts at `navigate` (or at the journal's start after a restart), and its
/// duration, distance travelled and reroute count run through every reroute and restart to the arrival.
@Suite struct TripClockTests {
    /// Feeds `fixes` until the trip arrives; the arrival's fields and the fixes that drove the trip.
    static func driveToArrival(_ harness: inout CoordinatorHarness, _ fixes: some Sequence<UserLocation>) -> (arrived: [String: JSONValue]?, fed: [UserLocation]) {
        var fed: [UserLocation] = []
        for fix in fixes {
            fed.append(fix)
            if let arrived = harness.feed(fix).events(.arrived).first { return (arrived, fed) }
        }
        return (nil, fed)
    }

    /// Metres between consecutive fixes, summed: what navd counts as driven for a vehicle that never stops.
    static func driven(_ fixes: [UserLocation]) -> Double {
        zip(fixes, fixes.dropFirst()).map { Geodesy.distance($0.coordinate, $1.coordinate) }.reduce(0, +)
    }

    /// The fixes of the off-route drive that navd accepts: the step to the track 120 m aside, and back, takes one
    /// second, faster than any vehicle, so the plausibility gate refuses the first fix on each side (fixes 20 and 26).
    static func accepted(_ drive: [UserLocation]) -> [UserLocation] {
        drive.enumerated().filter { $0.offset != 20 && $0.offset != 26 }.map(\.element)
    }

    /// A trip that drove 20 fixes on the route, 6 fixes 120 m off it and 6 back on, and got a reroute (applied).
    static func rerouted() throws -> (harness: CoordinatorHarness, on: [UserLocation], off: [UserLocation]) {
        var (harness, route, on, session) = try TripCoordinatorTests.offRouteWithRerouteInFlight(accept: .always)
        _ = harness.feed(on[26..<32])
        let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        harness.coordinator.calculationFinished(
            session: session, result: .success([route.remainder(fromStep: Int(stepNow) + 1, startingAside: 30)]), attempts: 1, now: harness.now)
        return (harness, on, CoordinatorHarness.fixes(along: route, offset: 120))
    }

    @Test func aRerouteContinuesTheTripsClockAndDistance() throws {
        var (harness, on, off) = try Self.rerouted()
        #expect(harness.take().events(.route).first?["reason"] == "reroute")
        let (arrived, rest) = Self.driveToArrival(&harness, on[32...])
        let arrival = try #require(arrived, "the trip did not arrive")
        let drive = Self.accepted(Array(on[..<20]) + off[20..<26] + on[26..<32] + rest)
        #expect(harness.coordinator.snapshot().gnss.rejectedFixes.impossibleSpeed == 2)
        #expect(arrival["startedAt"]?.stringValue == ISO8601Timestamp.format(on[0].timestamp), "the trip started at navigate")
        let duration = try #require(arrival["duration"]?.doubleValue)
        #expect(abs(duration - drive.last!.timestamp.timeIntervalSince(on[0].timestamp)) < 0.001)
        let distance = try #require(arrival["distanceTravelled"]?.doubleValue)
        #expect(abs(distance - Self.driven(drive)) < 0.05, "\(distance) m counted for \(Self.driven(drive)) m driven")
        #expect(arrival["reroutes"] == 1)
        // Every trip state after the reroute carries on the distance, never starting again from 0.
        let travelled = harness.effects.events(.tripState).compactMap { $0["distanceTravelled"]?.doubleValue }
        #expect(zip(travelled, travelled.dropFirst()).allSatisfy { $0 <= $1 }, "distanceTravelled went back")
    }

    @Test func aRestartContinuesTheTripsClockDistanceAndReroutes() throws {
        var (harness, on, off) = try Self.rerouted()
        _ = harness.feed(on[32..<40])
        let saved = try #require(harness.coordinator.checkpoint(now: harness.now))
        #expect(saved.reroutes == 1)
        #expect(saved.startedAt == on[0].timestamp)
        // The journal as the next process reads it, from its bytes.
        let record = try TripJournal.record(from: try TripJournal.data(of: saved))
        #expect(record == saved)

        var restarted = CoordinatorHarness(resume: record)
        restarted.now = harness.now
        // The vehicle drove on while navd was down (fix 40 is not seen): the gap is driven, too.
        let (arrived, rest) = Self.driveToArrival(&restarted, on[41...])
        let arrival = try #require(arrived, "the resumed trip did not arrive")
        #expect(arrival["startedAt"]?.stringValue == ISO8601Timestamp.format(on[0].timestamp))
        #expect(arrival["reroutes"] == 1)
        let before = Self.driven(Self.accepted(Array(on[..<20]) + off[20..<26] + on[26..<40]))
        let after = Self.driven(rest)
        let distance = try #require(arrival["distanceTravelled"]?.doubleValue)
        // navd counts nothing for the two fixes' gap across the restart (it cannot know the way driven).
        #expect(abs(distance - (before + after)) < 0.05, "\(distance) m counted for \(before) + \(after) m")
    }

    @Test(arguments: [("distanceTravelled", "1e300"), ("distanceTravelled", "-5"), ("reroutes", "-1"), ("reroutes", "9.3e18"), ("distanceAlong", "1e300")])
    func aJournalWithANumberOutOfRangeIsNotResumed(key: String, value: String) throws {
        let route = try CoordinatorHarness.route()
        let saved = TripJournalRecord(
            routeId: "r", route: route, options: .object([:]), distanceAlong: 10, stepIndex: 0, startedAt: CoordinatorHarness.start,
            savedAt: CoordinatorHarness.start, distanceTravelled: 10, reroutes: 0)
        var object = try #require(try JSONSerialization.jsonObject(with: try TripJournal.data(of: saved)) as? [String: Any])
        object[key] = "VALUE"
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            .replacingOccurrences(of: "\"VALUE\"", with: value)
        #expect(throws: TripJournal.UnreadableJournal.self) { try TripJournal.record(from: Data(text.utf8)) }
    }
}
