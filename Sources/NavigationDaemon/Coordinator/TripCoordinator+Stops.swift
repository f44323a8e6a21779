import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol
import TripPlanning

extension TripCoordinator {
    /// `add_stop`, `remove_stop`, `skip_waypoint`: a calculation from where the vehicle will be through the
    /// edited list of waypoints ahead (``StopEdit``). The trip goes on its route until the answer replaces it
    /// (`route` with reason `stop_added`, `stop_removed` or `waypoint_skipped`); a failed calculation changes
    /// nothing. An edit made while another is calculating builds on it (and supersedes its session).
    public mutating func editStops(_ edit: StopEdit, now: Date) throws(ProtocolError) -> StopsReply {
        guard let current = trip, let state = current.state.navigating, let fix = lastFix else {
            throw ProtocolError(.noActiveTrip, "no trip is being navigated; stops are changed on the way")
        }
        let (kept, ahead) = waypointsAhead(current, state: state)
        let edited: [Waypoint]
        do throws(StopEditError) {
            edited = try edit.applied(to: ahead)
        } catch {
            throw ProtocolError(.invalidField, error.description)
        }
        // A skipped waypoint counts as passed: the ones after it keep their numbers (`waypoint_reached`, arrival).
        var passed = kept
        if case .skipNext = edit { passed.append(ahead[0]) }
        let purpose = Self.purpose(of: edit)
        let session = startCalculation(purpose: purpose, waypoints: edited, options: current.options, origin: predictedOrigin(fix.location), now: now)
        calculations[session]?.keptWaypoints = passed
        log(.notice, "\(purpose.rawValue): routing trip \(current.routeId) through \(edited.count) waypoint(s) ahead (session \(session))")
        return StopsReply(session: session, waypoints: edited.map { LatLon($0.coordinate) })
    }

    /// The trip's waypoints already passed and those still ahead, as the newest change of stops left them
    /// (one still calculating included).
    private func waypointsAhead(_ current: Trip, state: NavigatingState) -> (passed: [Waypoint], ahead: [Waypoint]) {
        if let pending = calculations.values.filter({ $0.purpose.editsStops && $0.generation == generation }).max(by: { $0.session < $1.session }),
            let kept = pending.keptWaypoints
        {
            return (kept, pending.requested)
        }
        let passed = current.passedBeforeRoute + max(0, state.remainingWaypoints.startIndex - 1)
        return (Array(current.requested.prefix(passed)), Array(current.requested.dropFirst(passed)))
    }

    static func purpose(of edit: StopEdit) -> Purpose {
        switch edit {
        case .add: .addStop
        case .remove: .removeStop
        case .skipNext: .skipWaypoint
        }
    }

    /// Why the answer to a change of stops must not replace the route, or nil (with the new controller) when it
    /// may. Unlike a reroute's, it is applied even while the vehicle is on the route: the driver asked for it.
    /// `prepared`: the route's controller made ahead, when usable.
    mutating func stopsRejection(_ route: Route, calculation: Calculation, prepared: PreparedRoute?) -> (reason: String?, controller: NavigationController?) {
        guard let current = trip, calculation.generation == generation else { return ("the trip has ended or was replaced", nil) }
        guard current.state.navigating != nil else { return ("the trip is not navigating", nil) }
        guard let controller = try? self.controller(for: route, prepared: prepared) else {
            return ("the new route has no steps", nil)
        }
        return (nil, controller)
    }
}
