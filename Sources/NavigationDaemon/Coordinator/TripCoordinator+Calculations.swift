import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import RouteAdapters
import RouteClient

extension TripCoordinator {
    /// Starts a session. A newer calculation supersedes older ones: a reroute supersedes reroutes; a navigate or
    /// snap supersedes everything. A navigate without a fix yet waits for one (see ``tick(now:)``).
    @discardableResult
    mutating func startCalculation(
        purpose: Purpose, waypoints: [Waypoint], options: RouteOptions, origin: UserLocation?, now: Date, trace: [TracePoint]? = nil,
        alternatives: Int = 0
    ) -> Int {
        let session = nextSession
        nextSession += 1
        for older in calculations.values.sorted(by: { $0.session < $1.session }) where Self.supersedes(purpose, older.purpose) {
            cancelSession(older.session, reason: "superseded by session \(session)")
        }
        let waiting = origin == nil && trace == nil
        let continuesTrip = purpose == .reroute || purpose == .fasterRoute || purpose.editsStops
        calculations[session] = Calculation(
            session: session, purpose: purpose, startedAt: now, generation: continuesTrip ? generation : -1, requested: waypoints,
            options: options, waitingForFix: waiting, alternatives: alternatives)
        if purpose == .fasterRoute { calculations[session]!.routeId = trip?.routeId }
        var event = RouteCalculationEvent(session: session, purpose: purpose, status: .inProgress)
        if waiting { event.waiting = .gnssFix }
        publish(.routeCalculation(event))
        if let trace {
            effects.append(.startCalculation(session: session, request: .match(trace)))
        } else if let origin {
            requestRoute(session: session, origin: origin)
        }
        return session
    }

    /// Whether a new session of `purpose` cancels a running one of `older`: a new trip replaces everything; a
    /// change of stops replaces reroutes and earlier changes (it routes from the current position too, through
    /// the list that includes them); a reroute replaces reroutes.
    static func supersedes(_ purpose: Purpose, _ older: Purpose) -> Bool {
        // A refresh or a look for a faster way gives way to any calculation, and starts only when none runs.
        if older == .refresh || older == .fasterRoute { return true }
        return switch purpose {
        case .initial, .snap: true
        case .reroute: older == .reroute
        case .addStop, .removeStop, .skipWaypoint: older == .reroute || older.editsStops
        case .refresh, .fasterRoute: false
        }
    }

    private mutating func requestRoute(session: Int, origin: UserLocation) {
        guard let calculation = calculations[session] else { return }
        let query = RouteQuery(origin: origin.withCourseOnlyWhenMoving(), waypoints: calculation.requested, alternatives: calculation.alternatives)
        effects.append(.startCalculation(session: session, request: .route(query, options: calculation.options)))
    }

    mutating func startCalculationsWaitingForFix(_ fix: GNSSFix) {
        for session in calculations.keys.sorted() where calculations[session]!.waitingForFix {
            calculations[session]!.waitingForFix = false
            var event = RouteCalculationEvent(session: session, purpose: calculations[session]!.purpose, status: .inProgress)
            event.waiting = RouteCalculationEvent.Waiting.none
            publish(.routeCalculation(event))
            requestRoute(session: session, origin: fix.location)
        }
    }

    /// Periodic work: dead reckoning through an outage; a navigate waiting too long for the first fix fails.
    public mutating func tick(now: Date) {
        predictThroughOutage(now: now)
        expireOffer(now: now)
        for session in calculations.keys.sorted() {
            guard let calculation = calculations[session], calculation.waitingForFix,
                now.timeIntervalSince(calculation.startedAt) >= settings.reroute.firstFixTimeout
            else { continue }
            calculations[session] = nil
            var event = RouteCalculationEvent(session: session, purpose: calculation.purpose, status: .failed)
            event.error = CalculationError(
                code: "no_gnss_fix", message: "no GNSS fix within \(Int(settings.reroute.firstFixTimeout)) s; cannot route from the current position",
                retryable: false)
            publish(.routeCalculation(event))
        }
    }

    /// The service reports a failed attempt the session goes on from: a retry after `retryIn` seconds on the
    /// same engine, or the next engine of the chain.
    public mutating func calculationAttemptFailed(session: Int, _ failure: RouteCalculationRunner.FailedAttempt) {
        guard let calculation = calculations[session] else { return }
        calculations[session]!.attempts = failure.attempt
        var event = RouteCalculationEvent(session: session, purpose: calculation.purpose, status: .inProgress)
        event.attempt = failure.attempt
        event.retryIn = failure.retryIn
        event.error = Self.calculationError(failure.error)
        event.engine = Self.engineIdentity(failure.engine)
        if let next = failure.next {
            event.fallbackTo = Self.engineIdentity(next)
            log(.warning, "route calculation \(session): \(failure.engine.name) failed (\(failure.error)); trying \(next.name) at \(next.server)")
        } else {
            log(.warning, "route calculation \(session) attempt \(failure.attempt) failed, retrying in \(failure.retryIn) s: \(failure.error)")
        }
        publish(.routeCalculation(event))
    }

    /// The service reports the end of a session (tests: a bare result).
    public mutating func calculationFinished(session: Int, result: Result<[Route], RouteFetchError>, attempts: Int, now: Date) {
        calculationFinished(session: session, RouteCalculationRunner.Outcome(result: result, attempts: attempts), now: now)
    }

