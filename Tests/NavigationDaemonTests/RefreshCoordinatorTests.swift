import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import RouteClient
import Testing

/// Route refresh through the coordinator: asked every interval of fix time, applied without touching the route's
/// id, step or prompts, refused when the answer takes another way, non-fatal when it fails, superseded by a
/// reroute, and its traffic dropped when it grows older than three intervals. Canned answers; fix times.
@Suite struct RefreshCoordinatorTests {
    static let interval = 60.0

    /// A trip on the Helsinki route with refreshes every minute, driven to fix `last` (1 Hz).
    static func navigating(drivenTo last: Int, interval: Double = interval) throws -> (harness: CoordinatorHarness, route: Route, fixes: [UserLocation]) {
        var config = NavdConfig()
        config.routing.refreshInterval = interval
        var harness = CoordinatorHarness(config: config)
        let route = try CoordinatorHarness.route()
        let fixes = CoordinatorHarness.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes[1...last])
        return (harness, route, fixes)
    }

    /// The engine's answer from step `first` on, `factor` times slower, every segment `level` traffic.
    static func slower(_ route: Route, fromStep first: Int, factor: Double, level: String? = "heavy") -> Route {
        var answer = route.remainder(fromStep: first)
        for i in answer.steps.indices {
            answer.steps[i].duration *= factor
            answer.steps[i].annotations = SegmentAnnotations(answer.steps[i].annotations.map { annotation in
                var values = annotation.values
                if let d = annotation.duration { values["duration"] = .number(d * factor) }
                if let level { values["congestion"] = .string(level) }
                return SegmentAnnotation(values: values)
            })
        }
        answer.duration *= factor
        return answer
    }

    static func refreshes(_ effects: [TripCoordinator.Effect]) -> [(session: Int, request: TripCoordinator.RefreshRequest)] {
        effects.startedSessions.compactMap { started in
            if case .refresh(let request) = started.request { return (started.session, request) }
            return nil
        }
    }

    @Test func aRefreshIsAskedEveryIntervalAndAppliedWithoutChangingTheRoute() throws {
        var (harness, route, fixes) = try Self.navigating(drivenTo: 59)
        #expect(Self.refreshes(harness.effects).isEmpty, "a refresh before the interval")
        let routeId = harness.coordinator.activeRouteId
        let asked = harness.feed(fixes[60])
        let refresh = try #require(Self.refreshes(asked).first, "no refresh after \(Self.interval) s")
        #expect(asked.events(.routeCalculation).first?["purpose"]?.stringValue == "refresh")
        // The route ahead from the vehicle's place on it to the destination, and the waypoints ahead.
        let state = try #require(harness.effects.events(.tripState).last)
        let snapped = try #require(state["snappedLocation"])
        let first = try #require(refresh.request.shape.first)
        #expect(Geodesy.distance(first, GeographicCoordinate(latitude: snapped["lat"]!.doubleValue!, longitude: snapped["lon"]!.doubleValue!)) < 1)
        #expect(refresh.request.shape.last == route.geometry.last && refresh.request.query.waypoints.map(\.coordinate) == [route.geometry.last!])

        let stepIndex = try #require(state["stepIndex"]?.doubleValue).map { Int($0) }!
        let before = try #require(state["progress"]?["durationRemaining"]?.doubleValue)
        let sentBefore = harness.effects.events(.instruction).count
        harness.coordinator.calculationFinished(
            session: refresh.session, result: .success([Self.slower(route, fromStep: stepIndex, factor: 2)]), attempts: 1, now: harness.now)
        let applied = harness.take()
        #expect(applied.events(.routeCalculation).last?["applied"]?.boolValue == true)
        let refreshed = try #require(applied.events(.routeRefreshed).first)
        let remaining = try #require(refreshed["durationRemaining"]?.doubleValue)
        #expect(abs(remaining - 2 * before) < 0.05 * before, "refreshed \(remaining) s, before \(before) s")
        #expect(abs(try #require(refreshed["change"]?.doubleValue) - (remaining - before)) < 0.2 * before)
        #expect(refreshed["congestion"]?.arrayValue?.first?["level"]?.stringValue == "heavy")
        // The same route: no new route, nothing retracted, the id kept; the journal has the new figures.
        #expect(applied.events(.route).isEmpty && applied.events(.instructionRetracted).isEmpty)
        #expect(harness.coordinator.activeRouteId == routeId)
        let saved = try #require(applied.compactMap { if case .saveJournal(let record) = $0 { record } else { nil } }.last)
        #expect(saved.routeId == routeId && saved.route.duration > route.duration && saved.route.geometry == route.geometry)
        // Guidance goes on from the same step, at the new times, and no prompt is sent twice.
        _ = harness.feed(fixes[61...90])
        let later = try #require(harness.effects.events(.tripState).last)
        #expect(try #require(later["stepIndex"]?.doubleValue) >= Double(stepIndex))
        #expect(try #require(later["congestion"]?.stringValue) == "heavy")
        // A step has several prompts (at different distances): each is told apart by its whole content.
        let sent = harness.effects.events(.instruction).map { "\($0["stepIndex"]?.doubleValue ?? -1) \(String(describing: $0["instruction"]))" }
        #expect(Set(sent).count == sent.count, "an instruction was sent twice: \(sent)")
        #expect(sent.count >= sentBefore)
        // The next refresh an interval after the last one.
        let next = Self.refreshes(harness.take() + harness.feed(fixes[120]))
        #expect(next.count == 1 && Self.refreshes(harness.effects).count == 2)
    }

    /// An answer on another way (it starts 40 m off the route: the engine chose another road) is not the route's
    /// refresh: nothing changes, and the event says why.
    @Test func anAnswerOnAnotherWayIsNotApplied() throws {
        var (harness, route, fixes) = try Self.navigating(drivenTo: 59)
        let refresh = try #require(Self.refreshes(harness.feed(fixes[60])).first)
        harness.coordinator.calculationFinished(
            session: refresh.session, result: .success([route.remainder(fromStep: 4, startingAside: 40)]), attempts: 1, now: harness.now)
        let effects = harness.take()
        let calculation = try #require(effects.events(.routeCalculation).last)
        #expect(calculation["applied"]?.boolValue == false && calculation["reason"]?.stringValue?.contains("another way") == true)
        #expect(effects.events(.routeRefreshed).isEmpty && effects.events(.route).isEmpty)
    }

    /// A refresh that fails is a calculation like any other: published, non-fatal; the next comes an interval on.
    @Test func aFailedRefreshChangesNothingAndTheNextComesAnIntervalLater() throws {
        var (harness, _, fixes) = try Self.navigating(drivenTo: 59)
        let refresh = try #require(Self.refreshes(harness.feed(fixes[60])).first)
        harness.coordinator.calculationFinished(
            session: refresh.session, result: .failure(RouteFetchError(server: "http://127.0.0.1:1", kind: .timedOut, detail: "30 s")), attempts: 4,
            now: harness.now)
        let failed = harness.take()
        #expect(failed.events(.routeCalculation).last?["status"]?.stringValue == "failed")
        #expect(failed.events(.routeRefreshed).isEmpty)
        #expect(Self.refreshes(harness.feed(fixes[61...119])).isEmpty)
        #expect(Self.refreshes(harness.feed(fixes[120])).count == 1)
        #expect(harness.effects.events(.tripState).last?["state"]?.stringValue == "navigating")
    }

    /// Leaving the route while a refresh runs: the reroute supersedes it, and its late answer changes nothing.
    @Test func aRerouteSupersedesARunningRefresh() throws {
        var (harness, route, fixes) = try Self.navigating(drivenTo: 59)
        let refresh = try #require(Self.refreshes(harness.feed(fixes[60])).first)
        let aside = CoordinatorHarness.fixes(along: route, offset: 120, startingAt: 0)
        _ = harness.feed(aside[61...75])
        let cancelled = harness.effects.events(.routeCalculation).first { $0["session"]?.doubleValue == Double(refresh.session) && $0["status"]?.stringValue == "cancelled" }
        #expect(cancelled != nil, "the refresh was not superseded: \(harness.effects.events(.routeCalculation))")
        #expect(harness.effects.startedSessions.contains { if case .route = $0.request { true } else { false } }, "no reroute")
        harness.coordinator.calculationFinished(session: refresh.session, result: .success([Self.slower(route, fromStep: 0, factor: 3)]), attempts: 1, now: harness.now)
        #expect(harness.take().events(.routeRefreshed).isEmpty)
    }

    /// Traffic not refreshed for more than three intervals is dropped, and clients told; a route without traffic
    /// has nothing to drop.
    @Test func trafficOlderThanThreeIntervalsIsDropped() throws {
        var (harness, route, fixes) = try Self.navigating(drivenTo: 19, interval: 20)
        let refresh = try #require(Self.refreshes(harness.feed(fixes[20])).first)
        harness.coordinator.calculationFinished(session: refresh.session, result: .success([Self.slower(route, fromStep: 0, factor: 1.2)]), attempts: 1, now: harness.now)
        _ = harness.take()
        // Every later refresh fails.
        var droppedAt: Int?
        for index in 21...120 {
            let effects = harness.feed(fixes[index])
            if droppedAt == nil, effects.events(.routeRefreshed).contains(where: { $0["expired"]?.boolValue == true }) { droppedAt = index }
            for failing in Self.refreshes(effects) {
                harness.coordinator.calculationFinished(
                    session: failing.session, result: .failure(RouteFetchError(server: "http://127.0.0.1:1", kind: .connectionFailed, detail: "refused")),
                    attempts: 1, now: harness.now)
                _ = harness.take()
            }
        }
        let dropped = harness.effects.events(.routeRefreshed).filter { $0["expired"]?.boolValue == true }
        #expect(dropped.count == 1, "\(harness.effects.events(.routeRefreshed))")
        // More than three intervals (60 s) after the refresh at fix 20: at fix 81.
        #expect(droppedAt == 81)
        let states = harness.effects.events(.tripState)
        #expect(states.last?["congestion"] == nil, "traffic still shown: \(String(describing: states.last?["congestion"]))")
        #expect(states.contains { $0["congestion"]?.stringValue == "heavy" }, "the refreshed traffic was never shown")
    }

    @Test func noRefreshWhenTheIntervalIsZero() throws {
        var (harness, _, fixes) = try Self.navigating(drivenTo: 59, interval: 0)
        _ = harness.feed(fixes[60...140])
        #expect(Self.refreshes(harness.effects).isEmpty)
    }
}
