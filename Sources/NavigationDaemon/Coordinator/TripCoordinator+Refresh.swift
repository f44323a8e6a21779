import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import RouteAdapters
import TripPlanning

extension TripCoordinator {
    /// After each navigating fix: drops traffic that grew older than three refresh intervals, and asks for a
    /// refresh of the route ahead every `routing.refresh_interval` seconds of fix time, when the vehicle is on
    /// its route and no other calculation runs (a reroute, a change of stops or a new trip supersede a refresh).
    mutating func refreshIfDue(fix: GNSSFix, now: Date) {
        let interval = settings.refreshInterval
        // `trip!` in place, not a copy of the whole trip per fix; the state copied only when it is needed (not on
        // every fix).
        guard interval > 0, trip?.resumeFrom == nil, let onRouteFromRealFix = trip?.state.isOnRouteFromRealFix else { return }
        let time = fix.location.timestamp
        guard let lastAttempt = trip!.refresh.lastAttempt else {
            // The route's first fix: its figures are fresh now.
            let index = trip!.controller.index, route = trip!.controller.route
            trip!.refresh = RefreshTimes(
                lastAttempt: time, lastSuccess: time,
                hasTraffic: !RouteRefresh.congestion(route, index: index, from: 0).isEmpty || !RouteRefresh.incidents(route, index: index, from: 0).isEmpty)
            return
        }
        if trip!.refresh.hasTraffic, let fresh = trip!.refresh.lastSuccess, time.timeIntervalSince(fresh) > 3 * interval,
            let state = trip?.state.navigating
        {
            dropOldTraffic(state: state, age: time.timeIntervalSince(fresh))
        }
        guard time.timeIntervalSince(lastAttempt) >= interval, onRouteFromRealFix, calculations.isEmpty, let state = trip?.state.navigating
        else { return }
        trip!.refresh.lastAttempt = time
        startRefresh(state: state, fix: fix, now: now)
    }

    private mutating func startRefresh(state: NavigatingState, fix: GNSSFix, now: Date) {
        guard let current = trip else { return }
        let index = current.controller.index
        // The route ahead from the vehicle's place on it: that point, then the route's own vertices.
        let along = min(max(0, state.distanceAlong), index.totalDistance)
        let next = index.segment(atDistance: along) + 1
        var shape = [index.coordinate(atDistance: along)]
        for point in index.points[min(next, index.points.count)...] where point != shape.last { shape.append(point) }
        var origin = state.snappedLocation
        origin.course = fix.location.course
        origin.speed = fix.location.speed
        let passed = current.passedBeforeRoute + max(0, state.remainingWaypoints.startIndex - 1)
        let ahead = Array(current.requested.dropFirst(passed))
        let session = nextSession
        nextSession += 1
        calculations[session] = Calculation(
            session: session, purpose: .refresh, startedAt: now, generation: generation, requested: ahead, options: current.options,
            waitingForFix: false, routeId: current.routeId)
        publish(.routeCalculation(RouteCalculationEvent(session: session, purpose: .refresh, status: .inProgress)))
        let request = RefreshRequest(
            shape: shape, query: RouteQuery(origin: origin.withCourseOnlyWhenMoving(), waypoints: ahead), options: current.options)
        effects.append(.startCalculation(session: session, request: .refresh(request)))
    }

