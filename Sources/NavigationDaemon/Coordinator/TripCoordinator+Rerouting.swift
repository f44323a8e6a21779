import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import RouteAdapters

extension TripCoordinator {
    /// Publishes deviation changes and, under the automatic policy, requests a reroute when the gate allows.
    /// `now`: the service's clock, which times the calculation session (fix times drive the reroute gate).
    /// `wasOff`: the state before was off the route.
    mutating func handleDeviation(_ state: NavigatingState, wasOff: Bool, fix: GNSSFix, now: Date) {
        let policy = settings.reroute.policy
        guard policy != .off else { return }
        let isOff = state.deviation.isOffRoute
        if !isOff {
            if wasOff {
                lastRerouteDecision = nil
                publish(.deviation(DeviationEvent(offRoute: false, distance: distance(of: state.deviation))))
                announce(.backOnRoute)
            }
            return
        }
        var decision: RerouteGate.Decision?
        if policy == .automatic {
            // A change of stops in flight routes from the current position too: no reroute beside it.
            let inFlight = calculations.values.contains { $0.purpose == .reroute || $0.purpose == .initial || $0.purpose.editsStops }
            decision = gate.decide(time: fix.location.timestamp, coordinate: fix.location.coordinate, inFlight: inFlight)
        }
        let decisionName = decision?.name ?? "report_only"
        // One event when the vehicle leaves the route, then one whenever what the policy does about it changes.
        if !wasOff || decisionName != lastRerouteDecision {
            lastRerouteDecision = decisionName
            publish(
                .deviation(
                    DeviationEvent(
                        offRoute: true, distance: distance(of: state.deviation), reroute: DeviationEvent.Reroute(rawValue: decisionName),
                        rerouteResumesAt: gate.backoffUntil.map(ISO8601Timestamp.format))))
        }
        if !wasOff { announce(decision == .request ? .rerouting : .offRoute) }
        switch decision {
        case .request:
            startReroute(from: fix, state: state, now: now)
        case .loopDetected(let until):
            log(
                .warning,
                "reroute loop: \(settings.reroute.loopCount) reroutes within \(Int(settings.reroute.loopWindow)) s; pausing rerouting until \(ISO8601Timestamp.format(until))"
            )
        default:
            break
        }
    }

    private func distance(of deviation: RouteDeviation) -> Double {
        switch deviation {
        case .none: 0
        case .offStep(let d), .offRoute(let d), .leaving(let d), .approaching(let d): (d * 100).rounded() / 100
        }
    }

    /// Where the vehicle will be when the answer arrives: ahead along its course at its speed, with its heading,
    /// so the new route starts in front of the vehicle rather than behind it.
    func predictedOrigin(_ location: UserLocation) -> UserLocation {
        var origin = location
        if let speed = location.speed?.metersPerSecond, speed >= UserLocation.minimumSpeedForCourse, let course = location.course?.degrees {
            origin.coordinate = Geodesy.destination(from: location.coordinate, distance: speed * expectedRerouteLatency, bearing: course)
            origin.timestamp = location.timestamp.addingTimeInterval(expectedRerouteLatency)
        }
        return origin
    }

    private mutating func startReroute(from fix: GNSSFix, state: NavigatingState, now: Date) {
        guard let current = trip else { return }
        gate.recordRequest(time: fix.location.timestamp, coordinate: fix.location.coordinate)
        let passed = current.passedBeforeRoute + max(0, state.remainingWaypoints.startIndex - 1)
        let remaining = Array(current.requested.dropFirst(passed))
        startCalculation(purpose: .reroute, waypoints: remaining, options: current.options, origin: predictedOrigin(fix.location), now: now)
    }

    /// Why a reroute result must not replace the active route, or nil when it may. A rejection counts toward loop
    /// detection; an unusable answer also backs the next request off (``RerouteGate``).
    /// `prepared`: the route's controller made ahead, when usable.
    mutating func rerouteRejection(_ route: Route, calculation: Calculation, prepared: PreparedRoute?) -> (reason: String?, controller: NavigationController?) {
        guard let current = trip, calculation.generation == generation else { return ("the trip has ended", nil) }
        guard let state = current.state.navigating else { return ("the trip is not navigating", nil) }
        if settings.reroute.accept == .ifStillOffRoute, !state.deviation.isOffRoute {
            gate.recordUnneeded(time: lastFix?.location.timestamp ?? calculation.startedAt)
            return ("the vehicle is back on the route", nil)
        }
        guard let controller = try? self.controller(for: route, prepared: prepared) else {
            return ("the new route has no steps", nil)
        }
        let sameRoute = SameRouteAhead()
        if sameRoute.isSame(controller.index, as: current.controller.index, from: state.distanceAlong) {
            gate.recordSameRoute(time: lastFix?.location.timestamp ?? calculation.startedAt)
            return ("the answer is the route already in use (the same way ahead, within \(Int(sameRoute.tolerance)) m): kept, with its progress and prompts", nil)
        }
        if let fix = lastFix, let probe = controller.initialState(for: fix.location).navigating, probe.stepIndex > 0 {
            gate.recordFailure(time: fix.location.timestamp)
            return ("its first maneuver is already behind the vehicle", nil)
        }
        return (nil, controller)
    }

