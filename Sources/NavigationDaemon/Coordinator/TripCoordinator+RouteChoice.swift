import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import RouteAdapters
import TripPlanning

extension TripCoordinator {
    // MARK: - Looking for a faster way

    /// After each navigating fix: every `routing.faster_route_interval` seconds of fix time, when the vehicle is on
    /// its route and nothing else calculates, asks the engine for the way from where the vehicle will be (with
    /// alternatives) to judge whether a faster one exists.
    mutating func lookForFasterRouteIfDue(fix: GNSSFix, now: Date) {
        let rules = settings.fasterRoute
        // `trip!` in place, not a copy of the whole trip per fix.
        guard rules.mode != .off, trip?.resumeFrom == nil, let state = trip?.state.navigating else { return }
        let time = fix.location.timestamp
        guard let last = trip!.faster.lastLook else {
            trip!.faster.lastLook = time
            return
        }
        guard time.timeIntervalSince(last) >= rules.interval, state.isOnRoute, !state.predicted, calculations.isEmpty, offer == nil else { return }
        trip!.faster.lastLook = time
        let passed = trip!.passedBeforeRoute + max(0, state.remainingWaypoints.startIndex - 1)
        startCalculation(
            purpose: .fasterRoute, waypoints: Array(trip!.requested.dropFirst(passed)), options: trip!.options,
            origin: predictedOrigin(fix.location), now: now, alternatives: 2)
    }

    /// The answer to a look for a faster way: judged (``FasterRouteJudge``); a faster way is offered or taken
    /// (`routing.faster_route`), anything else refused with the reason in the calculation's event.
    mutating func fasterRouteAnswered(_ routes: [Route], calculation: Calculation, event: RouteCalculationEvent, now: Date) {
        var event = event
        event.status = .succeeded
        event.applied = false
        guard let (current, state) = stillOnRoute(of: calculation, event: event) else { return }
        let index = current.controller.index
        let sameRoute = SameRouteAhead()
        let speed = max(state.rawLocation.speed?.metersPerSecond ?? 0, 5)
        let indexes = routes.map(RouteIndex.init(route:))
        let candidates = indexes.enumerated().map { i, candidate in
            FasterRouteCandidate(
                index: i, duration: routes[i].duration, isSameWay: sameRoute.isSame(candidate, as: index, from: state.distanceAlong),
                isWayLeft: current.wayLeft.map { sameRoute.isSame(candidate, as: $0.index, from: 0) } ?? false,
                wasOffered: current.faster.offered.map { sameRoute.isSame(candidate, as: $0, from: 0) } ?? false,
                secondsToLeaveRoute: RouteDivergence.sharedLength(of: candidate, with: index, from: state.distanceAlong) / speed)
        }
        let routeLeft = RouteRefresh.remaining(current.controller.route, index: index, from: state.distanceAlong)
        switch FasterRouteJudge(rules: settings.fasterRoute).decide(routeLeft: routeLeft, candidates: candidates) {
        case .refused(let reason):
            event.reason = "no faster way: " + reason
            publish(.routeCalculation(event))
            log(.info, "faster route \(calculation.session): \(reason)")
        case .faster(let chosen, let saving, let baseline):
            let fraction = baseline > 0 ? saving / baseline : 0
            let option = Self.option(routes[chosen], index: 0, against: current.controller.route, remaining: routeLeft, along: state.distanceAlong)
            guard settings.fasterRoute.mode == .switch, let controller = try? NavigationController(route: routes[chosen], config: settings.controller) else {
                event.reason = "offered: \(CheckedNumber.clampedWhole(saving)) s faster (routing.faster_route = notify)"
                publish(.routeCalculation(event))
                trip!.faster.offered = indexes[chosen]
                offer = RouteOffer(
                    kind: .faster, session: calculation.session, routes: [routes[chosen]], routeId: current.routeId,
                    chooseBefore: now.addingTimeInterval(settings.chooseTimeout), saving: saving, savingFraction: fraction)
                publish(
                    .fasterRoute(
                        FasterRouteEvent(
                            session: calculation.session, status: .offered, saving: Self.tenths(saving), savingFraction: Self.hundredths(fraction),
                            chooseBefore: ISO8601Timestamp.format(offer!.chooseBefore), route: option)))
                log(.notice, "faster route \(calculation.session): \(CheckedNumber.clampedWhole(saving)) s faster, offered")
                announce(.fasterRoute, ["duration": said(duration: saving)])
                return
            }
            event.applied = true
            event.newRouteId = nextRouteId
            publish(.routeCalculation(event))
            publish(
                .fasterRoute(
                    FasterRouteEvent(
                        session: calculation.session, status: .taken, saving: Self.tenths(saving), savingFraction: Self.hundredths(fraction), route: option)))
            log(.notice, "faster route \(calculation.session): \(CheckedNumber.clampedWhole(saving)) s faster, taken")
            switchToFaster(controller, calculation: calculation, now: now)
        }
    }

    /// Takes a faster way: like a reroute with its own reasons; the way left is not switched back to for three
    /// look intervals.
    private mutating func switchToFaster(_ controller: NavigationController, calculation: Calculation, now: Date) {
        guard let left = trip?.controller.index else { return }
        applyRouteChange(controller, calculation: calculation, now: now, reason: .faster, retraction: .fasterRoute)
        trip?.wayLeft = (left, lastFix?.location.timestamp ?? now)
    }

