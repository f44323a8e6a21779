import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import RouteClient
import Testing

@Suite struct TripCoordinatorTests {
    @Test func navigateBeforeTheFirstFixWaitsThenRoutesFromIt() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let reply = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: harness.now)
        #expect(reply.waitingForFix == true)
        let waiting = harness.take()
        #expect(waiting.events(.routeCalculation).first?["waiting"] == "gnss_fix")
        #expect(waiting.startedSessions.isEmpty, "no request without an origin")
        let first = CoordinatorHarness.fixes(along: route)[0]
        let started = harness.feed(first).startedSessions
        #expect(started.count == 1)
        if case .route(let query, _)? = started.first?.request { #expect(query.origin == first) } else { Issue.record("no route request") }
    }

    @Test func aNavigateWaitingTooLongForAFixFails() throws {
        var harness = CoordinatorHarness()
        _ = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: .init(latitude: 60.17, longitude: 24.94))]), now: harness.now)
        _ = harness.take()
        harness.coordinator.tick(now: harness.now.addingTimeInterval(59))
        #expect(harness.take().events(.routeCalculation).isEmpty)
        harness.coordinator.tick(now: harness.now.addingTimeInterval(60))
        let failed = harness.take().events(.routeCalculation)
        #expect(failed.first?["status"] == "failed")
        #expect(failed.first?["error"]?["code"] == "no_gnss_fix")
        #expect(harness.coordinator.phase == "idle")
    }

    @Test func eachInstructionIsPublishedExactlyOnceAndArrivalDeletesTheJournal() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes.dropFirst())
        let instructions = harness.effects.events(.instruction)
        let keys = instructions.map { "\($0["kind"]!)|\($0["stepIndex"]!)|\($0["instruction"]!)" }
        #expect(instructions.count > 5)
        #expect(Set(keys).count == keys.count, "an instruction was published twice")
        let steps = instructions.compactMap { $0["stepIndex"]?.doubleValue }
        #expect(steps == steps.sorted())
        #expect(harness.effects.events(.arrived).count == 1)
        #expect(harness.effects.contains { if case .deleteJournal = $0 { true } else { false } })
        let saves = harness.effects.filter { if case .saveJournal = $0 { true } else { false } }
        #expect(saves.count >= route.steps.count - 1, "journal saved on every step change")
        #expect(harness.coordinator.activeRouteId == nil)
    }

    /// Leaves the route: 120 m to the right of it from fix `from` on.
    static func offRouteDrive(_ route: Route, from: Int = 20) -> [UserLocation] {
        let on = CoordinatorHarness.fixes(along: route)
        let off = CoordinatorHarness.fixes(along: route, offset: 120)
        return Array(on[..<from]) + off[from...]
    }

    /// A trip on the fixture route whose vehicle left it: the reroute session is in flight.
    static func tripWithRerouteInFlight() throws -> (CoordinatorHarness, Route, Int) {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let drive = Self.offRouteDrive(route)
        _ = harness.feed(drive[0])
        _ = try harness.navigate(answering: route)
        let session = try #require(harness.feed(drive[1..<30]).startedSessions.first?.session)
        return (harness, route, session)
    }

    @Test func leavingTheRouteStartsOneRerouteFromThePredictedPosition() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let drive = Self.offRouteDrive(route)
        _ = harness.feed(drive[0])
        _ = try harness.navigate(answering: route)
        var reroutes: [(session: Int, request: TripCoordinator.CalculationRequest)] = []
        var at = 0
        for (i, fix) in drive.enumerated().dropFirst() {
            let started = harness.feed(fix).startedSessions
            if !started.isEmpty, reroutes.isEmpty { at = i }
            reroutes += started
            if i > 40 { break }
        }
        #expect(reroutes.count == 1, "one request in flight at a time")
        let deviation = try #require(harness.effects.events(.deviation).first)
        #expect(deviation["offRoute"] == true)
        #expect(deviation["reroute"] == "requested")
        guard case .route(let query, _)? = reroutes.first?.request else {
            Issue.record("no reroute request")
            return
        }
        let fix = drive[at]
        let ahead = Geodesy.distance(fix.coordinate, query.origin.coordinate)
        #expect(abs(ahead - 10 * harness.coordinator.expectedRerouteLatency) < 1, "origin \(ahead) m ahead")
        #expect(query.origin.course == fix.course, "the heading goes with the request")
        #expect(query.waypoints.last?.coordinate == route.geometry.last)
    }

    /// A trip whose vehicle drove 20 fixes on the route, then 6 fixes 120 m off it: a reroute is in flight.
    /// `clockAhead`: seconds the service's clock runs ahead of GNSS time.
    static func offRouteWithRerouteInFlight(accept: NavdConfig.Reroute.Acceptance, clockAhead: Double = 0) throws
        -> (harness: CoordinatorHarness, route: Route, on: [UserLocation], session: Int)
    {
        var settings = NavdConfig.Reroute()
        settings.accept = accept
        var harness = CoordinatorHarness(reroute: settings)
        harness.now = CoordinatorHarness.start.addingTimeInterval(clockAhead)
        let route = try CoordinatorHarness.route()
        let on = CoordinatorHarness.fixes(along: route)
        let off = CoordinatorHarness.fixes(along: route, offset: 120)
        _ = harness.feed(on[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(on[1..<20])
        let session = try #require(harness.feed(off[20..<26]).startedSessions.first?.session)
        return (harness, route, on, session)
    }

    @Test(arguments: [NavdConfig.Reroute.Acceptance.ifStillOffRoute, .always])
    func aRerouteArrivingAfterTheVehicleReturnedFollowsThePolicy(_ acceptance: NavdConfig.Reroute.Acceptance) throws {
        var (harness, route, on, session) = try Self.offRouteWithRerouteInFlight(accept: acceptance)
        _ = harness.feed(on[26..<32])  // back on the route before the answer
        // The answer starts at the vehicle: the start of the step it is on.
        let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        let answer = route.remainder(fromStep: Int(stepNow) + 1, startingAside: 30)
        harness.coordinator.calculationFinished(session: session, result: .success([answer]), attempts: 1, now: harness.now)
        let result = harness.take()
        let succeeded = try #require(result.events(.routeCalculation).first)
        #expect(succeeded["applied"] == .bool(acceptance == .always))
        #expect(result.events(.route).count == (acceptance == .always ? 1 : 0))
    }

    /// An answer that is the route already in use (an engine snapping an off-road vehicle to the same road again)
    /// is not applied: no retraction, no new route, no prompt again; the session says why.
    @Test(arguments: [0, 1])
    func aRerouteAnsweringTheRouteInUseIsNotApplied(stepsBack: Int) throws {
        var (harness, route, _, session) = try Self.offRouteWithRerouteInFlight(accept: .always)
        let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        let sentBefore = harness.effects.events(.instruction).count
        // The same road from the next maneuver on, or from the start of the current step (behind the vehicle).
        let answer = route.remainder(fromStep: Int(stepNow) + 1 - stepsBack)
        harness.coordinator.calculationFinished(session: session, result: .success([answer]), attempts: 1, now: harness.now)
        let result = harness.take()
        let finished = try #require(result.events(.routeCalculation).first)
        #expect(finished["status"] == "succeeded")
        #expect(finished["applied"] == false)
        #expect(finished["reason"]?.stringValue?.contains("the route already in use") == true, "\(finished)")
        #expect(result.events(.route).isEmpty)
        #expect(result.events(.instructionRetracted).isEmpty)
        #expect(harness.effects.events(.instruction).count == sentBefore)
        #expect(harness.coordinator.activeRouteId == "t-1")
    }

    /// The engine's latency is measured on the service's clock alone: a board clock two hours off GNSS time
    /// used to be measured as a two-hour reroute (then clamped to 5 s), pushing every reroute origin too far ahead.
    @Test func theRerouteLatencyIsMeasuredOnOneClock() throws {
        var (harness, route, _, session) = try Self.offRouteWithRerouteInFlight(accept: .always, clockAhead: 7200)
        let before = harness.coordinator.expectedRerouteLatency
        let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        harness.now += 2  // the engine took two seconds
        harness.coordinator.calculationFinished(
            session: session, result: .success([route.remainder(fromStep: Int(stepNow) + 1, startingAside: 30)]), attempts: 1, now: harness.now)
        #expect(harness.take().events(.route).count == 1, "the reroute was not applied")
        #expect(abs(harness.coordinator.expectedRerouteLatency - (0.7 * before + 0.3 * 2)) < 1e-9)
    }

    @Test func aRerouteCompletingAfterCancelNeverRevivesTheTrip() throws {
        var (harness, route, session) = try Self.tripWithRerouteInFlight()
        _ = harness.coordinator.cancel()
        let cancelled = harness.take()
        #expect(cancelled.contains { if case .cancelCalculation(session) = $0 { true } else { false } })
        #expect(cancelled.events(.instructionRetracted).count == 1)
        harness.coordinator.calculationFinished(session: session, result: .success([route]), attempts: 1, now: harness.now)
        #expect(harness.take().isEmpty, "a finished session of a cancelled trip publishes nothing")
        #expect(harness.coordinator.activeRouteId == nil)
        #expect(harness.coordinator.phase == "idle")
    }

    @Test func aRerouteWhoseFirstManeuverIsBehindTheVehicleIsRejected() throws {
        var (harness, route, session) = try Self.tripWithRerouteInFlight()
        // An answer that starts where the trip started: its first maneuver is far behind the vehicle.
        let vehicleOnRoute = CoordinatorHarness.fixes(along: route)[60]
        _ = harness.feed(vehicleOnRoute)
        var settings = NavdConfig()
        settings.reroute.accept = .always
        harness.coordinator.update(settings: TripCoordinator.Settings(config: settings))
        harness.coordinator.calculationFinished(session: session, result: .success([route]), attempts: 1, now: harness.now)
        let result = harness.take().events(.routeCalculation).first
        #expect(result?["applied"] == false)
        #expect(result?["reason"]?.stringValue?.contains("behind") == true, "\(String(describing: result))")
    }

    @Test func repeatedReroutesAreALoopThatPausesRerouting() throws {
        var settings = NavdConfig.Reroute()
        settings.loopCount = 2
        settings.cooldown = 0
        settings.minimumMovement = 0
        settings.accept = .always
        var harness = CoordinatorHarness(reroute: settings)
        let route = try CoordinatorHarness.route()
        let on = CoordinatorHarness.fixes(along: route)
        let off = CoordinatorHarness.fixes(along: route, offset: 150)
        _ = harness.feed(on[0])
        _ = try harness.navigate(answering: route)
        var ended = 0
        var index = 1
        // The "engine" keeps answering with the original route, which the vehicle keeps not following (applied, or
        // refused as starting behind the vehicle: either way the reroute ended and counts toward the loop).
        while index < 60 {
            for session in harness.feed(off[index]).startedSessions.map(\.session) {
                harness.coordinator.calculationFinished(session: session, result: .success([route]), attempts: 1, now: harness.now)
                if harness.take().events(.routeCalculation).contains(where: { $0["status"] == "succeeded" }) { ended += 1 }
            }
            index += 1
        }
        #expect(ended == 2, "reroutes that ended before the loop was detected: \(ended)")
        let decisions = harness.effects.events(.deviation).compactMap { $0["reroute"]?.stringValue }
        #expect(decisions.contains("loop_detected"))
        #expect(harness.coordinator.snapshot().reroute.resumesAt != nil)
    }

    @Test func aFailedRerouteKeepsTheOldRouteAndAllowsAnotherAttempt() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let drive = Self.offRouteDrive(route)
        _ = harness.feed(drive[0])
        _ = try harness.navigate(answering: route)
        let routeId = harness.coordinator.activeRouteId
        let session = try #require(harness.feed(drive[1..<30]).startedSessions.first?.session)
        let refused = RouteFetchError(server: "http://127.0.0.1:1", kind: .connectionFailed, detail: "Connection refused")
        let valhalla = RouteEndpoint.Identity(name: "valhalla", server: "http://127.0.0.1:1")
        harness.coordinator.calculationAttemptFailed(session: session, .init(attempt: 1, engine: valhalla, error: refused, retryIn: 1))
        let retry = harness.take().events(.routeCalculation).first
        #expect(retry?["status"] == "in_progress")
        #expect(retry?["error"]?["code"] == "connection_failed")
        #expect(retry?["engine"]?["name"] == "valhalla")
        #expect(retry?["fallbackTo"] == nil)
        harness.coordinator.calculationFinished(session: session, result: .failure(refused), attempts: 4, now: harness.now)
        #expect(harness.take().events(.routeCalculation).first?["status"] == "failed")
        #expect(harness.coordinator.activeRouteId == routeId, "navigation continues on the old route")
        let next = harness.feed(drive[30..<45]).startedSessions
        #expect(next.count == 1, "a new reroute once the gate allows it")
    }

    @Test func aRerouteAnsweredByAFallbackNamesTheEngineThatAnsweredAndTheOneThatFailed() throws {
        var (harness, route, session) = try Self.tripWithRerouteInFlight()
        let valhalla = RouteEndpoint.Identity(name: "valhalla", server: "https://valhalla.example.com")
        let osrm = RouteEndpoint.Identity(name: "osrm", server: "http://127.0.0.1:5000")
        let refused = RouteFetchError(server: valhalla.server, kind: .connectionFailed, detail: "Connection refused")
        harness.coordinator.calculationAttemptFailed(session: session, .init(attempt: 2, engine: valhalla, error: refused, retryIn: 0, next: osrm))
        let moving = try #require(harness.take().events(.routeCalculation).first)
        #expect(moving["status"] == "in_progress")
        #expect(moving["fallbackTo"]?["name"] == "osrm")
        #expect(moving["fallbackTo"]?["server"] == "http://127.0.0.1:5000")
        let answer = route.remainder(fromStep: 1, startingAside: 30)
        harness.coordinator.calculationFinished(
            session: session,
            .init(result: .success([answer]), attempts: 3, answeredBy: osrm, failedEngines: [.init(engine: valhalla, error: refused)]),
            now: harness.now)
        let finished = try #require(harness.take().events(.routeCalculation).first)
        #expect(finished["status"] == "succeeded")
        #expect(finished["engine"]?["name"] == "osrm")
        #expect(finished["failedEngines"]?.arrayValue?.count == 1)
        #expect(finished["failedEngines"]?.arrayValue?.first?["name"] == "valhalla")
        #expect(finished["failedEngines"]?.arrayValue?.first?["error"]?["code"] == "connection_failed")
    }

    @Test func aJournaledTripResumesWithItsRouteIdOnTheFirstFix() throws {
        let route = try CoordinatorHarness.route()
        let record = TripJournalRecord(
            routeId: "old-7", route: route, options: .object([:]), distanceAlong: 300, stepIndex: 1, startedAt: CoordinatorHarness.start,
            savedAt: CoordinatorHarness.start)
        var harness = CoordinatorHarness(resume: record)
        #expect(harness.coordinator.phase == "resuming")
        let fixes = CoordinatorHarness.fixes(along: route)
        let effects = harness.feed(fixes[31])
        let resumed = try #require(effects.events(.route).first)
        #expect(resumed["reason"] == "resumed")
        #expect(effects.compactMap(\.event).first { $0.type == .route }?.routeId == "old-7")
        let state = try #require(effects.events(.tripState).first)
        #expect(state["state"] == "navigating")
    }
}

