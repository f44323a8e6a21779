import Foundation
import NavigationCore
import NavigationProtocol
import RouteAdapters
import RouteClient

extension TripCoordinator {
    /// Starts a session. A newer calculation supersedes older ones: a reroute supersedes reroutes; a navigate or
    /// snap supersedes everything. A navigate without a fix yet waits for one (see ``tick(now:)``).
    @discardableResult
    mutating func startCalculation(
        purpose: Purpose, waypoints: [Waypoint], options: RouteOptions, origin: UserLocation?, now: Date, trace: [TracePoint]? = nil
    ) -> Int {
        let session = nextSession
        nextSession += 1
        for older in calculations.values.sorted(by: { $0.session < $1.session }) where purpose != .reroute || older.purpose == .reroute {
            cancelSession(older.session, reason: "superseded by session \(session)")
        }
        let waiting = origin == nil && trace == nil
        calculations[session] = Calculation(
            session: session, purpose: purpose, startedAt: now, generation: purpose == .reroute ? generation : -1, requested: waypoints,
            options: options, waitingForFix: waiting)
        var fields: [String: JSONValue] = ["session": .number(Double(session)), "purpose": .string(purpose.rawValue), "status": "in_progress"]
        if waiting { fields["waiting"] = "gnss_fix" }
        publish(.routeCalculation, fields)
        if let trace {
            effects.append(.startCalculation(session: session, request: .match(trace)))
        } else if let origin {
            requestRoute(session: session, origin: origin)
        }
        return session
    }

    private mutating func requestRoute(session: Int, origin: UserLocation) {
        guard let calculation = calculations[session] else { return }
        let query = RouteQuery(origin: origin.withCourseOnlyWhenMoving(), waypoints: calculation.requested)
        effects.append(.startCalculation(session: session, request: .route(query, options: calculation.options)))
    }

    mutating func startCalculationsWaitingForFix(_ fix: GNSSFix) {
        for session in calculations.keys.sorted() where calculations[session]!.waitingForFix {
            calculations[session]!.waitingForFix = false
            publish(.routeCalculation, ["session": .number(Double(session)), "purpose": .string(calculations[session]!.purpose.rawValue), "status": "in_progress", "waiting": .null])
            requestRoute(session: session, origin: fix.location)
        }
    }

    /// Periodic work: dead reckoning through an outage; a navigate waiting too long for the first fix fails.
    public mutating func tick(now: Date) {
        predictThroughOutage(now: now)
        for session in calculations.keys.sorted() {
            guard let calculation = calculations[session], calculation.waitingForFix,
                now.timeIntervalSince(calculation.startedAt) >= settings.reroute.firstFixTimeout
            else { continue }
            calculations[session] = nil
            publish(
                .routeCalculation,
                [
                    "session": .number(Double(session)), "purpose": .string(calculation.purpose.rawValue), "status": "failed",
                    "error": [
                        "code": "no_gnss_fix",
                        "message": .string("no GNSS fix within \(Int(settings.reroute.firstFixTimeout)) s; cannot route from the current position"),
                        "retryable": false,
                    ],
                ])
        }
    }

    /// The service reports a failed attempt the session goes on from: a retry after `retryIn` seconds on the
    /// same engine, or the next engine of the chain.
    public mutating func calculationAttemptFailed(session: Int, _ failure: RouteCalculationRunner.FailedAttempt) {
        guard let calculation = calculations[session] else { return }
        calculations[session]!.attempts = failure.attempt
        var fields: [String: JSONValue] = [
            "session": .number(Double(session)), "purpose": .string(calculation.purpose.rawValue), "status": "in_progress",
            "attempt": .number(Double(failure.attempt)), "retryIn": .number(failure.retryIn), "error": Self.errorFields(failure.error),
            "engine": Self.engineFields(failure.engine),
        ]
        if let next = failure.next {
            fields["fallbackTo"] = Self.engineFields(next)
            log(.warning, "route calculation \(session): \(failure.engine.name) failed (\(failure.error)); trying \(next.name) at \(next.server)")
        } else {
            log(.warning, "route calculation \(session) attempt \(failure.attempt) failed, retrying in \(failure.retryIn) s: \(failure.error)")
        }
        publish(.routeCalculation, fields)
    }

    /// The service reports the end of a session (tests: a bare result).
    public mutating func calculationFinished(session: Int, result: Result<[Route], RouteFetchError>, attempts: Int, now: Date) {
        calculationFinished(session: session, RouteCalculationRunner.Outcome(result: result, attempts: attempts), now: now)
    }

