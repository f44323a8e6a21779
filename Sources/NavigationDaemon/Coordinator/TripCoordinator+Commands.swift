import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import RouteAdapters

extension TripCoordinator {
    /// `navigate`: a session from the current position (or, without a fix yet, from the first fix).
    public mutating func navigate(_ command: NavigateCommand, now: Date) throws(ProtocolError) -> NavigateReply {
        do throws(RouteOptionsError) {
            _ = try settings.engine.requestOptions(for: command.options, profile: settings.profile)
        } catch {
            throw ProtocolError(.invalidField, "\(error)")
        }
        let session = startCalculation(
            purpose: .initial, waypoints: command.waypoints, options: settings.guidance.resolve(command.options), origin: lastFix?.location, now: now,
            alternatives: command.alternatives)
        var reply = NavigateReply(session: session, waitingForFix: lastFix == nil)
        if let fixAt = lastFixAt {
            // Routing from an old position is allowed (the vehicle may not have moved) but never silent.
            let age = now.timeIntervalSince(fixAt)
            let stale = age > settings.watchdogTimeout
            reply.originAge = (age * 10).rounded() / 10
            reply.originStale = stale
            if stale { log(.warning, "navigate: routing from a position \(Int(age)) s old (GNSS \(gnssHealth.status.rawValue): \(gnssHealth.detail))") }
        }
        return reply
    }

    /// Most points a stock OSRM `/match` takes (osrm-routed's `--max-matching-size` default).
    public static let osrmMatchLimit = 100

    /// `snap_route`: map-match a track and navigate the result. A trace longer than the engine takes is refused
    /// with a clear error rather than sent to fail there.
    public mutating func snapRoute(_ command: SnapRouteCommand, now: Date) throws(ProtocolError) -> SessionReply {
        if settings.engine == .osrm, command.points.count > Self.osrmMatchLimit {
            throw ProtocolError(
                .invalidField,
                "'trace' has \(command.points.count) points; OSRM's /match takes at most \(Self.osrmMatchLimit) (osrm-routed "
                    + "--max-matching-size): send a shorter or thinned trace")
        }
        let trace = command.points.map { TracePoint(coordinate: $0.coordinate, timestamp: $0.time, radius: $0.radius) }
        let destination = Waypoint(coordinate: command.points.last!.coordinate)
        let session = startCalculation(purpose: .snap, waypoints: [destination], options: RouteOptions(), origin: nil, now: now, trace: trace)
        return SessionReply(session: session)
    }

    /// `cancel`: ends the trip and every calculation.
    public mutating func cancel() -> CancelReply {
        let hadTrip = Self.holdsTrip(&trip)
        for session in calculations.keys.sorted() { cancelSession(session, reason: "cancelled by a client") }
        if hadTrip {
            let routeId = trip!.routeId
            retractInstructions(reason: .cancel)
            endTrip(reason: "cancelled")
            log(.notice, "trip \(routeId) cancelled by a client")
        }
        return CancelReply(cancelledTrip: hadTrip)
    }

    /// `advance`: the next step now.
    public mutating func advance(now: Date) throws(ProtocolError) -> AdvanceReply {
        guard let current = trip, current.state.navigating != nil, let fix = lastFix else {
            throw ProtocolError(.noActiveTrip, "no trip is being navigated")
        }
        let previous = current.state
        let next = current.controller.advanceManually(previous)
        apply(next, before: StepSummary(previous), fix: fix, now: now)
        return AdvanceReply(stepIndex: next.navigating?.stepIndex, arrived: next.navigating == nil)
    }

    /// `cancel_calculation`: one session, or every running one.
    public mutating func cancelCalculation(_ command: CancelCalculationCommand) throws(ProtocolError) -> CancelCalculationReply {
        if let session = command.session {
            guard calculations[session] != nil else { throw ProtocolError(.noSuchCalculation, "no calculation session \(session) is running") }
            cancelSession(session, reason: "cancelled by a client")
            return CancelCalculationReply(cancelled: [session])
        }
        let sessions = calculations.keys.sorted()
        for session in sessions { cancelSession(session, reason: "cancelled by a client") }
        return CancelCalculationReply(cancelled: sessions)
    }