@Suite struct JournalFreshnessByGNSSTimeTests {
    /// A journal from an earlier boot whose last fix was `lastFixOffset` seconds after the harness start; the
    /// first fix comes at the harness start plus 31 s (default max age: 3600 s).
    @Test(arguments: [
        (0.0, true),  // the fix is 31 s after the journal's last fix: resumed
        (-7200.0, false),  // the journal's last fix is two hours before the first fix: too old
        (3600.0, false),  // the journal's fix lies an hour after the first fix: another time line, not resumed
    ])
    func theFirstFixDecides(lastFixOffset: Double, resumes: Bool) throws {
        let route = try CoordinatorHarness.route()
        let record = TripJournalRecord(
            routeId: "old-7", route: route, options: .object([:]), distanceAlong: 300, stepIndex: 1, startedAt: CoordinatorHarness.start,
            // The wall clock that wrote it was years ahead: it plays no part.
            savedAt: CoordinatorHarness.start.addingTimeInterval(5 * 365 * 86_400),
            lastFixTime: CoordinatorHarness.start.addingTimeInterval(lastFixOffset))
        var harness = CoordinatorHarness(resume: record, confirmResumeAge: true)
        #expect(harness.coordinator.phase == "resuming")
        let effects = harness.feed(CoordinatorHarness.fixes(along: route)[31])
        if resumes {
            #expect(effects.events(.route).first?["reason"] == "resumed")
            #expect(harness.coordinator.activeRouteId == "old-7")
            #expect(effects.events(.tripState).first?["state"] == "navigating")
        } else {
            #expect(effects.events(.route).isEmpty)
            #expect(harness.coordinator.activeRouteId == nil)
            #expect(harness.coordinator.phase == "idle")
            #expect(effects.events(.tripState).first?["state"] == "idle")
            #expect(effects.contains { if case .deleteJournal = $0 { true } else { false } })
        }
    }

