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

    /// A recording started mid-run: its seed carries free drive's match and request in flight and the speed
    /// alert's memory, so a coordinator made from the seed (a replay) says what navd says on the next fixes.
    @Test func aRecordingsSeedCarriesFreeDriveAndTheSpeedAlert() throws {
        var route = try CoordinatorHarness.route()
        for s in route.steps.indices {
            let segments = route.steps[s].annotations.isEmpty ? max(0, route.steps[s].geometry.count - 1) : route.steps[s].annotations.count
            route.steps[s].annotations = SegmentAnnotations((0..<segments).map { _ in SegmentAnnotation(values: ["maxspeed": ["speed": 20, "unit": "km/h"]]) })
        }
        // 10 m/s is 36 km/h: a minor alert on a 20 km/h road (over 30, under 40) once the match says so.
        let fixes = CoordinatorHarness.fixes(along: route)
        var harness = CoordinatorHarness()
        _ = harness.feed(fixes[0..<5])
        let first = try #require(Self.matchRequests(harness.effects).first)
        harness.coordinator.calculationFinished(session: first, result: .success([route]), attempts: 1, now: harness.now)
        _ = harness.feed(fixes[5..<16])
        let inFlight = try #require(Self.matchRequests(harness.effects).last)
        #expect(inFlight != first)
        #expect(harness.effects.events(.tripState).last?["speedAlert"]?["level"]?.stringValue == "minor")
        let seed = try RecordingSeed(json: harness.coordinator.recordingSeed(seq: 1, now: harness.now).json)
        var replay = CoordinatorHarness()
        replay.coordinator = TripCoordinator(settings: TripCoordinator.Settings(config: NavdConfig()), seed: seed)
        replay.now = harness.now
        for coordinator in [0, 1] {
            var h = coordinator == 0 ? harness : replay
            h.coordinator.calculationFinished(session: inFlight, result: .success([route]), attempts: 1, now: h.now)
            _ = h.take()
            if coordinator == 0 { harness = h } else { replay = h }
        }
        let live = harness.feed(fixes[16..<20]).compactMap(\.event).map { "\($0.type) \($0.fields)" }
        let replayed = replay.feed(fixes[16..<20]).compactMap(\.event).map { "\($0.type) \($0.fields)" }
        #expect(live == replayed)
        #expect(live.contains { $0.contains("matched") })
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