    // MARK: - Offers

    /// `navigate`'s alternatives: the trip goes on the first meanwhile; `choose_route` takes another until the
    /// time runs out.
    mutating func offerAlternatives(_ routes: [Route], session: Int, now: Date) {
        guard let current = trip else { return }
        offer = RouteOffer(
            kind: .alternatives, session: session, routes: routes, routeId: current.routeId, chooseBefore: now.addingTimeInterval(settings.chooseTimeout))
        let first = routes[0]
        publish(
            .routeAlternatives(
                RouteAlternativesEvent(
                    session: session, status: .offered, chooseBefore: ISO8601Timestamp.format(offer!.chooseBefore),
                    routes: routes.enumerated().map { Self.option($1, index: $0, against: first, remaining: first.duration, along: 0) })))
    }

    /// `choose_route`: route `index` of the open offer. Index 0 of alternatives keeps the route; another
    /// replaces it (reason `chosen`); index 0 of a faster way takes it (reason `faster`).
    public mutating func chooseRoute(_ command: ChooseRouteCommand, now: Date) throws(ProtocolError) -> ChooseRouteReply {
        guard let open = offer, let current = trip, open.routeId == current.routeId else {
            throw ProtocolError(.noChoice, "no routes are offered to choose from" + (lastOfferEnd.map { " (\($0))" } ?? ""))
        }
        guard now < open.chooseBefore else {
            expireOffer(now: now)
            throw ProtocolError(.noChoice, lastOfferEnd ?? "the time to choose ran out")
        }
        guard open.routes.indices.contains(command.index) else {
            throw ProtocolError(.invalidField, "'index' \(command.index) is out of range: the offer has \(open.routes.count) route(s), so 0...\(open.routes.count - 1)")
        }
        guard current.state.navigating != nil else { throw ProtocolError(.noActiveTrip, "the trip is not being navigated yet") }
        offer = nil
        lastOfferEnd = "route \(command.index) of session \(open.session) was chosen"
        if open.kind == .alternatives, command.index == 0 {
            publish(.routeAlternatives(RouteAlternativesEvent(session: open.session, status: .chosen, chosen: 0)))
            return ChooseRouteReply(routeId: current.routeId, index: 0)
        }
        guard let controller = try? NavigationController(route: open.routes[command.index], config: settings.controller) else {
            throw ProtocolError(.invalidField, "route \(command.index) has no steps")
        }
        let passed = current.passedBeforeRoute + max(0, (current.state.navigating?.remainingWaypoints.startIndex ?? 1) - 1)
        let calculation = Calculation(
            session: open.session, purpose: open.kind == .faster ? .fasterRoute : .initial, startedAt: now, generation: generation,
            requested: Array(current.requested.dropFirst(passed)), options: current.options, waitingForFix: false)
        switch open.kind {
        case .alternatives:
            publish(.routeAlternatives(RouteAlternativesEvent(session: open.session, status: .chosen, chosen: command.index)))
            applyRouteChange(controller, calculation: calculation, now: now, reason: .chosen, retraction: .routeChosen)
        case .faster:
            publish(.fasterRoute(FasterRouteEvent(session: open.session, status: .chosen, saving: Self.tenths(open.saving), savingFraction: Self.hundredths(open.savingFraction))))
            switchToFaster(controller, calculation: calculation, now: now)
        }
        return ChooseRouteReply(routeId: trip?.routeId ?? current.routeId, index: command.index)
    }

    /// On the periodic tick: an offer whose time ran out ends; the route navigated stays.
    mutating func expireOffer(now: Date) {
        guard let open = offer, now >= open.chooseBefore else { return }
        offer = nil
        lastOfferEnd = "the time to choose (routing.choose_timeout, \(CheckedNumber.clampedWhole(settings.chooseTimeout)) s) ran out at \(ISO8601Timestamp.format(open.chooseBefore))"
        publishOfferEnd(open, status: .expired)
    }

    /// A newer route or the trip's end makes an open offer moot.
    mutating func withdrawOffer(because reason: String) {
        guard let open = offer else { return }
        offer = nil
        lastOfferEnd = "withdrawn: \(reason)"
        publishOfferEnd(open, status: .withdrawn)
    }

    private mutating func publishOfferEnd(_ open: RouteOffer, status: RouteOfferStatus) {
        switch open.kind {
        case .alternatives: publish(.routeAlternatives(RouteAlternativesEvent(session: open.session, status: status)))
        case .faster:
            publish(.fasterRoute(FasterRouteEvent(session: open.session, status: status, saving: Self.tenths(open.saving), savingFraction: Self.hundredths(open.savingFraction))))
        }
    }

    /// `route` as an option to choose, against `base` (its time `remaining` from `along` metres on).
    static func option(_ route: Route, index: Int, against base: Route, remaining: Double, along: Double) -> RouteOption {
        let summary = RouteSummary(route: route)
        return RouteOption(
            index: index, distance: tenths(summary.distance), duration: tenths(summary.duration), durationDelta: tenths(summary.duration - remaining),
            distanceDelta: tenths(summary.distance - max(0, base.distance - along)), tolls: summary.tolls, motorways: summary.motorways,
            mainRoads: summary.mainRoads, geometry: route.geometry)
    }

    static func hundredths(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