    @Test func theJournalWrittenAfterResumingCarriesTheFixTime() throws {
        let route = try CoordinatorHarness.route()
        let record = TripJournalRecord(
            routeId: "old-7", route: route, options: .object([:]), distanceAlong: 300, stepIndex: 1, startedAt: CoordinatorHarness.start,
            savedAt: CoordinatorHarness.start, lastFixTime: CoordinatorHarness.start)
        var harness = CoordinatorHarness(resume: record, confirmResumeAge: true)
        let fix = CoordinatorHarness.fixes(along: route)[31]
        _ = harness.feed(fix)
        let checkpoint = try #require(harness.coordinator.checkpoint(now: harness.now))
        #expect(checkpoint.lastFixTime == fix.timestamp)
    }
}

@Suite struct TripCoordinatorCommandTests {
    static func twoLegRoute() throws -> Route {
        let data = try Data(
            contentsOf: CoordinatorHarness.repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/helsinki_osrm_two_legs.json"))
        return try #require(try OSRMResponseParser().parseRoutes(from: data).first)
    }

    @Test func anIntermediateStopIsReportedOnceThenTheDestination() throws {
        var harness = CoordinatorHarness()
        let route = try Self.twoLegRoute()
        #expect(route.legCount == 2)
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        let stops = Array(route.waypoints.dropFirst())
        let reply = try harness.coordinator.navigate(NavigateCommand(waypoints: stops), now: harness.now)
        let session = reply.session
        harness.coordinator.calculationFinished(session: session, result: .success([route]), attempts: 1, now: harness.now)
        _ = harness.take()
        _ = harness.feed(fixes.dropFirst())
        let reached = harness.effects.events(.waypointReached)
        #expect(reached.count == 1)
        #expect(reached.first?["index"] == 0)
        #expect(reached.first?["lat"]?.doubleValue == stops[0].coordinate.latitude)
        let order = harness.effects.compactMap(\.event).map(\.type).filter { $0 == .waypointReached || $0 == .arrived }
        #expect(order == [.waypointReached, .arrived])
    }

    /// A stock OSRM matches at most 100 points: a longer trace is an error that says so, not a failing session.
    @Test func aTraceLongerThanOSRMTakesIsRefusedWithTheLimit() throws {
        var config = NavdConfig()
        config.routing.engine = .osrm
        var coordinator = TripCoordinator(settings: TripCoordinator.Settings(config: config), idPrefix: "t")
        func trace(_ count: Int) throws -> SnapRouteCommand {
            try SnapRouteCommand(fields: CommandFields(["trace": .array((0..<count).map { i in
                ["lat": .number(60.17 + Double(i) * 1e-5), "lon": 24.94]
            })]))
        }
        let long = try trace(101)
        #expect(throws: ProtocolError.self) { try coordinator.snapRoute(long, now: CoordinatorHarness.start) }
        do throws(ProtocolError) {
            _ = try coordinator.snapRoute(long, now: CoordinatorHarness.start)
            Issue.record("101 points were accepted")
        } catch {
            #expect(error.code == .invalidField)
            #expect(error.message.contains("at most 100"), "\(error.message)")
        }
        #expect(try coordinator.snapRoute(try trace(100), now: CoordinatorHarness.start).session >= 1)
    }

    @Test func snapRouteMatchesTheTraceAndNavigatesTheResult() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        let trace: JSONValue = .array(stride(from: 0, to: fixes.count, by: 10).map {
            ["lat": .number(fixes[$0].coordinate.latitude), "lon": .number(fixes[$0].coordinate.longitude)]
        })
        let command = try SnapRouteCommand(fields: CommandFields(["trace": trace]))
        let session = try harness.coordinator.snapRoute(command, now: harness.now).session
        let started = harness.take().startedSessions
        guard case .match(let points)? = started.first?.request else {
            Issue.record("no map-matching request")
            return
        }
        #expect(points.count == (fixes.count + 9) / 10)
        harness.coordinator.calculationFinished(session: session, result: .success([route]), attempts: 1, now: harness.now)
        let effects = harness.take()
        #expect(effects.events(.route).first?["reason"] == "snap")
        #expect(effects.events(.tripState).first?["state"] == "navigating")
    }

