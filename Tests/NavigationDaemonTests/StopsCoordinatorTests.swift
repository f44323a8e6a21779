import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import RouteClient
import Testing
import TripPlanning

/// Stops added, removed and skipped on the way, through the coordinator: the calculation from where the vehicle
/// is through the edited list, the route that replaces the old one like a reroute with its own reason, the trip
/// that goes on (its totals, its numbering of waypoints), the journal that keeps the list, and the edits that
/// change nothing. Canned answers; fix times and a manual clock.
@Suite struct StopsCoordinatorTests {
    static let stop = Waypoint(coordinate: GeographicCoordinate(latitude: 60.1712, longitude: 24.9441), properties: ["radius": .number(25)])

    /// The waypoints a calculation was asked to route through.
    static func waypoints(_ request: TripCoordinator.CalculationRequest) -> [Waypoint]? {
        if case .route(let query, _) = request { return query.waypoints }
        return nil
    }

    static func journalSaves(_ effects: [TripCoordinator.Effect]) -> [TripJournalRecord] {
        effects.compactMap { if case .saveJournal(let record) = $0 { record } else { nil } }
    }

    /// `route` as the engine's answer through `waypoints` from where the vehicle is (one leg per stop is not
    /// claimed: the arrival keeps the destination only).
    static func answer(_ route: Route, through waypoints: [Waypoint]) -> Route {
        var answer = route
        answer.waypoints = [route.waypoints[0]] + waypoints
        for index in answer.steps.indices { answer.steps[index].legIndex = 0 }
        return answer
    }

    @Test func aStopAddedOnTheWayIsRoutedThroughAndTheTripGoesOn() throws {
        var (harness, route, fixes) = try CoordinatorHarness.navigating(drivenTo: 20)
        let destination = try #require(harness.coordinator.snapshot().destinations?.first)
        let before = try #require(harness.effects.events(.tripState).last?["distanceTravelled"]?.doubleValue)
        let routeId = try #require(harness.coordinator.activeRouteId)

        let reply = try harness.coordinator.editStops(.add(Self.stop, index: nil), now: harness.now)
        #expect(reply.waypoints == [LatLon(Self.stop.coordinate), destination])
        let asked = harness.take()
        #expect(asked.events(.routeCalculation).first?["purpose"]?.stringValue == "add_stop")
        #expect(asked.events(.routeCalculation).first?["status"]?.stringValue == "in_progress")
        let request = try #require(asked.startedSessions.first { $0.session == reply.session }?.request)
        #expect(Self.waypoints(request) == [Self.stop, Waypoint(coordinate: route.geometry.last!)], "the stop with its properties, then the destination")
        // The old route is followed until the answer comes.
        _ = harness.feed(fixes[21])
        #expect(harness.coordinator.activeRouteId == routeId)

        harness.coordinator.calculationFinished(
            session: reply.session, result: .success([Self.answer(route, through: [Self.stop, Waypoint(coordinate: route.geometry.last!)])]),
            attempts: 1, now: harness.now)
        let applied = harness.take()
        let calculation = try #require(applied.events(.routeCalculation).last)
        #expect(calculation["status"]?.stringValue == "succeeded" && calculation["applied"]?.boolValue == true)
        let newRoute = try #require(applied.events(.route).first)
        #expect(newRoute["reason"]?.stringValue == "stop_added" && newRoute["session"]?.doubleValue == Double(reply.session))
        // The old route's instructions for maneuvers not reached are withdrawn, saying why.
        let retracted = applied.events(.instructionRetracted)
        #expect(!retracted.isEmpty && retracted.allSatisfy { $0["reason"]?.stringValue == "stops_changed" }, "\(retracted)")
        #expect(harness.coordinator.activeRouteId != routeId)
        // One trip: its distance driven goes on from where it was, and a change of stops is not a reroute.
        let state = try #require(applied.events(.tripState).last)
        #expect(try #require(state["distanceTravelled"]?.doubleValue) >= before)
        #expect(harness.coordinator.snapshot().route?.reroutes == 0)
        #expect(harness.coordinator.snapshot().destinations == [LatLon(Self.stop.coordinate), destination])
        // Saved at once: a restart now resumes with the stop.
        let saved = try #require(Self.journalSaves(applied).last)
        #expect(saved.waypoints == [Self.stop, Waypoint(coordinate: route.geometry.last!)] && saved.passedWaypoints == 0)
        let resumed = CoordinatorHarness(resume: saved)
        #expect(resumed.coordinator.snapshot().destinations == [LatLon(Self.stop.coordinate), destination])
    }

