import Foundation
import LocationSources
import NavigationCore
import NavigationProtocol
import Testing

@testable import NavigationDaemon

/// The rehearsal of a fix's way (docs/daemon.md, *A fix's way rehearsed*): when it runs, and that it changes
/// nothing the loop owns.
@Suite struct FixRehearsalTests {
    static let millisecond: Int64 = 1_000_000

    // MARK: When the next fix is due

    /// Receiver rates from 20 Hz to one fix in 2 s: the rehearsal comes ``FixCadence/lead`` before the next fix.
    @Test(arguments: [Int64(50), 100, 200, 1000, 2000])
    func theRehearsalComesTheLeadBeforeTheNextFix(_ gapMilliseconds: Int64) {
        var cadence = FixCadence()
        let gap = gapMilliseconds * Self.millisecond
        let first: Int64 = 5_000 * Self.millisecond
        cadence.fixArrived(at: first)
        #expect(cadence.rehearsalTime == nil, "one fix says no rate")
        cadence.fixArrived(at: first + gap)
        #expect(cadence.rehearsalTime == first + 2 * gap - FixCadence.lead)
        #expect(cadence.intervalSeconds == Double(gapMilliseconds) / 1000)
    }

    /// A burst (two fixes close together after an outage) or a gap longer than a receiver's rate stops the
    /// rehearsals until two fixes come at a rate again; clock values far apart do not overflow.
    @Test(arguments: [Int64(0), 1, 49, 2001, 60_000])
    func aGapThatIsNoReceiverRateStopsTheRehearsals(_ gapMilliseconds: Int64) {
        var cadence = FixCadence()
        cadence.fixArrived(at: 0)
        cadence.fixArrived(at: 100 * Self.millisecond)
        #expect(cadence.rehearsalTime != nil)
        let odd = 100 * Self.millisecond + gapMilliseconds * Self.millisecond
        cadence.fixArrived(at: odd)
        #expect(cadence.rehearsalTime == nil)
        cadence.fixArrived(at: odd + 100 * Self.millisecond)
        #expect(cadence.rehearsalTime == odd + 200 * Self.millisecond - FixCadence.lead)
    }

    static let farApart: [(Int64, Int64)] = [(Int64.min, Int64.max), (Int64.max, Int64.min), (0, Int64.max)]

    @Test(arguments: farApart)
    func clockValuesFarApartGiveNoRate(_ times: (Int64, Int64)) {
        var cadence = FixCadence()
        cadence.fixArrived(at: times.0)
        cadence.fixArrived(at: times.1)
        #expect(cadence.rehearsalTime == nil)
        #expect(cadence.intervalSeconds == nil)
    }

    // MARK: The fix rehearsed

    static let carries: [(seconds: Double, speed: Double, course: Double)] = [(0.1, 10.0, 90.0), (0.2, 25.0, 0.0), (1.0, 13.9, 225.0)]

    @Test(arguments: carries)
    func theRehearsedFixIsCarriedAlongItsCourse(_ values: (seconds: Double, speed: Double, course: Double)) {
        let start = GeographicCoordinate(latitude: 60.17, longitude: 24.94)
        let time = Date(timeIntervalSince1970: 1_795_241_290)
        let fix = GNSSFix(
            location: UserLocation(
                coordinate: start, horizontalAccuracy: 4, course: CourseOverGround(degrees: values.course),
                speed: Speed(metersPerSecond: values.speed), timestamp: time),
            quality: GNSSQuality(mode: .threeDimensional))
        let carried = fix.carried(by: values.seconds)
        #expect(carried.location.timestamp == time.addingTimeInterval(values.seconds))
        #expect(abs(Geodesy.distance(start, carried.location.coordinate) - values.speed * values.seconds) < 0.01)
        #expect(abs(Geodesy.bearing(from: start, to: carried.location.coordinate) - values.course) < 0.1)
        #expect(carried.quality == fix.quality)
        #expect(carried.location.speed == fix.location.speed)
    }

    @Test func aFixWithoutSpeedOrCourseStaysWhereItWas() {
        let fix = GNSSFix(
            location: UserLocation(
                coordinate: GeographicCoordinate(latitude: 60.17, longitude: 24.94), horizontalAccuracy: 4,
                timestamp: Date(timeIntervalSince1970: 1_795_241_290)),
            quality: GNSSQuality(mode: .twoDimensional))
        let carried = fix.carried(by: 0.1)
        #expect(carried.location.coordinate == fix.location.coordinate)
        #expect(carried.location.timestamp == fix.location.timestamp.addingTimeInterval(0.1))
    }