    @Test func advanceMovesToTheNextStepAndItsInstructions() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        _ = harness.feed(CoordinatorHarness.fixes(along: route)[0])
        _ = try harness.navigate(answering: route)
        let result = try harness.coordinator.advance(now: harness.now)
        #expect(result.stepIndex == 1)
        let effects = harness.take()
        #expect(effects.events(.tripState).last?["stepIndex"] == 1)
        #expect(effects.events(.instruction).allSatisfy { $0["stepIndex"] == 1 })
    }

    @Test func aNewNavigateSupersedesARunningCalculation() throws {
        var harness = CoordinatorHarness()
        let route = try CoordinatorHarness.route()
        _ = harness.feed(CoordinatorHarness.fixes(along: route)[0])
        let destination = [Waypoint(coordinate: route.geometry.last!)]
        let first = try harness.coordinator.navigate(NavigateCommand(waypoints: destination), now: harness.now).session
        _ = harness.take()
        _ = try harness.coordinator.navigate(NavigateCommand(waypoints: destination), now: harness.now)
        let effects = harness.take()
        let cancelled = effects.events(.routeCalculation).first { $0["status"] == "cancelled" }
        #expect(cancelled?["session"]?.doubleValue == Double(first))
        #expect(cancelled?["reason"]?.stringValue?.contains("superseded") == true)
        #expect(effects.startedSessions.count == 1)
    }

    /// A jump the plausibility gate accepts (the receiver reappears 5 km away and stays) is a new position, not a
    /// drive: the distance travelled does not grow by 5 km (the whole-daemon fuzz found jumps adding up).
    @Test func anAcceptedJumpAddsNothingToTheDistanceTravelled() throws {
        var (harness, _, fixes) = try CoordinatorHarness.navigating(drivenTo: 10)
        func travelled() -> Double { harness.effects.events(.tripState).last?["distanceTravelled"]?.doubleValue ?? -1 }
        let before = travelled()
        let last = fixes[10]
        let far = (1...4).map { i in
            UserLocation(
                coordinate: Geodesy.destination(from: last.coordinate, distance: 5_000 + Double(i) * 10, bearing: 90), horizontalAccuracy: 4,
                speed: Speed(metersPerSecond: 10), timestamp: last.timestamp.addingTimeInterval(Double(i)))
        }
        _ = harness.feed(far)
        let after = travelled()
        #expect(before > 0)
        // Only the 10 m steps between the confirming fixes after the jump count, never the 5 km.
        #expect(after - before < 100, "distance travelled grew from \(before) to \(after) m")
    }
}