    /// The phase clients see in `hello` and `status`.
    public var phase: String {
        if let current = trip {
            if current.resumeFrom != nil { return "resuming" }
            return current.state.navigating != nil ? "navigating" : "waiting_for_fix"
        }
        if calculations.values.contains(where: { $0.waitingForFix }) { return "waiting_for_fix" }
        if !calculations.isEmpty { return "calculating" }
        return "idle"
    }

    /// The full snapshot for `status` and `hello`.
    /// `now`: the wall clock, for the age of the last fix.
    public func snapshot(now: Date? = nil) -> Snapshot {
        let gnss = Snapshot.GNSS(
            status: GNSSEvent.Status(rawValue: gnssHealth.status.rawValue) ?? .lost, detail: gnssHealth.detail,
            rejectedFixes: .init(
                backwardsInTime: fixGate.rejections.backwardsInTime, repeatedTime: fixGate.rejections.repeatedTime,
                impossibleSpeed: fixGate.rejections.impossibleSpeed, timeJump: fixGate.rejections.timeJump),
            lastFixAge: now.flatMap { now in lastFixAt.map { (now.timeIntervalSince($0) * 10).rounded() / 10 } })
        var snapshot = Snapshot(
            phase: Snapshot.Phase(rawValue: phase) ?? .idle, routeId: trip?.routeId, gnss: gnss,
            calculations: calculations.values.sorted { $0.session < $1.session }.map {
                Snapshot.Calculation(session: $0.session, purpose: $0.purpose, waitingForFix: $0.waitingForFix, attempts: $0.attempts)
            },
            reroute: .init(
                policy: settings.reroute.policy.rawValue, accept: settings.reroute.accept.rawValue,
                resumesAt: gate.backoffUntil.map(ISO8601Timestamp.format)))
        snapshot.voice = voice
        if let fix = lastFix {
            snapshot.lastFix = TripStateRecord.Point(fix.location)
            snapshot.lastFixTime = ISO8601Timestamp.format(fix.location.timestamp)
        }
        if let current = trip {
            let route = current.controller.route
            snapshot.route = .init(
                distance: (route.distance * 10).rounded() / 10, duration: (route.duration * 10).rounded() / 10, steps: route.steps.count,
                reroutes: current.reroutes)
            snapshot.destinations = current.requested.map { LatLon($0.coordinate) }
            if current.state.navigating != nil, let fix = lastFix {
                snapshot.tripState = TripStateRecord(current.state, time: fix.location.timestamp)
            }
        }
        return snapshot
    }

    /// `route`: the route navigated now (none while a trip waits for its first route).
    public func currentRoute() -> CurrentRouteReply {
        guard let current = trip else { return CurrentRouteReply(routeId: nil, route: nil) }
        return CurrentRouteReply(routeId: current.routeId, route: current.controller.route)
    }

    /// One line for systemd's STATUS=.
    ///
    /// A mutating getter, its trip read through `inout`: read by value, the whole trip was copied first, on every
    /// input the loop runs.
    public var statusLine: String {
        mutating get {
            if let navigating = Self.distanceAndDeviation(&trip) {
                // Read after every input: written again only when the rounded distance or the deviation changes.
                let key = NavigatingStatus(distance: HumanReadable.RoundedDistance(navigating.distance), offRoute: navigating.offRoute)
                if let navigatingStatus, navigatingStatus.key == key { return navigatingStatus.text }
                let text = "navigating, \(key.distance) left" + (key.offRoute ? " (off route)" : "")
                navigatingStatus = (key, text)
                return text
            }
            switch phase {
            case "resuming": return "resuming trip \(trip!.routeId), waiting for GNSS fix"
            case "waiting_for_fix": return "waiting for GNSS fix"
            case "calculating": return "calculating route"
            default: return lastFix == nil ? "idle, waiting for GNSS fix" : "idle, GNSS \(gnssHealth.status.rawValue)"
            }
        }
    }

    /// While navigating, the distance left (metres) and whether the vehicle is off the route, read in place.
    private static func distanceAndDeviation(_ trip: inout Trip?) -> (distance: Double, offRoute: Bool)? {
        trip?.state.distanceRemainingAndOffRoute
    }
}

/// What a navigating status line says: the distance left as it is written, and whether the vehicle is off the route.
struct NavigatingStatus: Equatable, Sendable {
    var distance: HumanReadable.RoundedDistance
    var offRoute: Bool
}
