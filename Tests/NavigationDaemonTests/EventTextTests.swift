import Foundation
import NavigationCore
import NavigationProtocol
import TestSupport
import Testing

/// The events a route brings (`route`, `route_calculation`, `instruction`, `instruction_retracted`,
/// `route_alternatives`, `faster_route`) have their payloads written by hand; each line is byte for byte the line
/// of the generic path (the payload's fields as a tree, written by `JSONLine`'s order), on random payloads with
/// every optional member present or absent.
@Suite struct EventTextTests {
    @Test(arguments: 0..<300)
    func randomEventsWriteTheGenericPathsLine(seed: Int) {
        let random = RandomRoute(seed: UInt64(seed), presence: [0, 1, 0.5][seed % 3])
        let route = random.route()
        var events: [NavigationEvent] = [
            .route(RouteEvent(reason: random.pick(Self.routeReasons), session: random.maybe { random.integer() }, route: route)),
            .routeCalculation(Self.calculation(random)),
            .instructionRetracted(
                InstructionRetractedEvent(
                    reason: random.pick(Self.retractionReasons),
                    instructions: (0..<(random.integer() % 4).magnitude).map { _ in
                        .init(kind: random.pick([.visual, .spoken]), stepIndex: random.integer(), utteranceId: random.maybe { random.text() })
                    })),
            .routeAlternatives(
                RouteAlternativesEvent(
                    session: random.integer(), status: random.pick(Self.offerStatuses), chooseBefore: random.maybe { random.text() },
                    chosen: random.maybe { random.integer() }, routes: (0..<(random.integer() % 4).magnitude).map { _ in Self.option(random, route) })),
            .fasterRoute(
                FasterRouteEvent(
                    session: random.integer(), status: random.pick(Self.offerStatuses), saving: random.number(), savingFraction: random.number(),
                    chooseBefore: random.maybe { random.text() }, route: random.maybe { Self.option(random, route) })),
        ]
        for (index, step) in route.steps.enumerated() {
            events += step.visualInstructions.map { .instruction(.visual($0, stepIndex: index)) }
            events += step.spokenInstructions.map { .instruction(.spoken($0, stepIndex: index)) }
        }
        for event in events {
            let seq = UInt64(random.integer().magnitude)
            let routeId = random.maybe { random.text() }
            let message = EventMessage(seq: seq, routeId: routeId, event: event)
            let generic = ServerMessage.event(event.type, seq: seq, routeId: routeId, fields: event.fields).line
            #expect(String(decoding: message.line, as: UTF8.self) == String(decoding: generic, as: UTF8.self), "seed \(seed), \(event.type)")
        }
    }

    /// A `route` event carrying its route's text written ahead (``JSONTextWritten``, as navd writes a long route's
    /// off the loop) writes the generic path's line; the text is not a member of the event (not in its fields, not
    /// decoded, not compared).
    @Test(arguments: 0..<60)
    func aRouteWrittenAheadWritesTheGenericPathsLine(seed: Int) {
        let random = RandomRoute(seed: UInt64(seed), presence: [0, 1, 0.5][seed % 3])
        let route = random.route()
        let plain = RouteEvent(reason: random.pick(Self.routeReasons), session: random.maybe { random.integer() }, route: route)
        var ahead = plain
        ahead.routeText = JSONTextWritten(route)
        let generic = ServerMessage.event(.route, seq: 9, routeId: "r", fields: NavigationEvent.route(plain).fields).line
        #expect(String(decoding: EventMessage(seq: 9, routeId: "r", event: .route(ahead)).line, as: UTF8.self) == String(decoding: generic, as: UTF8.self))
        #expect(NavigationEvent.route(ahead).fields["routeText"] == nil)
    }

    /// On a real route (random ones carry NaN, which equals nothing): the text written ahead does not change what
    /// the event is, its hash, or what a client decodes.
    @Test func aRouteWrittenAheadIsTheSameEvent() throws {
        let plain = RouteEvent(reason: .reroute, session: 3, route: try CoordinatorHarness.route())
        var ahead = plain
        ahead.routeText = JSONTextWritten(plain.route)
        #expect(ahead == plain && ahead.hashValue == plain.hashValue)
        let decoded = try JSONDecoder().decode(RouteEvent.self, from: try JSONEncoder().encode(ahead))
        #expect(decoded.routeText == nil && decoded == plain)
    }

