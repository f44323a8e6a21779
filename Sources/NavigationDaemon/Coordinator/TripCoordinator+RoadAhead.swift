import FoundationEssentials
import LocationSources
import NavigationCore
import NavigationProtocol
import RoadAhead
import RouteAdapters

extension TripCoordinator {
    /// Feeds the speed alert with one state and publishes a `speed_alert` event when the alert changed. Returns
    /// what `trip_state.speedAlert` carries: the alert where a limit is known or an alert is on, else nil.
    ///
    /// - `fix`: the real fix the state was made from; nil for a state predicted through an outage, which has no
    ///   speed the receiver vouches for (no alert then); so has a fix the receiver estimated itself
    ///   (``GNSSQuality/estimated``, the receiver's own dead reckoning).
    /// - `place`: where a navigating state is; nil without a trip, where the limit is free drive's (`freeDriveLimit`).
    /// The limit is the one in force at the snapped position while the vehicle is on the route; off it, leaving it
    /// or approaching it, the route's limit is not the road's.
    mutating func observeSpeed(at place: SpeedPlace?, fix: GNSSFix?, time: Date, freeDriveLimit: (value: Double, unit: SpeedUnit)? = nil) -> SpeedAlert? {
        let speed = place?.predicted == true || fix?.quality.estimated == true ? nil : fix?.location.speed?.metersPerSecond
        var limit = place == nil ? freeDriveLimit : nil
        var ahead: (value: Double, unit: SpeedUnit, distance: Double)?
        if let place, let routeLimit = place.limit, Self.holdsTrip(&trip) {
            let (value, unit) = routeLimit
            limit = routeLimit
            if let speed {
                let rules = speedAlerts.rules
                let inForce = value * unit.metersPerSecond
                // Through `trip?`: read through `trip!`, the whole trip was copied first.
                let run = trip?.limits.firstLimitAhead(of: place.distanceAlong, within: rules.warningDistance(speed: speed)) { run in
                    run.metersPerSecond < inForce && speed / run.unit.metersPerSecond > rules.threshold(.minor, limit: run.value)
                }
                if let run { ahead = (run.value, run.unit, max(0, run.start - place.distanceAlong)) }
            }
        }
        let before = speedAlerts.alert
        if speedAlerts.update(SpeedObservation(time: time, speed: speed, limit: limit, ahead: ahead)) {
            publish(.speedAlert(speedAlerts.alert))
            announceSpeedAlert(speedAlerts.alert, before: before)
        }
        let alert = speedAlerts.alert
        return alert.limit != nil || alert.level != .none || alert.lowerLimitAhead != nil ? alert : nil
    }
}

/// What the speed alert needs of a navigating state, read where the state is (passed as an optional, the whole
/// state was copied on every fix): how far along the route it is, whether it was predicted, and the route's limit
/// in force there while the vehicle is on the route (nil off it, leaving it or approaching it).
struct SpeedPlace {
    /// Metres along the route.
    var distanceAlong: Double
    var predicted: Bool
    var limit: (value: Double, unit: SpeedUnit)?

    /// `maxSpeed`: the limit of the state's segment.
    init(_ state: NavigatingState, maxSpeed: MaxSpeed?) {
        distanceAlong = state.distanceAlong
        predicted = state.predicted
        if state.isOnRoute, case .limit(let value, let unit)? = maxSpeed { limit = (value, unit) }
    }
}

extension TripCoordinator {
    /// The idle `trip_state` for a fix without a trip: the raw position, and what free drive knows of the road
    /// (name, limit, speed alert, the stretches the vehicle is in) from a match no older than `free_drive.max_age`.
    /// Asks for the next match when one is due; a match in flight or a failed one never delays the fix.
    mutating func freeDriveState(_ fix: GNSSFix) -> TripStateRecord {
        var record = TripStateRecord.idle(at: fix)
        let time = fix.location.timestamp
        if let trace = freeDrive.observe(fix.location) { requestFreeDriveMatch(trace) }
        let match = freeDrive.current(at: time)
        if freeDrive.rules.enabled {
            let status = freeDrive.status(at: time)
            record.freeDrive = TripStateRecord.FreeDrive(status: status.rawValue, detail: status == .unavailable ? freeDrive.failure : nil)
        }
        if let match {
            record.roadName = match.roadName
            record.speedLimit = match.limit.map { TripStateRecord.SpeedLimit(value: $0.value, unit: $0.unit.rawValue) }
            record.roadAhead = match.roadAhead
        }
        record.speedAlert = observeSpeed(at: nil, fix: fix, time: time, freeDriveLimit: match?.limit)
        return record
    }

    /// The first free-drive request's session number.
    static let freeDriveSessionBase = 1_000_000_000

    /// Most points sent in one free-drive match: a stock OSRM `/match` takes 100, and a window of a few hundred
    /// metres needs far fewer to pin the road.
    static let freeDriveTracePoints = 50

    private mutating func requestFreeDriveMatch(_ fixes: [UserLocation]) {
        let step = max(1, (fixes.count + Self.freeDriveTracePoints - 1) / Self.freeDriveTracePoints)
        // Every `step`-th fix counted back from the newest (which is where the vehicle is), and the oldest.
        var picked = Array(stride(from: fixes.count - 1, through: 0, by: -step).map { fixes[$0] }.reversed())
        if picked.first?.timestamp != fixes.first?.timestamp { picked.insert(fixes[0], at: 0) }
        let trace = picked.map {
            TracePoint(coordinate: $0.coordinate, timestamp: $0.timestamp, radius: max(5, 2.5 * $0.horizontalAccuracy))
        }
        // Its own numbers, far above any calculation session's: the sessions clients see keep their numbering, and
        // a recording made without free drive replays with its sessions where they were.
        let session = Self.freeDriveSessionBase + nextFreeDriveRequest
        nextFreeDriveRequest += 1
        freeDriveSession = session
        effects.append(.startCalculation(session: session, request: .match(trace)))
    }

    /// The engine's answer to the free-drive match.
    mutating func freeDriveMatched(_ outcome: RouteCalculationRunner.Outcome) {
        freeDriveSession = nil
        switch outcome.result {
        case .success(let routes):
            freeDrive.matched(routes.first, failure: nil)
        case .failure(let error):
            if freeDrive.failure == nil { log(.notice, "free drive: matching failed: \(error)") }
            freeDrive.matched(nil, failure: "\(error)")
        }
    }

    /// A trip begins: the match in flight is not needed any more.
    mutating func abandonFreeDrive() {
        if let session = freeDriveSession { effects.append(.cancelCalculation(session: session)) }
        freeDriveSession = nil
        freeDrive.abandon()
    }
}

extension TripCoordinator {
    /// Says a speed alert when its level rises, and a lower limit when its warning begins.
    mutating func announceSpeedAlert(_ alert: SpeedAlert, before: SpeedAlert) {
        if alert.level > before.level, let limit = alert.limit {
            let text = Self.said(limit: limit, unit: alert.unit)
            announce(alert.level == .major ? .speedFarOver : .speedOver, ["limit": text], priority: .alert)
        }
        if let lower = alert.lowerLimitAhead, before.lowerLimitAhead == nil {
            announce(.lowerLimitAhead, ["limit": Self.said(limit: lower.limit, unit: lower.unit), "distance": said(distance: lower.distance)], priority: .alert)
        }
    }
}