    /// Two edits before the first is answered: the second builds on the first and supersedes its session, so
    /// neither stop is lost.
    @Test func anEditMadeWhileAnotherCalculatesBuildsOnIt() throws {
        var (harness, route, _) = try CoordinatorHarness.navigating(drivenTo: 10)
        let destination = Waypoint(coordinate: route.geometry.last!)
        let other = Waypoint(coordinate: GeographicCoordinate(latitude: 60.1701, longitude: 24.9402))
        let first = try harness.coordinator.editStops(.add(Self.stop, index: nil), now: harness.now)
        _ = harness.take()
        let second = try harness.coordinator.editStops(.add(other, index: 0), now: harness.now)
        let effects = harness.take()
        #expect(second.waypoints == [other, Self.stop, destination].map { LatLon($0.coordinate) })
        let cancelled = effects.events(.routeCalculation).first { $0["session"]?.doubleValue == Double(first.session) }
        #expect(cancelled?["status"]?.stringValue == "cancelled", "\(effects.events(.routeCalculation))")
        #expect(Self.waypoints(try #require(effects.startedSessions.last?.request)) == [other, Self.stop, destination])
        // A removal on top, still before any answer: the list it names is the pending one.
        let third = try harness.coordinator.editStops(.remove(index: 1), now: harness.now)
        #expect(third.waypoints == [other, destination].map { LatLon($0.coordinate) })
    }

    /// A skipped waypoint counts as passed: the destination keeps its number in the arrival, `waypoint_reached`
    /// and the journal.
    @Test func aSkippedWaypointCountsAsPassed() throws {
        var (harness, route, _, asked) = try CoordinatorHarness.navigatingTwoLegs(drivenTo: 5)

        let skip = try harness.coordinator.editStops(.skipNext, now: harness.now)
        #expect(skip.waypoints == [LatLon(asked[1].coordinate)])
        let request = try #require(harness.take().startedSessions.last?.request)
        #expect(Self.waypoints(request) == [asked[1]])
        harness.coordinator.calculationFinished(
            session: skip.session, result: .success([Self.answer(route, through: [asked[1]])]), attempts: 1, now: harness.now)
        let applied = harness.take()
        #expect(applied.events(.route).first?["reason"]?.stringValue == "waypoint_skipped")
        let arrival = try #require(applied.events(.tripState).last?["arrival"]?["waypoints"]?.arrayValue)
        #expect(arrival.map { $0["index"]?.doubleValue } == [1], "the destination is still waypoint 1: \(arrival)")
        let saved = try #require(Self.journalSaves(applied).last)
        #expect(saved.waypoints == asked && saved.passedWaypoints == 1)
        // Resumed, the trip still numbers the destination 1 and shows both.
        let resumed = CoordinatorHarness(resume: saved)
        #expect(resumed.coordinator.snapshot().destinations == asked.map { LatLon($0.coordinate) })
        // Nothing left to skip: the destination is the trip's end.
        #expect(throws: ProtocolError.self) { try harness.coordinator.editStops(.skipNext, now: harness.now) }
    }

    /// A calculation that fails, or an edit that cannot be made, leaves the trip as it was: its route, its list.
    @Test func aFailedOrRefusedEditChangesNothing() throws {
        var (harness, _, fixes) = try CoordinatorHarness.navigating(drivenTo: 10)
        let routeId = harness.coordinator.activeRouteId
        let destinations = harness.coordinator.snapshot().destinations

        for edit in [StopEdit.remove(index: 0), .remove(index: 3), .add(Self.stop, index: 2), .skipNext] {
            #expect { try harness.coordinator.editStops(edit, now: harness.now) } throws: { error in
                (error as? ProtocolError)?.code == .invalidField
            }
            #expect(harness.take().isEmpty, "\(edit) was refused but had effects")
        }

        let reply = try harness.coordinator.editStops(.add(Self.stop, index: 0), now: harness.now)
        _ = harness.take()
        harness.coordinator.calculationFinished(
            session: reply.session, result: .failure(RouteFetchError(server: "http://127.0.0.1:1", kind: .connectionFailed, detail: "connection refused")), attempts: 3, now: harness.now)
        let failed = harness.take()
        #expect(failed.events(.routeCalculation).last?["status"]?.stringValue == "failed")
        #expect(failed.events(.route).isEmpty)
        #expect(harness.coordinator.activeRouteId == routeId && harness.coordinator.snapshot().destinations == destinations)
        // Still navigating the old route.
        _ = harness.feed(fixes[11])
        #expect(harness.take().isEmpty && harness.effects.events(.tripState).last?["state"]?.stringValue == "navigating")
    }

    @Test func withoutATripThereIsNothingToEdit() throws {
        var harness = CoordinatorHarness()
        #expect { try harness.coordinator.editStops(.add(Self.stop, index: nil), now: harness.now) } throws: { error in
            (error as? ProtocolError)?.code == .noActiveTrip
        }
        #expect(harness.take().isEmpty)
    }

    /// A new trip asked for while a change of stops calculates replaces it: the old trip's answer never lands.
    @Test func aNewTripSupersedesAChangeOfStops() throws {
        var (harness, route, _) = try CoordinatorHarness.navigating(drivenTo: 10)
        let edit = try harness.coordinator.editStops(.add(Self.stop, index: nil), now: harness.now)
        _ = harness.take()
        let navigate = try harness.coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: harness.now)
        let effects = harness.take()
        #expect(effects.events(.routeCalculation).contains { $0["session"]?.doubleValue == Double(edit.session) && $0["status"]?.stringValue == "cancelled" })
        harness.coordinator.calculationFinished(session: edit.session, result: .success([route]), attempts: 1, now: harness.now)
        #expect(harness.take().isEmpty, "a cancelled session's answer was used")
        #expect(navigate.session > edit.session)
    }
}