    /// The engine's answer to a refresh: its figures laid onto the route when it is the same way; otherwise
    /// nothing changes and the event says why.
    mutating func refreshAnswered(_ route: Route, calculation: Calculation, event: RouteCalculationEvent, now: Date) {
        var event = event
        event.status = .succeeded
        event.applied = false
        guard let (current, state) = stillOnRoute(of: calculation, event: event) else { return }
        let index = current.controller.index
        guard let start = SameRouteAhead().start(of: RouteIndex(route: route), on: index, from: state.distanceAlong) else {
            event.reason = "the engine's answer takes another way: its figures are not this route's"
            publish(.routeCalculation(event))
            log(.info, "refresh \(calculation.session) not applied: the engine's answer takes another way")
            return
        }
        let outcome = RouteRefresh(route: current.controller.route, index: index, start: start).merged(with: route)
        guard let controller = try? NavigationController(route: outcome.route, config: settings.controller) else {
            event.reason = "the refreshed route has no steps"
            publish(.routeCalculation(event))
            return
        }
        event.applied = true
        publish(.routeCalculation(event))
        trip!.controller = controller
        let time = lastFix?.location.timestamp ?? now
        trip!.refresh.lastSuccess = time
        trip!.refresh.hasTraffic = !outcome.congestion.isEmpty || !outcome.incidents.isEmpty
        // The remaining time as the route now says it from where the vehicle is (not from where the answer began).
        let remaining = RouteRefresh.remaining(outcome.route, index: index, from: state.distanceAlong)
        let before = RouteRefresh.remaining(current.controller.route, index: index, from: state.distanceAlong)
        publish(
            .routeRefreshed(
                RouteRefreshedEvent(
                    session: calculation.session, durationRemaining: Self.tenths(remaining), change: Self.tenths(remaining - before),
                    duration: Self.tenths(outcome.route.duration), speedLimitsChanged: outcome.limitsChanged,
                    congestion: outcome.congestion.map {
                        RouteRefreshedEvent.Congestion(from: Self.tenths($0.from), to: Self.tenths($0.to), level: $0.level)
                    },
                    incidents: outcome.incidents.map(Self.incidentAhead), expired: false, engine: event.engine)))
        log(.info, "route \(current.routeId) refreshed (session \(calculation.session)): \(CheckedNumber.clampedWhole(before)) s ahead became \(CheckedNumber.clampedWhole(remaining)) s")
        // A delay worth a driver's attention: a minute or more.
        if remaining - before >= 60 { announce(.trafficAhead, ["duration": said(duration: remaining - before)]) }
        saveJournal(now: now)
    }

    /// Traffic a refresh brought (or the route came with) that grew older than three intervals: dropped, and
    /// clients told, as peers do, so that a jam long gone is not drawn.
    private mutating func dropOldTraffic(state: NavigatingState, age: Double) {
        guard let current = trip else { return }
        let index = current.controller.index
        let route = RouteRefresh.expired(current.controller.route, index: index, from: state.distanceAlong)
        guard let controller = try? NavigationController(route: route, config: settings.controller) else { return }
        trip!.controller = controller
        trip!.refresh.hasTraffic = false
        let remaining = RouteRefresh.remaining(route, index: index, from: state.distanceAlong)
        publish(
            .routeRefreshed(
                RouteRefreshedEvent(
                    session: nil, durationRemaining: Self.tenths(remaining), change: 0, duration: Self.tenths(route.duration), speedLimitsChanged: 0,
                    congestion: [], incidents: [], expired: true, engine: nil)))
        log(.notice, "route \(current.routeId): traffic \(CheckedNumber.clampedWhole(age, rounding: .towardZero)) s old (more than three refresh intervals) dropped")
    }

    /// The trip and its state when the vehicle is still on the route `calculation` was about (a refresh, a look
    /// for a faster way); otherwise publishes that its answer is moot and returns nil.
    mutating func stillOnRoute(of calculation: Calculation, event: RouteCalculationEvent) -> (Trip, NavigatingState)? {
        guard let current = trip, calculation.generation == generation, calculation.routeId == current.routeId,
            let state = current.state.navigating, state.isOnRoute
        else {
            var event = event
            event.reason = "the route it was about is no longer the one being navigated, or the vehicle left it"
            publish(.routeCalculation(event))
            return nil
        }
        return (current, state)
    }

    static func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    static func incidentAhead(_ ahead: RouteRefresh.IncidentAhead) -> RouteRefreshedEvent.Incident {
        RouteRefreshedEvent.Incident(
            id: ahead.incident.id, type: ahead.incident.type, description: ahead.incident.description, impact: ahead.incident.impact,
            distance: tenths(ahead.distance), length: tenths(ahead.length))
    }
}
