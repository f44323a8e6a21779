import FoundationEssentials
import LocationSources
import NavigationCore
import NavigationProtocol
import RoadAhead

extension TripCoordinator {
    /// Feeds the speed alert with one state and publishes a `speed_alert` event when the alert changed. Returns
    /// what `trip_state.speedAlert` carries: the alert where a limit is known or an alert is on, else nil.
    ///
    /// - `fix`: the real fix the state was made from; nil for a state predicted through an outage, which has no
    ///   speed the receiver vouches for (no alert then).
    /// - `state`: the navigating state; nil without a trip (no limit known: free drive has none yet).
    /// The limit is the one in force at the snapped position while the vehicle is on the route; off it, leaving it
    /// or approaching it, the route's limit is not the road's.
    mutating func observeSpeed(state: NavigatingState?, fix: GNSSFix?, time: Date) -> SpeedAlert? {
        let speed = state?.predicted == true ? nil : fix?.location.speed?.metersPerSecond
        var limit: (value: Double, unit: SpeedUnit)?
        var ahead: (value: Double, unit: SpeedUnit, distance: Double)?
        if let state, state.isOnRoute, case .limit(let value, let unit)? = state.annotation?.maxSpeed, let current = trip {
            limit = (value, unit)
            if let speed {
                let rules = speedAlerts.rules
                let inForce = value * unit.metersPerSecond
                let run = current.limits.firstLimitAhead(of: state.distanceAlong, within: rules.warningDistance(speed: speed)) { run in
                    run.metersPerSecond < inForce && speed / run.unit.metersPerSecond > rules.threshold(.minor, limit: run.value)
                }
                if let run { ahead = (run.value, run.unit, max(0, run.start - state.distanceAlong)) }
            }
        }
        if speedAlerts.update(SpeedObservation(time: time, speed: speed, limit: limit, ahead: ahead)) {
            publish(.speedAlert(speedAlerts.alert))
        }
        let alert = speedAlerts.alert
        return alert.limit != nil || alert.level != .none || alert.lowerLimitAhead != nil ? alert : nil
    }
}

extension TripCoordinator {
    /// The road objects ahead of `state` within `road_ahead.horizon` (nearest first), for `trip_state.roadAhead`.
    /// Measured from the snapped progress; while approaching the route, from its start.
    func roadAhead(_ state: NavigatingState) -> [RoadObjectAhead] {
        guard let current = trip else { return [] }
        return current.objects.ahead(of: state.distanceAlong, within: settings.roadAheadHorizon, limit: settings.roadAheadLimit)
    }
}