    /// The service reports the end of a session: its result, and which engines answered or gave up.
    public mutating func calculationFinished(session: Int, _ outcome: RouteCalculationRunner.Outcome, now: Date) {
        guard let calculation = calculations.removeValue(forKey: session) else { return }
        let attempts = outcome.attempts
        var fields: [String: JSONValue] = [
            "session": .number(Double(session)), "purpose": .string(calculation.purpose.rawValue), "attempts": .number(Double(attempts)),
        ]
        if let engine = outcome.answeredBy { fields["engine"] = Self.engineFields(engine) }
        if !outcome.failedEngines.isEmpty {
            fields["failedEngines"] = .array(outcome.failedEngines.map {
                .object(["name": .string($0.engine.name), "server": .string($0.engine.server), "error": Self.errorFields($0.error)])
            })
        }
        switch outcome.result {
        case .failure(let error):
            if calculation.purpose == .reroute { gate.recordFailure(time: lastFix?.location.timestamp ?? now) }
            fields["status"] = "failed"
            fields["error"] = Self.errorFields(error)
            publish(.routeCalculation, fields)
            log(.error, "route calculation \(session) (\(calculation.purpose.rawValue)) failed after \(attempts) attempt(s): \(error)")
        case .success(let routes):
            guard let route = routes.first else {
                fields["status"] = "failed"
                fields["error"] = ["code": "no_route", "message": "the routing engine returned no route", "retryable": false]
                publish(.routeCalculation, fields)
                return
            }
            if calculation.purpose == .reroute {
                let (rejection, controller) = rerouteRejection(route, calculation: calculation)
                fields["status"] = "succeeded"
                fields["applied"] = .bool(controller != nil)
                if let rejection {
                    fields["reason"] = .string(rejection)
                    publish(.routeCalculation, fields)
                    log(.info, "reroute \(session) not applied: \(rejection)")
                } else if let controller {
                    fields["newRouteId"] = .string(nextRouteId)
                    publish(.routeCalculation, fields)
                    applyReroute(controller, calculation: calculation, now: now)
                }
                return
            }
            do throws(NavigationControllerError) {
                let controller = try NavigationController(route: route, config: settings.controller)
                fields["status"] = "succeeded"
                fields["applied"] = true
                fields["newRouteId"] = .string(nextRouteId)
                publish(.routeCalculation, fields)
                startTrip(controller, requested: calculation.requested, options: calculation.options, reason: calculation.purpose.rawValue,
                          session: session, now: now)
            } catch {
                fields["status"] = "failed"
                fields["error"] = ["code": "invalid_route", "message": .string("\(error)"), "retryable": false]
                publish(.routeCalculation, fields)
            }
        }
    }

    /// Replaces any trip with a new one on `controller`'s route.
    mutating func startTrip(_ controller: NavigationController, requested: [Waypoint], options: RouteOptions, reason: String, session: Int?, now: Date) {
        if trip != nil {
            retractInstructions(reason: "new_route")
            trip = nil
        }
        generation += 1
        gate.reset()
        lastRerouteDecision = nil
        trip = Trip(
            routeId: makeRouteId(), controller: controller, state: .idle, requested: requested, passedBeforeRoute: 0, options: options)
        publishRoute(reason: reason, session: session)
        log(.notice, "trip \(trip!.routeId) started: \(Int(controller.route.distance)) m, \(controller.route.steps.count) steps")
        if let fix = lastFix {
            apply(controller.initialState(for: fix.location), previous: .idle, fix: fix, now: now)
        }
    }

    mutating func cancelSession(_ session: Int, reason: String) {
        guard let calculation = calculations.removeValue(forKey: session) else { return }
        if !calculation.waitingForFix { effects.append(.cancelCalculation(session: session)) }
        publish(
            .routeCalculation,
            ["session": .number(Double(session)), "purpose": .string(calculation.purpose.rawValue), "status": "cancelled", "reason": .string(reason)])
    }

    static func engineFields(_ engine: RouteEndpoint.Identity) -> JSONValue {
        ["name": .string(engine.name), "server": .string(engine.server)]
    }

    static func errorFields(_ error: RouteFetchError) -> JSONValue {
        ["code": .string(error.code), "message": .string(error.description), "retryable": .bool(error.isRetryable)]
    }
}
