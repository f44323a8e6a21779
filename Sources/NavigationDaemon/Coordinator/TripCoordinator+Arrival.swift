import FoundationEssentials
import NavigationCore
import TripPlanning

extension TripCoordinator {
    /// What `trip_state.arrival` carries for `state`: the destination's and each remaining stop's arrival at the
    /// driver's pace (``ArrivalEstimator``), measured from the fix time `time`.
    ///
    /// - `fix`: the real fix the state was made from; nil for a state predicted through an outage, which keeps
    ///   the pace as it was (no new evidence of it) but still moves the arrival on with the clock.
    mutating func estimateArrival(_ state: NavigatingState, fix: GNSSFix?, time: Date) -> TripStateRecord.Arrival? {
        guard Self.holdsTrip(&trip) else { return nil }
        return Self.arrival(of: &trip!, state: state, fix: fix, time: time)
    }

    /// The arrival for `state`, the trip read in place: read through `trip!`, each value copied the whole trip first.
    private static func arrival(of trip: inout Trip, state: NavigatingState, fix: GNSSFix?, time: Date) -> TripStateRecord.Arrival {
        let engineRemaining = state.progress.durationRemaining
        let remaining = trip.arrival.observe(
            time: time, remaining: engineRemaining, speed: fix?.location.speed?.metersPerSecond, measured: fix != nil && !state.predicted)
        let pace = trip.arrival.pace
        let estimator = trip.arrival, passedBeforeRoute = trip.passedBeforeRoute
        // Whole seconds: a driver reads minutes, and the record stays short.
        func at(_ seconds: Double) -> String { trip.arrivalTexts.text(secondsSinceReference: (time.timeIntervalSinceReferenceDate + seconds).rounded()) }
        func tenths(_ seconds: Double) -> Double { (seconds * 10).rounded() / 10 }
        let waypoints = trip.legs.ahead(next: state.remainingWaypoints.startIndex, remaining: engineRemaining).map { stop, left in
            TripStateRecord.Arrival.Waypoint(
                index: passedBeforeRoute + stop.waypoint - 1, time: at(estimator.paced(left)), durationRemaining: tenths(estimator.paced(left)))
        }
        return TripStateRecord.Arrival(time: at(remaining), durationRemaining: tenths(remaining), pace: (pace * 100).rounded() / 100, waypoints: waypoints)
    }
}
