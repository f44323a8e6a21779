import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteClient
import Testing

/// Free drive through the coordinator: match requests as effects (not calculation sessions), the answer in the idle
/// states, a failure said, and a trip that starts dropping the match in flight. Fix times and a manual clock.
@Suite struct FreeDriveCoordinatorTests {
    static func matchRequests(_ effects: [TripCoordinator.Effect]) -> [Int] {
        effects.compactMap { if case .startCalculation(let session, .match) = $0 { session } else { nil } }
    }

    @Test func idleDrivingAsksForMatchesAndTheIdleStatesSayWhatTheyFound() throws {
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        var harness = CoordinatorHarness()
        _ = harness.feed(fixes[0..<5])
        let requests = Self.matchRequests(harness.effects)
        let session = try #require(requests.first, "no match asked for after 40 m of driving")
        #expect(requests.count == 1)
        #expect(harness.effects.events(.routeCalculation).isEmpty, "a free-drive match is not a calculation session")
        #expect(harness.effects.events(.tripState).last?["freeDrive"]?["status"]?.stringValue == "waiting")
        // The engine answers with the road driven so far.
        harness.coordinator.calculationFinished(session: session, result: .success([route]), attempts: 1, now: harness.now)
        _ = harness.take()
        _ = harness.feed(fixes[5])
        let state = try #require(harness.effects.events(.tripState).last)
        #expect(state["freeDrive"]?["status"]?.stringValue == "matched")
        #expect(state["roadName"]?.stringValue == route.steps.last(where: { $0.maneuver.type != .arrive && $0.roadName != nil })?.roadName)
        // Ten seconds later, the next request.
        _ = harness.feed(fixes[6...15])
        #expect(Self.matchRequests(harness.effects).count == 2)
    }

    @Test func aFailedMatchIsSaidAndAStartingTripDropsTheOneInFlight() throws {
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        var harness = CoordinatorHarness()
        _ = harness.feed(fixes[0..<5])
        let first = try #require(Self.matchRequests(harness.effects).first)
        let refused = RouteFetchError(server: "127.0.0.1:9", kind: .connectionFailed, detail: "connection refused")
        harness.coordinator.calculationFinished(session: first, result: .failure(refused), attempts: 1, now: harness.now)
        _ = harness.feed(fixes[5])
        let state = try #require(harness.effects.events(.tripState).last)
        #expect(state["freeDrive"]?["status"]?.stringValue == "unavailable")
        #expect(state["freeDrive"]?["detail"]?.stringValue?.contains("connection refused") == true, "\(state)")
        _ = harness.feed(fixes[6...15])
        let second = try #require(Self.matchRequests(harness.effects).last)
        #expect(second != first)
        _ = try harness.navigate(answering: route)
        #expect(harness.effects.contains { if case .cancelCalculation(second) = $0 { true } else { false } }, "the match in flight was not dropped")
        #expect(!harness.effects.events(.routeCalculation).contains { $0["session"]?.doubleValue == Double(second) })
    }
}