    /// The service reports the end of a session: its result, and which engines answered or gave up.
    public mutating func calculationFinished(session: Int, _ outcome: RouteCalculationRunner.Outcome, now: Date) {
        if session == freeDriveSession { return freeDriveMatched(outcome) }
        guard let calculation = calculations.removeValue(forKey: session) else { return }
        let attempts = outcome.attempts
        var event = RouteCalculationEvent(session: session, purpose: calculation.purpose, status: .failed)
        event.attempts = attempts
        event.engine = outcome.answeredBy.map(Self.engineIdentity)
        if !outcome.failedEngines.isEmpty {
            event.failedEngines = outcome.failedEngines.map {
                RouteCalculationEvent.FailedEngine(Self.engineIdentity($0.engine), error: Self.calculationError($0.error))
            }
        }
        switch outcome.result {
        case .failure(let error):
            if calculation.purpose == .reroute { gate.recordFailure(time: lastFix?.location.timestamp ?? now) }
            event.error = Self.calculationError(error)
            publish(.routeCalculation(event))
            log(.error, "route calculation \(session) (\(calculation.purpose.rawValue)) failed after \(attempts) attempt(s): \(error)")
        case .success(let routes):
            guard let route = routes.first else {
                event.error = CalculationError(code: "no_route", message: "the routing engine returned no route", retryable: false)
                publish(.routeCalculation(event))
                return
            }
            if calculation.purpose == .refresh {
                refreshAnswered(route, calculation: calculation, event: event, now: now)
                return
            }
            if calculation.purpose == .fasterRoute {
                fasterRouteAnswered(routes, calculation: calculation, event: event, now: now)
                return
            }
            if calculation.purpose == .reroute || calculation.purpose.editsStops {
                // Both continue the trip: the answer replaces its route unless there is a reason not to.
                let prepared = usable(outcome.prepared, for: route)
                let (rejection, controller) =
                    calculation.purpose == .reroute
                    ? rerouteRejection(route, calculation: calculation, prepared: prepared)
                    : stopsRejection(route, calculation: calculation, prepared: prepared)
                event.status = .succeeded
                event.applied = controller != nil
                if let rejection {
                    event.reason = rejection
                    publish(.routeCalculation(event))
                    log(calculation.purpose == .reroute ? .info : .warning, "\(calculation.purpose.rawValue) \(session) not applied: \(rejection)")
                } else if let controller {
                    event.newRouteId = nextRouteId
                    publish(.routeCalculation(event))
                    applyRouteChange(controller, calculation: calculation, now: now, routeText: prepared?.routeText)
                }
                return
            }
            do throws(NavigationControllerError) {
                let prepared = usable(outcome.prepared, for: route)
                let controller = try self.controller(for: route, prepared: prepared)
                event.status = .succeeded
                event.applied = true
                event.newRouteId = nextRouteId
                publish(.routeCalculation(event))
                startTrip(
                    controller, requested: calculation.requested, options: calculation.options, reason: calculation.purpose == .snap ? .snap : .initial,
                    session: session, now: now, alternatives: calculation.alternatives > 0 && routes.count > 1 ? routes : [],
                    routeText: prepared?.routeText)
            } catch {
                event.error = CalculationError(code: "invalid_route", message: "\(error)", retryable: false)
                publish(.routeCalculation(event))
            }
        }
    }

    /// Replaces any trip with a new one on `controller`'s route.
    /// `alternatives`: the answer's routes (the first is `controller`'s) to offer right after the route.
    /// `routeText`: the text of `controller`'s route written ahead (``PreparedRoute``).
    mutating func startTrip(
        _ controller: NavigationController, requested: [Waypoint], options: RouteOptions, reason: RouteEvent.Reason, session: Int?, now: Date,
        alternatives: [Route] = [], routeText: JSONTextWritten? = nil
    ) {
        abandonFreeDrive()
        let voiceBefore = voice
        if Self.holdsTrip(&trip) {
            retractInstructions(reason: .newRoute)
            keepReplaced(trip!)
            trip = nil
        }
        generation += 1
        gate.reset()
        lastRerouteDecision = nil
        trip = Trip(
            routeId: makeRouteId(), controller: controller, state: .idle, requested: requested, passedBeforeRoute: 0, options: options)
        trip!.routeText = routeText
        publishVoice(ifChangedFrom: voiceBefore)
        publishRoute(reason: reason, session: session)
        if let session, !alternatives.isEmpty { offerAlternatives(alternatives, session: session, now: now) }
        log(.notice, "trip \(trip!.routeId) started: \(Int(controller.route.distance)) m, \(controller.route.steps.count) steps")
        if let fix = lastFix {
            apply(controller.initialState(for: fix.location), before: nil, fix: fix, now: now)
            refreshIfDue(fix: fix, now: now)
            lookForFasterRouteIfDue(fix: fix, now: now)
        }
    }

    mutating func cancelSession(_ session: Int, reason: String) {
        guard let calculation = calculations.removeValue(forKey: session) else { return }
        if !calculation.waitingForFix { effects.append(.cancelCalculation(session: session)) }
        var event = RouteCalculationEvent(session: session, purpose: calculation.purpose, status: .cancelled)
        event.reason = reason
        publish(.routeCalculation(event))
    }

    static func engineIdentity(_ engine: RouteEndpoint.Identity) -> EngineIdentity {
        EngineIdentity(name: engine.name, server: engine.server)
    }

    static func calculationError(_ error: RouteFetchError) -> CalculationError {
        CalculationError(code: error.code, message: error.description, retryable: error.isRetryable)
    }
}
