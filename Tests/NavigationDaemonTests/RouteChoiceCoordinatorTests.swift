import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import Testing
import TripPlanning

/// Alternatives offered at `navigate` and chosen, faster ways offered or taken during the trip, and the choices
/// that change nothing, through the coordinator. Canned answers; fix times and a manual clock.
@Suite struct RouteChoiceCoordinatorTests {
    static func harness(mode: FasterRouteRules.Mode = .off, interval: Double = 30) -> CoordinatorHarness {
        var config = NavdConfig()
        config.routing.refreshInterval = 0
        config.routing.fasterRoute.mode = mode
        config.routing.fasterRoute.interval = interval
        config.routing.fasterRoute.minimumSaving = 10
        config.routing.chooseTimeout = 30
        return CoordinatorHarness(config: config)
    }

    /// `route` taking `extra` seconds more.
    static func slower(_ route: Route, by extra: Double) -> Route {
        var slower = route
        let factor = (route.duration + extra) / route.duration
        for i in slower.steps.indices { slower.steps[i].duration *= factor }
        slower.duration += extra
        return slower
    }

    /// Navigates with alternatives; the engine answers the route and `others`.
    static func navigateWithAlternatives(_ harness: inout CoordinatorHarness, route: Route, others: [Route]) throws -> Int {
        let reply = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)], alternatives: 2), now: harness.now)
        _ = harness.take()
        harness.coordinator.calculationFinished(session: reply.session, result: .success([route] + others), attempts: 1, now: harness.now)
        return reply.session
    }

    @Test func alternativesAreOfferedAndAnotherOneChosen() throws {
        var harness = Self.harness()
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        let session = try Self.navigateWithAlternatives(&harness, route: route, others: [Self.slower(route, by: 60)])
        let offered = harness.take()
        // The route first (navigated meanwhile), then the offer.
        let types = offered.compactMap(\.event?.type)
        #expect(types.firstIndex(of: .route)! < types.firstIndex(of: .routeAlternatives)!)
        let offer = try #require(offered.events(.routeAlternatives).first)
        #expect(offer["status"]?.stringValue == "offered" && offer["session"]?.doubleValue == Double(session))
        let routes = try #require(offer["routes"]?.arrayValue)
        #expect(routes.map { $0["index"]?.doubleValue } == [0, 1])
        #expect(routes[0]["durationDelta"]?.doubleValue == 0 && abs((routes[1]["durationDelta"]?.doubleValue ?? 0) - 60) < 0.2)
        #expect(routes[1]["geometry"]?.arrayValue?.count == route.geometry.count)
        #expect(offer["chooseBefore"]?.stringValue == ISO8601Timestamp.format(harness.now.addingTimeInterval(30)))
        let firstId = try #require(harness.coordinator.activeRouteId)

        _ = harness.feed(fixes[1...5])
        let reply = try harness.coordinator.chooseRoute(ChooseRouteCommand(index: 1), now: harness.now.addingTimeInterval(1))
        let chosen = harness.take()
        #expect(reply.index == 1 && reply.routeId != firstId && reply.routeId == harness.coordinator.activeRouteId)
        #expect(chosen.events(.routeAlternatives).first?["status"]?.stringValue == "chosen" && chosen.events(.routeAlternatives).first?["chosen"]?.doubleValue == 1)
        #expect(chosen.events(.route).first?["reason"]?.stringValue == "chosen")
        #expect(chosen.events(.instructionRetracted).allSatisfy { $0["reason"]?.stringValue == "route_chosen" })
        #expect(harness.coordinator.snapshot().route?.reroutes == 0)
        // The offer is closed: choosing again says so and changes nothing.
        #expect { try harness.coordinator.chooseRoute(ChooseRouteCommand(index: 0), now: harness.now) } throws: { error in
            (error as? ProtocolError)?.code == .noChoice && "\(error)".contains("route 1 of session \(session) was chosen")
        }
        #expect(harness.take().isEmpty)
    }

    @Test func anOfferRunsOutAndTheFirstRouteStays() throws {
        var harness = Self.harness()
        let route = try CoordinatorHarness.route()
        _ = harness.feed(CoordinatorHarness.fixes(along: route)[0])
        _ = try Self.navigateWithAlternatives(&harness, route: route, others: [Self.slower(route, by: 60)])
        _ = harness.take()
        let routeId = harness.coordinator.activeRouteId
        // An index the offer does not have: refused, the offer stays open.
        #expect { try harness.coordinator.chooseRoute(ChooseRouteCommand(index: 2), now: harness.now) } throws: { error in
            (error as? ProtocolError)?.code == .invalidField && "\(error)".contains("the offer has 2 route(s), so 0...1")
        }
        harness.coordinator.tick(now: harness.now.addingTimeInterval(29))
        #expect(harness.take().events(.routeAlternatives).isEmpty)
        harness.coordinator.tick(now: harness.now.addingTimeInterval(30))
        #expect(harness.take().events(.routeAlternatives).first?["status"]?.stringValue == "expired")
        #expect { try harness.coordinator.chooseRoute(ChooseRouteCommand(index: 1), now: harness.now.addingTimeInterval(31)) } throws: { error in
            (error as? ProtocolError)?.code == .noChoice && "\(error)".contains("ran out")
        }
        #expect(harness.coordinator.activeRouteId == routeId && harness.take().isEmpty)
    }

    @Test func aRerouteWithdrawsAnOpenOffer() throws {
        var harness = Self.harness()
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try Self.navigateWithAlternatives(&harness, route: route, others: [Self.slower(route, by: 60)])
        _ = harness.feed(CoordinatorHarness.fixes(along: route, offset: 120)[1...20])
        let reroute = try #require(harness.effects.startedSessions.last)
        harness.coordinator.calculationFinished(session: reroute.session, result: .success([route.remainder(fromStep: 2, startingAside: 120)]), attempts: 1, now: harness.now)
        let effects = harness.take()
        #expect(effects.events(.route).first?["reason"]?.stringValue == "reroute", "\(effects.events(.routeCalculation))")
        #expect(effects.events(.routeAlternatives).first?["status"]?.stringValue == "withdrawn")
    }

    /// A candidate that follows the route for `shared` steps from step `from` and then turns off 150 m to the
    /// side, taking `duration` seconds.
    static func turningOff(_ route: Route, from: Int, shared: Int, duration: Double) -> Route {
        var other = route.remainder(fromStep: from)
        for s in shared..<other.steps.count {
            let bearing = Geodesy.bearing(from: route.geometry.first!, to: route.geometry.last!) + 90
            other.steps[s].geometry = other.steps[s].geometry.map { Geodesy.destination(from: $0, distance: 150, bearing: bearing) }
        }
        other.geometry = other.steps.flatMap(\.geometry).reduce(into: []) { if $0.last != $1 { $0.append($1) } }
        let factor = duration / other.duration
        for i in other.steps.indices { other.steps[i].duration *= factor }
        other.duration = duration
        return other
    }

    @Test(arguments: [FasterRouteRules.Mode.switch, .notify])
    func aFasterWayIsTakenOrOfferedAndNeverSwitchedBackTo(mode: FasterRouteRules.Mode) throws {
        var harness = Self.harness(mode: mode)
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes[1...29])
        #expect(harness.effects.startedSessions.count == 1, "a look before the interval")
        let look = try #require(harness.feed(fixes[30]).startedSessions.first)
        guard case .route(let query, _) = look.request else {
            Issue.record("not a route request: \(look.request)")
            return
        }
        #expect(query.alternatives == 2 && query.waypoints.map(\.coordinate) == [route.geometry.last!])
        let state = try #require(harness.effects.events(.tripState).last)
        let step = Int(try #require(state["stepIndex"]?.doubleValue))
        let left = try #require(state["progress"]?["durationRemaining"]?.doubleValue)
        let routeId = harness.coordinator.activeRouteId
        // The same way as the engine sees it now, and a way that shares two steps and saves a third.
        let sameWay = route.remainder(fromStep: step)
        let faster = Self.turningOff(route, from: step, shared: 2, duration: sameWay.duration * 2 / 3)
        harness.coordinator.calculationFinished(
            session: look.session, result: .success([sameWay, faster]), attempts: 1, now: harness.now)
        let answered = harness.take()
        let event = try #require(answered.events(.fasterRoute).first)
        // The engine's time for the same way is the yardstick: the faster way saves a third of it.
        #expect(abs((event["saving"]?.doubleValue ?? 0) - sameWay.duration / 3) < 0.1, "\(event); \(left) s left on the route")
        if mode == .switch {
            #expect(event["status"]?.stringValue == "taken")
            #expect(answered.events(.route).first?["reason"]?.stringValue == "faster")
            #expect(answered.events(.instructionRetracted).allSatisfy { $0["reason"]?.stringValue == "faster_route" })
        } else {
            #expect(event["status"]?.stringValue == "offered" && event["route"]?["index"]?.doubleValue == 0)
            #expect(answered.events(.route).isEmpty && harness.coordinator.activeRouteId == routeId)
            _ = try harness.coordinator.chooseRoute(ChooseRouteCommand(index: 0), now: harness.now)
            let chosen = harness.take()
            #expect(chosen.events(.fasterRoute).first?["status"]?.stringValue == "chosen")
            #expect(chosen.events(.route).first?["reason"]?.stringValue == "faster")
        }
        #expect(harness.coordinator.activeRouteId != routeId)
        #expect(harness.coordinator.snapshot().route?.reroutes == 0)

        // An interval later the old way is faster again: refused, no switching back and forth.
        let faster2 = try #require(harness.coordinator.activeRouteId)
        let fixesOnNew = CoordinatorHarness.fixes(along: faster, startingAt: 30)
        _ = harness.feed(fixesOnNew[1...30])
        let next = try #require(harness.effects.startedSessions.last, "no second look")
        #expect(next.session != look.session)
        harness.coordinator.calculationFinished(
            session: next.session, result: .success([Self.slower(sameWay, by: -0.7 * sameWay.duration)]), attempts: 1, now: harness.now)
        let refused = harness.take()
        #expect(refused.events(.route).isEmpty && harness.coordinator.activeRouteId == faster2)
        let reason = refused.events(.routeCalculation).last?["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("no faster way") && reason.contains("switched away from"), "\(reason)")
    }

    @Test func aSmallSavingIsRefusedWithItsReason() throws {
        var harness = Self.harness(mode: .switch)
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes[1...29])
        let look = try #require(harness.feed(fixes[30]).startedSessions.first)
        let step = Int(try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue))
        let left = try #require(harness.effects.events(.tripState).last?["progress"]?["durationRemaining"]?.doubleValue)
        harness.coordinator.calculationFinished(
            session: look.session, result: .success([Self.turningOff(route, from: step, shared: 2, duration: left - 5)]), attempts: 1, now: harness.now)
        let effects = harness.take()
        #expect(effects.events(.route).isEmpty && effects.events(.fasterRoute).isEmpty)
        let calculation = try #require(effects.events(.routeCalculation).last)
        #expect(calculation["applied"]?.boolValue == false)
        #expect(calculation["reason"]?.stringValue?.contains("it must save 10 s and 10 %") == true, "\(calculation)")
    }

    /// A route that replaces another mid-trip does not announce a departure again; the first maneuver's own
    /// prompt is kept, and a departure merged with it (the only announcement) too.
    @Test func aReplacingRouteSaysNoSecondDeparture() throws {
        var route = try CoordinatorHarness.route()
        route.steps[0].maneuver.type = .depart
        let length = route.steps[0].distance
        route.steps[0].spokenInstructions = [
            SpokenInstruction(text: "Head north on Bulevardi", triggerDistanceBeforeManeuver: length, utteranceId: "depart"),
            SpokenInstruction(text: "Turn right onto Annankatu", triggerDistanceBeforeManeuver: 30, utteranceId: "turn"),
        ]
        var ledger = InstructionLedger()
        ledger.skipDeparture(of: route)
        #expect(ledger.hasSentSpoken("depart") && !ledger.hasSentSpoken("turn"))
        route.steps[0].spokenInstructions = [SpokenInstruction(text: "Head north, then turn right", triggerDistanceBeforeManeuver: length, utteranceId: "merged")]
        var merged = InstructionLedger()
        merged.skipDeparture(of: route)
        #expect(!merged.hasSentSpoken("merged"))
    }
}
