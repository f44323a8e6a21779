import NavigationCore
import NavigationProtocol
import Testing

@testable import NavigationDaemon

/// A long route's controller and `route` text made ahead, off the loop (``PreparedRoute``): taken by the coordinator
/// only for the very route it uses with the settings in force, for every calculation whose answer becomes the
/// trip's route, and the route event's bytes the same as when the loop writes them. Canned answers; fix times.
@Suite struct PreparedRouteTests {
    /// A calculation whose answer becomes the trip's route, in flight, and the answer an engine would give.
    enum Purpose: String, CaseIterable, CustomTestStringConvertible {
        case initial, reroute, addStop
        var testDescription: String { rawValue }

        func inFlight() throws -> (harness: CoordinatorHarness, session: Int, answer: Route) {
            switch self {
            case .initial:
                var harness = CoordinatorHarness()
                let route = try CoordinatorHarness.route()
                _ = harness.feed(CoordinatorHarness.fixes(along: route)[0])
                let reply = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: harness.now)
                _ = harness.take()
                return (harness, reply.session, route)
            case .reroute:
                let (harness, route, _, session) = try TripCoordinatorTests.offRouteWithRerouteInFlight(accept: .always)
                let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
                return (harness, session, route.remainder(fromStep: Int(stepNow) + 1, startingAside: 30))
            case .addStop:
                var (harness, route, _) = try CoordinatorHarness.navigating(drivenTo: 20)
                let stop = StopsCoordinatorTests.stop
                let reply = try harness.coordinator.editStops(.add(stop, index: nil), now: harness.now)
                _ = harness.take()
                return (harness, reply.session, StopsCoordinatorTests.answer(route, through: [stop, Waypoint(coordinate: route.geometry.last!)]))
            }
        }
    }

    /// Finishes `session` with `answer`, carrying a controller and text made ahead from `source` with the settings
    /// of the session (spoken prompts at half their distance instead when `halved`: settings the coordinator does
    /// not have); `reload`: the settings are reloaded after they were made. The `route` event published.
    static func finish(
        _ harness: inout CoordinatorHarness, session: Int, answer: Route, madeAheadFrom source: Route, halved: Bool = false, reload: Bool = false
    ) throws -> (event: RouteEvent, prepared: PreparedRoute) {
        var preparation = try #require(harness.coordinator.routePreparation(forSession: session))
        if halved { preparation.controller.promptTiming = .scaleSpoken(factor: 0.5) }
        let prepared = try #require(PreparedRoute(source, preparation))
        if reload { harness.coordinator.update(settings: harness.coordinator.settings) }
        var outcome = RouteCalculationRunner.Outcome(result: .success([answer]), attempts: 1)
        outcome.prepared = prepared
        harness.coordinator.calculationFinished(session: session, outcome, now: harness.now)
        let event = try #require(Self.routeEvents(harness.take()).first, "the answer was not applied")
        return (event, prepared)
    }

    static func routeEvents(_ effects: [TripCoordinator.Effect]) -> [RouteEvent] {
        effects.compactMap { if case .publish(.route(let event), _) = $0 { event } else { nil } }
    }

    static func line(_ event: RouteEvent) -> [UInt8] {
        EventMessage(seq: 7, routeId: "t-1", event: .route(event)).line
    }

    /// `route` as the coordinator's own controller has it (its prompt timing applied).
    static func madeHere(_ route: Route, _ harness: CoordinatorHarness) throws -> Route {
        try NavigationController(route: route, config: harness.coordinator.settings.controller).route
    }

    /// Every spoken trigger of `route`, metres before its maneuver, step by step.
    static func triggers(_ route: Route) -> [[Double]] {
        route.steps.map { $0.spokenInstructions.map(\.triggerDistanceBeforeManeuver) }
    }

    @Test(arguments: Purpose.allCases)
    func aRouteMadeAheadIsTakenAndItsEventIsTheSameBytes(_ purpose: Purpose) throws {
        var (harness, session, answer) = try purpose.inFlight()
        let (event, prepared) = try Self.finish(&harness, session: session, answer: answer, madeAheadFrom: answer)
        let text = try #require(event.routeText, "the route's text made ahead was not taken")
        #expect(text.bytes == prepared.routeText.bytes)
        // The line as the loop writes it without the text made ahead, byte for byte.
        var written = event
        written.routeText = nil
        #expect(Self.line(event) == Self.line(written))
        #expect(harness.coordinator.trip?.controller.route == event.route)
        #expect(harness.coordinator.trip?.routeText != nil)
    }

    /// The controller the coordinator navigates with is the one made ahead, not one made again: made ahead with
    /// spoken prompts at half their distance (settings the coordinator does not have), the route it navigates and
    /// sends has them at half.
    @Test(arguments: Purpose.allCases)
    func theControllerMadeAheadIsTheOneNavigated(_ purpose: Purpose) throws {
        var (harness, session, answer) = try purpose.inFlight()
        let event = try Self.finish(&harness, session: session, answer: answer, madeAheadFrom: answer, halved: true).event
        let halved = Self.triggers(answer).map { $0.map { $0 * 0.5 } }
        #expect(halved != Self.triggers(try Self.madeHere(answer, harness)), "the coordinator's own settings give other prompts")
        #expect(Self.triggers(try #require(harness.coordinator.trip).controller.route) == halved)
        #expect(Self.triggers(event.route) == halved)
        #expect(!halved.joined().allSatisfy { $0 == 0 }, "the answer has spoken prompts to scale")
    }

    /// Settings reloaded while the engine worked: what was made ahead with the old ones is not taken, the
    /// controller is made with the new ones, and the line writes the route itself.
    @Test(arguments: Purpose.allCases)
    func aRouteMadeBeforeTheSettingsChangedIsMadeAgain(_ purpose: Purpose) throws {
        var (harness, session, answer) = try purpose.inFlight()
        let event = try Self.finish(&harness, session: session, answer: answer, madeAheadFrom: answer, halved: true, reload: true).event
        #expect(event.routeText == nil)
        #expect(harness.coordinator.trip?.routeText == nil)
        #expect(Self.triggers(event.route) == Self.triggers(try Self.madeHere(answer, harness)), "made with the settings in force, not the old ones")
    }

    /// What was made ahead from another route (an equal one made apart, or another way) is not taken.
    @Test(arguments: Purpose.allCases)
    func aRouteMadeAheadFromAnotherRouteIsNotTaken(_ purpose: Purpose) throws {
        var (harness, session, answer) = try purpose.inFlight()
        var other = answer
        other.steps[0].distance += 1
        let event = try Self.finish(&harness, session: session, answer: answer, madeAheadFrom: other, halved: true).event
        #expect(event.routeText == nil)
        #expect(event.route.steps[0].distance == answer.steps[0].distance)
        #expect(Self.triggers(event.route) == Self.triggers(try Self.madeHere(answer, harness)))
    }

    /// A new controller by any other way (a refresh applied) drops the text made for the one before: the next
    /// `route` event (a reroute's, taken without anything made ahead) is written from its own route.
    @Test func theTextGoesWithTheControllerItWasMadeFor() throws {
        var (harness, session, answer) = try Purpose.initial.inFlight()
        _ = try Self.finish(&harness, session: session, answer: answer, madeAheadFrom: answer)
        #expect(harness.coordinator.trip?.routeText != nil)
        harness.coordinator.trip!.controller = try NavigationController(route: answer.remainder(fromStep: 1))
        #expect(harness.coordinator.trip?.routeText == nil)
    }

    /// Sessions whose answer does not become the trip's route as it comes have nothing made ahead; nor has a
    /// session no longer running.
    @Test func onlyAnswersThatBecomeTheRouteArePrepared() throws {
        var (harness, _, fixes) = try RefreshCoordinatorTests.navigating(drivenTo: 59)
        let refresh = try #require(RefreshCoordinatorTests.refreshes(harness.feed(fixes[60])).first)
        #expect(harness.coordinator.routePreparation(forSession: refresh.session) == nil)
        #expect(harness.coordinator.routePreparation(forSession: 9_999) == nil)
        let (initial, session, _) = try Purpose.initial.inFlight()
        #expect(initial.coordinator.routePreparation(forSession: session)?.settingsGeneration == initial.coordinator.settingsGeneration)
    }

    /// Long routes only: below ``PreparedRoute/minimumPoints`` the loop writes a route faster than two thread hops.
    @Test func onlyLongRoutesAreWorthPreparing() throws {
        let route = try CoordinatorHarness.route()
        #expect(route.geometry.count < PreparedRoute.minimumPoints)
        #expect(!PreparedRoute.isWorthIt([route]) && !PreparedRoute.isWorthIt([]))
        var long = route
        long.geometry = Array(repeating: route.geometry, count: PreparedRoute.minimumPoints / route.geometry.count + 1).flatMap { $0 }
        #expect(PreparedRoute.isWorthIt([long, route]))
        #expect(!PreparedRoute.isWorthIt([route, long]), "the first route is the one navigated")
    }
}
