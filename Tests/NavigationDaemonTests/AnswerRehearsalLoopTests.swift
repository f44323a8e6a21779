import Foundation
import LocationSources
import NavigationCore
import NavigationProtocol
import Testing

@testable import NavigationDaemon

/// The rehearsal of an answer's way (docs/daemon.md, *An answer's way rehearsed*): when it runs, and that it
/// changes nothing the loop owns.
@Suite struct AnswerRehearsalLoopTests {
    static let millisecond: Int64 = 1_000_000

    // MARK: When the answer is due

    /// Before any answer there is no time to rehearse at; after answers, ``EngineCadence/lead`` before the fastest
    /// of them; engines whose fastest answer comes before ``EngineCadence/shortest`` are not rehearsed for.
    static let answerTimes: [([Int64], Int64?)] = [
        ([], nil),
        ([5], 4),
        ([7, 4, 9], 3),
        ([2], 1),
        ([1], nil),
        ([6, 1, 8], nil),
    ]

    @Test(arguments: answerTimes)
    func theRehearsalComesTheLeadBeforeTheFastestAnswer(_ answers: [Int64], _ delay: Int64?) {
        var cadence = EngineCadence()
        for answer in answers { cadence.answered(after: answer * Self.millisecond) }
        #expect(cadence.rehearsalDelay == delay.map { $0 * Self.millisecond })
    }

    /// Only the last ``EngineCadence/remembered`` answers count: an engine that slowed down is rehearsed for at its
    /// new pace, and one that answered once too fast to rehearse for is again once that answer is forgotten.
    @Test func onlyTheLastAnswersCount() {
        var cadence = EngineCadence()
        cadence.answered(after: 1 * Self.millisecond)
        for _ in 1..<EngineCadence.remembered { cadence.answered(after: 6 * Self.millisecond) }
        #expect(cadence.rehearsalDelay == nil, "the 1 ms answer is still among the last \(EngineCadence.remembered)")
        cadence.answered(after: 6 * Self.millisecond)
        #expect(cadence.rehearsalDelay == 5 * Self.millisecond)
        #expect(cadence.recent.count == EngineCadence.remembered)
    }

    /// Times that are no engine's answer time (none, negative from clock values far apart, longer than
    /// ``EngineCadence/longest``) are not learned.
    @Test(arguments: [Int64(0), Int64(-5_000_000), Int64.min, EngineCadence.longest + 1, Int64.max])
    func aTimeThatIsNoAnswerTimeIsNotLearned(_ nanoseconds: Int64) {
        var cadence = EngineCadence()
        cadence.answered(after: nanoseconds)
        #expect(cadence.recent.isEmpty)
        #expect(cadence.rehearsalDelay == nil)
    }

    // MARK: What is rehearsed

    /// An answer with no route, or too long to rehearse without holding fixes back, is not rehearsed.
    @Test func onlyAnswersOfRoutesShortEnoughAreRehearsed() throws {
        let route = try CoordinatorHarness.route()
        #expect(Rehearsal.isRehearsable([route]))
        #expect(!Rehearsal.isRehearsable([]))
        var long = route
        long.geometry = Array(repeating: route.geometry[0], count: Rehearsal.longestAnswer + 1)
        #expect(!Rehearsal.isRehearsable([long]))
        #expect(!Rehearsal.isRehearsable([route, long]))
        let harness = CoordinatorHarness()
        #expect(Rehearsal.answer([long], session: 1, on: harness.coordinator, now: harness.now, seq: 3) == 0)
    }

    // MARK: Nothing the loop owns changes

    /// Two coordinators navigating the same trip take a second `navigate`; one has the answer's way rehearsed
    /// (three times, with the trip's own route as the last answer taken) before the real answer comes: both
    /// publish the same bytes on the answer and on the fixes after it, and journal the same record.
    @Test func aNewTripsAnswerAfterRehearsalsIsTakenAsWithoutThem() throws {
        let (navigating, route, fixes) = try CoordinatorHarness.navigating(drivenTo: 5)
        var plain = navigating
        let reply = try plain.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry[route.geometry.count / 2])]), now: plain.now)
        _ = plain.take()
        var rehearsed = plain
        for _ in 0..<3 {
            let bytes = Rehearsal.answer([route], session: reply.session, on: rehearsed.coordinator, now: rehearsed.now, seq: 12)
            #expect(bytes > 1000, "the rehearsal encoded \(bytes) bytes: the route event was not rehearsed")
        }
        let answer = route.remainder(fromStep: 1, startingAside: 0)
        let outcome = RouteCalculationRunner.Outcome(result: .success([answer]), attempts: 1)
        _ = plain.coordinator.step(.finished(session: reply.session, outcome), now: plain.now, seq: 12)
        _ = rehearsed.coordinator.step(.finished(session: reply.session, outcome), now: rehearsed.now, seq: 12)
        let expected = FixRehearsalTests.text(of: plain.take())
        #expect(expected.contains { $0.contains(#""type":"route""#) }, "the answer was not taken: the test shows less than it says")
        #expect(FixRehearsalTests.text(of: rehearsed.take()) == expected)
        for fix in fixes[6..<12] {
            #expect(FixRehearsalTests.text(of: rehearsed.feed(fix)) == FixRehearsalTests.text(of: plain.feed(fix)))
        }
        #expect(plain.coordinator.checkpoint(now: plain.now) == rehearsed.coordinator.checkpoint(now: rehearsed.now))
    }

    /// A reroute's answer after rehearsals of it (the trip's route as the last answer taken): the reroute is taken
    /// once, as by a coordinator never rehearsed, and no rehearsal left a session or a second route behind.
    @Test func aRerouteAnswerAfterItsRehearsalsIsTakenAsWithoutThem() throws {
        var plain = CoordinatorHarness.acceptingEveryReroute()
        let route = try CoordinatorHarness.route()
        _ = plain.feed(TripCoordinatorTests.offRouteDrive(route)[0])
        _ = try plain.navigate(answering: route)
        var session: Int?
        for fix in TripCoordinatorTests.offRouteDrive(route)[1...] where session == nil {
            session = plain.feed(fix).startedSessions.first?.session
        }
        let reroute = try #require(session, "no reroute on the off-route drive")
        var rehearsed = plain
        for _ in 0..<3 { _ = Rehearsal.answer([route], session: reroute, on: rehearsed.coordinator, now: rehearsed.now, seq: 30) }
        #expect(rehearsed.coordinator.calculations.keys.sorted() == [reroute])
        let stepNow = try #require(plain.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        let answer = route.remainder(fromStep: Int(stepNow) + 1, startingAside: 30)
        let outcome = RouteCalculationRunner.Outcome(result: .success([answer]), attempts: 1)
        _ = plain.coordinator.step(.finished(session: reroute, outcome), now: plain.now, seq: 30)
        _ = rehearsed.coordinator.step(.finished(session: reroute, outcome), now: rehearsed.now, seq: 30)
        let expected = plain.take()
        #expect(expected.events(.route).count == 1)
        #expect(expected.events(.route).first?["reason"] == "reroute")
        #expect(FixRehearsalTests.text(of: rehearsed.take()) == FixRehearsalTests.text(of: expected))
        #expect(plain.coordinator.checkpoint(now: plain.now) == rehearsed.coordinator.checkpoint(now: rehearsed.now))
    }
}
