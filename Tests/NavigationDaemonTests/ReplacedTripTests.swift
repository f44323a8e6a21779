import NavigationCore
import Testing

@testable import NavigationDaemon

/// The trip a new route replaces is handed to the service once, after the step, to be freed once the new route's
/// events are written (not while a client waits for them).
@Suite("A replaced trip is freed after the writes")
struct ReplacedTripTests {
    @Test func aNewNavigateHandsTheOldTripOverOnce() throws {
        var (harness, route, _) = try CoordinatorHarness.navigating(drivenTo: 5)
        #expect(harness.coordinator.takeReplacedTrip() == nil, "the first trip replaced none")
        let first = try #require(harness.coordinator.activeRouteId)
        _ = try harness.navigate(answering: route)
        #expect(harness.coordinator.activeRouteId != first)
        #expect(harness.coordinator.takeReplacedTrip()?.routeId == first)
        #expect(harness.coordinator.takeReplacedTrip() == nil, "handed over once")
    }

    @Test func anAppliedRerouteHandsTheOldRouteOver() throws {
        var (harness, route, _, session) = try TripCoordinatorTests.offRouteWithRerouteInFlight(accept: .always)
        #expect(harness.coordinator.takeReplacedTrip() == nil)
        let before = try #require(harness.coordinator.activeRouteId)
        let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        harness.coordinator.calculationFinished(
            session: session, result: .success([route.remainder(fromStep: Int(stepNow) + 1, startingAside: 30)]), attempts: 1, now: harness.now)
        #expect(harness.take().events(.route).count == 1)
        let taken = harness.coordinator.takeReplacedTrip()
        let replaced = try #require(taken)
        #expect(replaced.routeId == before)
        #expect(replaced.controller.route == route, "the old trip as it was, its route with it")
        #expect(harness.coordinator.activeRouteId != before)
    }

    @Test func aRejectedRerouteReplacesNothing() throws {
        var (harness, route, _, session) = try TripCoordinatorTests.offRouteWithRerouteInFlight(accept: .always)
        let stepNow = try #require(harness.effects.events(.tripState).last?["stepIndex"]?.doubleValue)
        // The route already in use: not applied.
        harness.coordinator.calculationFinished(
            session: session, result: .success([route.remainder(fromStep: Int(stepNow) + 1)]), attempts: 1, now: harness.now)
        #expect(harness.take().events(.route).isEmpty)
        #expect(harness.coordinator.takeReplacedTrip() == nil)
    }
}