    /// Every member of a `route_calculation` is written, under its own name: none missing, misspelt or out of order
    /// (each present in one event, absent in the other, compared with the generic path above).
    @Test func everyCalculationMemberIsWritten() throws {
        let random = RandomRoute(seed: 7, presence: 1)
        var event = Self.calculation(random)
        event.waiting = .gnssFix
        let line = String(decoding: EventMessage(seq: 1, routeId: "r", event: .routeCalculation(event)).line, as: UTF8.self)
        for key in [
            "applied", "attempt", "attempts", "engine", "error", "failedEngines", "fallbackTo", "newRouteId", "purpose", "reason", "retryIn", "session",
            "status", "waiting",
        ] {
            #expect(line.contains("\"\(key)\":"), "\(key) missing from \(line)")
        }
        let generic = ServerMessage.event(.routeCalculation, seq: 1, routeId: "r", fields: NavigationEvent.routeCalculation(event).fields).line
        #expect(line == String(decoding: generic, as: UTF8.self))
    }

    /// An instruction event carrying both a banner and a prompt is not one navd makes; the generic path writes it.
    @Test func anInstructionWithBothKindsIsLeftToTheGenericPath() {
        let visual = VisualInstruction(primary: VisualInstructionContent(text: "Turn right"), triggerDistanceBeforeManeuver: 100)
        let spoken = SpokenInstruction(text: "Turn right", ssml: nil, triggerDistanceBeforeManeuver: 100, utteranceId: "u")
        let event = NavigationEvent.instruction(InstructionEvent(kind: .visual, stepIndex: 2, visual: visual, spoken: spoken, utteranceId: "u"))
        let generic = ServerMessage.event(.instruction, seq: 3, routeId: nil, fields: event.fields).line
        #expect(EventMessage(seq: 3, routeId: nil, event: event).line == generic)
    }

    /// A route offered to choose from, drawn along `route`.
    static func option(_ random: RandomRoute, _ route: Route) -> RouteOption {
        RouteOption(
            index: random.integer(), distance: random.number(), duration: random.number(), durationDelta: random.number(), distanceDelta: random.number(),
            tolls: random.pick([true, false]), motorways: random.pick([true, false]), mainRoads: (0..<(random.integer() % 3).magnitude).map { _ in random.text() },
            geometry: route.geometry)
    }

    static let offerStatuses: [RouteOfferStatus] = [.offered, .chosen, .taken, .expired, .withdrawn]

    static func calculation(_ random: RandomRoute) -> RouteCalculationEvent {
        var event = RouteCalculationEvent(session: random.integer(), purpose: random.pick(purposes), status: random.pick(statuses))
        event.waiting = random.maybe { random.pick([.gnssFix, .none]) }
        event.attempt = random.maybe { random.integer() }
        event.attempts = random.maybe { random.integer() }
        event.retryIn = random.maybe { random.number() }
        event.error = random.maybe { CalculationError(code: random.text(), message: random.text(), retryable: random.pick([true, false])) }
        event.engine = random.maybe { EngineIdentity(name: random.text(), server: random.text()) }
        event.fallbackTo = random.maybe { EngineIdentity(name: random.text(), server: random.text()) }
        event.failedEngines = random.maybe {
            (0..<(random.integer() % 3).magnitude).map { _ in
                .init(EngineIdentity(name: random.text(), server: random.text()), error: CalculationError(code: "timed_out", message: random.text(), retryable: true))
            }
        }
        event.applied = random.maybe { random.pick([true, false]) }
        event.newRouteId = random.maybe { random.text() }
        event.reason = random.maybe { random.text() }
        return event
    }

    static let routeReasons: [RouteEvent.Reason] = [.initial, .reroute, .snap, .resumed, .stopAdded, .stopRemoved, .waypointSkipped, .faster, .chosen]
    static let retractionReasons: [InstructionRetractedEvent.Reason] = [.reroute, .cancel, .newRoute, .stopsChanged, .fasterRoute, .routeChosen]
    static let purposes: [RouteCalculationEvent.Purpose] = [.initial, .reroute, .snap, .refresh, .fasterRoute, .addStop, .removeStop, .skipWaypoint]
    static let statuses: [RouteCalculationEvent.Status] = [.inProgress, .succeeded, .failed, .cancelled]
}