    /// Replaces the active route with an accepted reroute or a change of stops: retracts pending instructions,
    /// publishes the route, and snaps the last fix to it. The trip goes on: its totals, its pace, its id.
    /// `reason` and `retraction`: what the events say (by default, from the calculation's purpose); `routeText`:
    /// the text of `controller`'s route written ahead (``PreparedRoute``).
    mutating func applyRouteChange(
        _ controller: NavigationController, calculation: Calculation, now: Date, reason: RouteEvent.Reason? = nil,
        retraction: InstructionRetractedEvent.Reason? = nil, routeText: JSONTextWritten? = nil
    ) {
        guard var current = trip, let state = current.state.navigating else { return }
        // One trip, one clock: the new route continues the trip's totals (it started at `navigate`).
        let tripSoFar = state.summary
        let isReroute = calculation.purpose == .reroute
        if isReroute {
            // One clock: both times are the service's (a GNSS fix time against the system clock measured the
            // offset between the two clocks, not the engine).
            let measured = now.timeIntervalSince(calculation.startedAt)
            if measured.isFinite, measured >= 0 {
                expectedRerouteLatency = min(5, max(0.5, 0.7 * expectedRerouteLatency + 0.3 * measured))
            }
        }
        retractInstructions(reason: retraction ?? (isReroute ? .reroute : .stopsChanged))
        current = trip!
        keepReplaced(current)
        if let kept = calculation.keptWaypoints {
            // The stops as edited: those passed before, then the new list the route goes through.
            current.requested = kept + calculation.requested
            current.passedBeforeRoute = kept.count
        } else {
            current.passedBeforeRoute += max(0, state.remainingWaypoints.startIndex - 1)
        }
        current.routeId = makeRouteId()
        current.controller = controller
        current.routeText = routeText
        current.ledger = InstructionLedger()
        current.ledger.skipDeparture(of: controller.route)
        if isReroute { current.reroutes += 1 }
        current.refresh = RefreshTimes()
        current.faster = FasterRouteLooks()
        current.state = .idle
        trip = current
        if isReroute { gate.recordApplied(time: lastFix?.location.timestamp ?? now) }
        lastRerouteDecision = nil
        publishRoute(reason: reason ?? Self.routeReason(calculation.purpose), session: calculation.session)
        if let fix = lastFix {
            apply(controller.initialState(for: fix.location, continuing: tripSoFar), before: nil, fix: fix, now: now)
            refreshIfDue(fix: fix, now: now)
            lookForFasterRouteIfDue(fix: fix, now: now)
        }
        if !isReroute { saveJournal(now: now) }
    }

    /// The `route` event's reason for a route from a session of `purpose`.
    static func routeReason(_ purpose: Purpose) -> RouteEvent.Reason {
        switch purpose {
        case .initial: .initial
        case .snap: .snap
        case .reroute: .reroute
        case .addStop: .stopAdded
        case .removeStop: .stopRemoved
        case .skipWaypoint: .waypointSkipped
        case .fasterRoute: .faster
        // Never asked: a refresh keeps its route (route_refreshed, not route).
        case .refresh: .reroute
        }
    }

    /// Withdraws instructions sent for maneuvers the vehicle has not reached.
    mutating func retractInstructions(reason: InstructionRetractedEvent.Reason) {
        guard Self.holdsTrip(&trip) else { return }
        let pending = trip!.ledger.retractAll()
        guard !pending.isEmpty else { return }
        let items = pending.map { sent in
            InstructionRetractedEvent.Retracted(kind: sent.kind, stepIndex: sent.stepIndex, utteranceId: sent.kind == .spoken ? sent.key : nil)
        }
        publish(.instructionRetracted(InstructionRetractedEvent(reason: reason, instructions: items)))
    }

    /// The `route` event for the active route.
    mutating func publishRoute(reason: RouteEvent.Reason, session: Int?) {
        guard let current = trip else { return }
        if let open = offer, open.routeId != current.routeId { withdrawOffer(because: "a new route (\(reason.rawValue)) replaced the one it was for") }
        let route = current.controller.route
        publish(.route(RouteEvent(reason: reason, session: session, route: route, routeText: current.routeText)))
        effects.append(.activeRouteChanged(route))
    }
}