    // MARK: Nothing the loop owns changes

    /// The effects of a fix, as comparable text: each published event's line, every other effect described.
    static func text(of effects: [TripCoordinator.Effect]) -> [String] {
        effects.map { effect in
            if case .publish(let event, let routeId) = effect {
                return String(decoding: EventMessage.line(seq: 1, routeId: routeId, event: event), as: UTF8.self)
            }
            return "\(effect)"
        }
    }

    /// Two coordinators on the same drive, one with the next fix rehearsed before every fix: every fix's effects
    /// are the same to the byte, on the route, off it (a deviation and a reroute decided in the rehearsal first)
    /// and through the reroute's answer; every rehearsal encoded at least the fix's `trip_state` line.
    @Test func aRehearsedCoordinatorDoesWhatOneNeverRehearsedDoes() throws {
        let route = try CoordinatorHarness.route()
        let drive = TripCoordinatorTests.offRouteDrive(route)
        var plain = CoordinatorHarness()
        _ = plain.feed(drive[0])
        _ = try plain.navigate(answering: route)
        var rehearsed = plain
        // The fixes the gate refuses (the step 120 m aside in one second: TripClockTests.accepted) publish nothing;
        // the rehearsal of the fix after an accepted one steps a fix the gate accepts and encodes its trip_state.
        var previousAccepted = true
        for index in 1..<drive.count {
            let previous = GNSSFix(location: drive[index - 1], quality: GNSSQuality(mode: .threeDimensional))
            let gap = drive[index].timestamp.timeIntervalSince(drive[index - 1].timestamp)
            let bytes = Rehearsal.fix(previous.carried(by: gap), on: rehearsed.coordinator, now: rehearsed.now.addingTimeInterval(gap), seq: 41)
            if previousAccepted { #expect(bytes > 100, "the rehearsal of fix \(index) encoded \(bytes) bytes") }
            let effects = plain.feed(drive[index])
            let expected = Self.text(of: effects)
            let got = Self.text(of: rehearsed.feed(drive[index]))
            #expect(got == expected, "fix \(index)")
            if got != expected { break }
            previousAccepted = !effects.events(.tripState).isEmpty
        }
        #expect(plain.effects.startedSessions.map(\.session) == rehearsed.effects.startedSessions.map(\.session))
        #expect(!plain.effects.startedSessions.isEmpty, "the drive never left the route: the test shows less than it says")
        #expect(plain.coordinator.checkpoint(now: plain.now) == rehearsed.coordinator.checkpoint(now: rehearsed.now))
    }

    /// A reroute's answer after rehearsals that each decided the same reroute: the reroute is started once, its
    /// session is the only one, and its answer is applied as by a coordinator never rehearsed (the rehearsals'
    /// sessions never existed).
    @Test func aRerouteAnswerAfterRehearsalsIsTakenAsWithoutThem() throws {
        var harness = CoordinatorHarness.acceptingEveryReroute()
        let route = try CoordinatorHarness.route()
        // As TripCoordinatorTests.offRouteWithRerouteInFlight, then back on the route (as TripClockTests.rerouted).
        let on = CoordinatorHarness.fixes(along: route)
        let drive = Array(on[..<20] + CoordinatorHarness.fixes(along: route, offset: 120)[20..<26] + on[26..<32])
        _ = harness.feed(drive[0])
        _ = try harness.navigate(answering: route)
        var started: [Int] = []
        for index in 1..<32 {
            let previous = GNSSFix(location: drive[index - 1], quality: GNSSQuality(mode: .threeDimensional))
            // Rehearsed three times: each on a copy, none leaves a session behind.
            for _ in 0..<3 { _ = Rehearsal.fix(previous.carried(by: 1), on: harness.coordinator, now: harness.now, seq: 7) }
            started += harness.feed(drive[index]).startedSessions.map(\.session)
        }
        let session = try #require(started.first, "no reroute on the off-route drive")
        #expect(started == [session], "one reroute")
        #expect(harness.coordinator.calculations.keys.sorted() == [session])
        let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        harness.coordinator.calculationFinished(
            session: session, result: .success([route.remainder(fromStep: Int(stepNow) + 1, startingAside: 30)]), attempts: 1, now: harness.now)
        let events = harness.take().events(.route)
        #expect(events.count == 1)
        #expect(events.first?["reason"] == "reroute")
        #expect(events.first?["session"]?.doubleValue == Double(session))
    }
}
