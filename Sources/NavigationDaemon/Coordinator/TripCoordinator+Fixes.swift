import FoundationEssentials
import Glibc
import LocationSources
import NavigationCore
import NavigationProtocol

extension TripCoordinator {
    /// A reading from the GNSS source. `now` is the wall clock (watchdog, journal timing); trip logic uses the
    /// fix's time. A fix the plausibility gate rejects is counted and moves nothing.
    public mutating func handle(_ reading: GNSSReading, now: Date) {
        guard let fix = reading.fix else {
            updateHealth(GNSSHealth.of(reading, degradedAccuracy: settings.degradedAccuracy))
            return
        }
        var jumped = false
        switch fixGate.check(fix.location) {
        case .rejected(let reason):
            let total = fixGate.rejections.total
            // The first rejection of each kind, then every power of ten: a stuck receiver does not flood the log.
            if total == 1 || [10, 100, 1000, 10_000].contains(total) || lastRejection != reason {
                log(.notice, "gnss: rejected the fix at \(ISO8601Timestamp.format(fix.location.timestamp)): \(reason.explanation) (\(total) rejected so far)")
            }
            lastRejection = reason
            return
        case .acceptedAfterJump(let distance):
            log(.warning, "gnss: the receiver jumped \(CheckedNumber.clampedWhole(distance, rounding: .towardZero)) m and stayed there for \(fixGate.confirmationsForJump) fixes; accepted as the new position")
            jumped = true
        case .accepted:
            break
        }
        lastRejection = nil
        updateHealth(GNSSHealth.of(reading, degradedAccuracy: settings.degradedAccuracy))
        lastFix = fix
        lastFixAt = now
        predicted = nil
        startCalculationsWaitingForFix(fix)
        // The trip is read in place, through `trip?.…` and `inout`, never bound, tested with `!= nil` or read
        // through `trip!`: each of those copied the whole trip, retaining and releasing every reference it holds.
        // Static: a method on `self` called from here copied the whole coordinator on every fix.
        if let resume = trip?.resumeFrom, let age = Self.staleJournalAge(resume, firstFix: fix, maxAge: settings.journalMaxAge) {
            // GNSS time says the journal is stale (or from another time line: a replay, a receiver reset).
            log(.notice, "not resuming trip \(trip!.routeId): by GNSS time its journal is \(CheckedNumber.clampedWhole(age, rounding: .towardZero)) s old (journal.max_age \(CheckedNumber.clampedWhole(settings.journalMaxAge, rounding: .towardZero)) s)")
            endTrip(reason: "journal too old")
        }
        guard Self.holdsTrip(&trip) else {
            publish(.tripState(freeDriveState(fix)))
            return
        }
        // What the step needs of the state before, read in place: the state itself is not kept (a copy of it, and
        // its release, on every fix).
        let before = Self.stepSummary(of: &trip!)
        if let resume = trip?.resumeFrom {
            let next = trip!.controller.resumedState(for: fix.location, fromDistance: resume.distanceAlong, continuing: resume.summary)
            trip!.resumeFrom = nil
            publishRoute(reason: .resumed, session: nil)
            apply(next, before: before, fix: fix, now: now)
        } else if before == nil {
            apply(trip!.controller.initialState(for: fix.location), before: before, fix: fix, now: now)
        } else {
            // A jump the gate accepted adds nothing to the distance travelled (found by the whole-daemon fuzz:
            // interleaved streams of receivers elsewhere added 587 000 km).
            Self.advance(&trip!, fix: fix, afterJump: jumped)
            publishStep(before: before, fix: fix, now: now)
        }
        refreshIfDue(fix: fix, now: now)
        lookForFasterRouteIfDue(fix: fix, now: now)
    }

    /// The controller's step for `fix`, made on the trip's state where it is: called through `trip!` from here,
    /// the controller was copied for the call (a retain and a release of everything it holds, on every fix), and a
    /// new state returned and stored cost a copy of the state and the release of the one before.
    private static func advance(_ trip: inout Trip, fix: GNSSFix, afterJump: Bool) {
        trip.controller.advance(&trip.state, with: fix.location, afterJump: afterJump)
    }

    /// The trip's state, read in place.
    private static func state(of trip: inout Trip) -> TripState {
        trip.state
    }

    /// The trip's navigating state, read in place.
    private static func navigatingState(of trip: inout Trip) -> NavigatingState? {
        trip.state.navigating
    }

    /// The summary of the trip's state, read in place.
    private static func stepSummary(of trip: inout Trip) -> StepSummary? {
        StepSummary(trip.state)
    }

    /// During an outage, progress predicted along the route at the last trustworthy speed, published as
    /// `trip_state` with `predicted: true` (and the prompts that fall due) on each tick from ``DeadReckoning/delay``
    /// seconds without a fix until `gnss.dead_reckoning` seconds.
    mutating func predictThroughOutage(now: Date) {
        guard settings.deadReckoning > 0, !sourceFinished, let current = trip, current.resumeFrom == nil, let real = current.state.navigating,
            real.isOnRoute, let fix = lastFix, let fixAt = lastFixAt
        else { return }
        let gap = now.timeIntervalSince(fixAt)
        guard gap >= DeadReckoning().delay else { return }
        let speed = DeadReckoning.trustworthySpeed(fix.location)
        guard speed > 0 else { return }
        let time = fix.location.timestamp.addingTimeInterval(gap)
        let state = current.controller.predicted(from: real, at: time, speed: speed)
        // Past gnss.dead_reckoning only in a tunnel the vehicle was in or entering at its last fix, and until
        // just after its end: there the route is the only road, and its maneuvers must still be announced.
        if gap > settings.deadReckoning {
            guard let tunnel = current.objects.tunnel(at: real.distanceAlong, orWithin: Self.tunnelEntryReach),
                state.distanceAlong <= tunnel.end + Self.tunnelExitReach, gap <= Self.tunnelOutageLimit
            else { return }
        }
        let before = predicted ?? real
        predicted = state
        publishNewInstructions(in: state)
        if before.stepIndex != state.stepIndex { log(.info, "gnss outage: predicted past the maneuver of step \(before.stepIndex)") }
        let maxSpeed = state.annotation?.maxSpeed
        var record = TripStateRecord(navigating: state, maxSpeed: maxSpeed, time: time)
        // A predicted state has no speed the receiver vouches for: no speed alert.
        record.speedAlert = observeSpeed(at: SpeedPlace(state, maxSpeed: maxSpeed), fix: nil, time: time)
        record.arrival = estimateArrival(state, fix: nil, time: time)
        record.roadAhead = current.objects.ahead(of: state.distanceAlong, within: settings.roadAheadHorizon, limit: settings.roadAheadLimit)
        publish(.tripState(record))
    }


    /// Metres ahead of the last fix within which a tunnel counts as entered (the receiver goes blind at its portal).
    static let tunnelEntryReach = 100.0
    /// Metres past a tunnel's end that prediction still goes on (the receiver needs a few seconds to fix again).
    static let tunnelExitReach = 300.0
    /// Seconds beyond which nothing is predicted, tunnel or not (the longest road tunnels take about 20 minutes).
    static let tunnelOutageLimit = 1800.0

    /// Seconds a resumed journal's last fix may lie after the first fix (receivers disagree by a little).
    static let journalClockTolerance = 300.0

    /// For a journal from an earlier boot: its age by GNSS time (seconds) when that makes it too old to resume.
    /// `maxAge`: `journal.max_age`, seconds.
    static func staleJournalAge(_ resume: Resume, firstFix fix: GNSSFix, maxAge: Double) -> Double? {
        guard resume.confirmAgeOnFirstFix, let lastFixTime = resume.lastFixTime else { return nil }
        let age = fix.location.timestamp.timeIntervalSince(lastFixTime)
        return age > maxAge || age < -journalClockTolerance ? age : nil
    }

    /// A status from the GNSS source.
    public mutating func handle(_ status: GNSSSourceStatus) {
        log(status.isProblem ? .warning : .info, "gnss: \(status)")
        // A replay that ended is not an outage: nothing is predicted after its last fix.
        if case .finished = status { sourceFinished = true }
        if let health = GNSSHealth.of(status) { updateHealth(health) }
    }

    private mutating func updateHealth(_ health: GNSSHealth) {
        guard health.status != gnssHealth.status else {
            gnssHealth.detail = health.detail
            return
        }
        let before = gnssHealth.status
        gnssHealth = health
        publish(.gnss(GNSSEvent(status: GNSSEvent.Status(rawValue: health.status.rawValue) ?? .lost, detail: health.detail)))
        if health.status == .lost { announce(.gnssLost) } else if before == .lost { announce(.gnssBack) }
    }

    /// Publishes what changed between the state before and `next`, and stores `next`. `before`: what the step needs
    /// of the state before (nil when it was not navigating).
    mutating func apply(_ next: TripState, before: StepSummary?, fix: GNSSFix, now: Date) {
        guard Self.holdsTrip(&trip) else { return }
        trip!.state = next
        publishStep(before: before, fix: fix, now: now)
    }

    /// Publishes what changed between the state before and the trip's state as it now stands (``apply(_:before:fix:now:)``
    /// without storing a state: a fix's step made in place).
    private mutating func publishStep(before: StepSummary?, fix: GNSSFix, now: Date) {
        guard Self.holdsTrip(&trip) else { return }
        // The navigating state, copied out of the trip: the rest of the step publishes (changes `self`) while it reads it.
        guard let state = Self.navigatingState(of: &trip!) else {
            if case .complete(let completion) = Self.state(of: &trip!) { arrive(completion, fix: fix) }
            return
        }
        handleDeviation(state, wasOff: before?.offRoute ?? false, fix: fix, now: now)
        if let before { publishWaypointsReached(from: before.nextWaypoint, to: state.remainingWaypoints.startIndex) }
        publishNewInstructions(in: state)
        let maxSpeed = state.annotation?.maxSpeed
        var record = TripStateRecord(navigating: state, maxSpeed: maxSpeed, time: fix.location.timestamp)
        record.speedAlert = observeSpeed(at: SpeedPlace(state, maxSpeed: maxSpeed), fix: fix, time: fix.location.timestamp)
        record.arrival = estimateArrival(state, fix: fix, time: fix.location.timestamp)
        // Read here, not through a method on `self` (a call to one from this step copied the whole coordinator),
        // and through `trip?`: read through `trip!`, the whole trip was copied first.
        record.roadAhead = trip?.objects.ahead(of: state.distanceAlong, within: settings.roadAheadHorizon, limit: settings.roadAheadLimit)
        publish(.tripState(record))
        let changed = before == nil || before!.stepIndex != state.stepIndex || before!.waypointsLeft != state.remainingWaypoints.count
        let lastSave = trip?.lastJournalSave ?? nil
        let due = lastSave.map { now.timeIntervalSince($0) >= settings.journalInterval } ?? true
        if changed || due { saveJournal(now: now) }
    }

    /// Publishes the banner and prompt of `state` that the ledger has not sent yet (each once per route).
    private mutating func publishNewInstructions(in state: NavigatingState) {
        for instruction in trip!.ledger.newInstructions(in: state) { publish(.instruction(instruction)) }
    }

    /// What a fix's step needs of the navigating state before it, read where that state is (bound out of its
    /// ``TripState``, the whole state was copied on every fix); nil when the state before was not navigating.
    struct StepSummary: Equatable {
        var offRoute: Bool
        var stepIndex: Int
        /// The index in the route's waypoints of the next one to reach.
        var nextWaypoint: Int
        var waypointsLeft: Int

        init?(_ state: TripState) {
            guard case .navigating(let s) = state else { return nil }
            offRoute = s.deviation.isOffRoute
            stepIndex = s.stepIndex
            nextWaypoint = s.remainingWaypoints.startIndex
            waypointsLeft = s.remainingWaypoints.count
        }
    }

    /// Publishes the waypoints passed between the state before (whose next waypoint was `from`, an index in the
    /// route's waypoints) and this one (`to`).
    private mutating func publishWaypointsReached(from: Int, to: Int) {
        guard from < to, Self.holdsTrip(&trip) else { return }
        for index in from..<to {
            let waypoint = trip!.controller.route.waypoints[index]
            let requestedIndex = trip!.passedBeforeRoute + index - 1
            publish(.waypointReached(WaypointReachedEvent(index: requestedIndex, coordinate: waypoint.coordinate, kind: waypoint.kind)))
            if waypoint.kind == .break { announce(.waypointReached, ["index": String(requestedIndex + 1)]) }
        }
    }

    private mutating func arrive(_ completion: TripCompletion, fix: GNSSFix) {
        guard let current = trip else { return }
        let destination = current.controller.route.waypoints.last?.coordinate
        let arrived = ArrivedEvent(
            distanceTravelled: (completion.summary.distanceTravelled * 100).rounded() / 100,
            duration: completion.summary.endedAt.timeIntervalSince(completion.summary.startedAt),
            startedAt: ISO8601Timestamp.format(completion.summary.startedAt), arrivedAt: ISO8601Timestamp.format(completion.summary.endedAt),
            reroutes: current.reroutes, destination: destination)
        if let spoken = completion.spokenInstruction, !trip!.ledger.hasSentSpoken(spoken.utteranceId) {
            publish(.instruction(.spoken(spoken, stepIndex: current.controller.route.steps.count - 1)))
        }
        publish(.arrived(arrived))
        // The fix's events come before its trip_state: the route's limit ends here.
        endRouteSpeedAlert()
        publish(.tripState(TripStateRecord(.complete(completion), time: fix.location.timestamp)))
        log(.notice, "arrived: trip \(current.routeId), \(Int(completion.summary.distanceTravelled)) m driven, \(current.reroutes) reroute(s)")
        endTrip(reason: "arrived")
    }

    /// Ends the trip: calculations for it are cancelled, the journal is deleted, and a speed alert judged on the
    /// route's limit clears (without a trip navd knows no limit until free drive matches the road).
    mutating func endTrip(reason: String) {
        withdrawOffer(because: "the trip \(reason)")
        let voiceBefore = voice
        trip = nil
        publishVoice(ifChangedFrom: voiceBefore)
        endRouteSpeedAlert()
        generation += 1
        gate.reset()
        lastRerouteDecision = nil
        for calculation in calculations.values.sorted(by: { $0.session < $1.session }) where calculation.purpose == .reroute || calculation.purpose == .refresh || calculation.purpose == .fasterRoute || calculation.purpose.editsStops {
            cancelSession(calculation.session, reason: "trip \(reason)")
        }
        effects.append(.deleteJournal)
        effects.append(.activeRouteChanged(nil))
    }

    /// Clears a speed alert judged on the route's limit, telling clients when one was on.
    private mutating func endRouteSpeedAlert() {
        if speedAlerts.limitEnded() { publish(.speedAlert(speedAlerts.alert)) }
    }

    /// The journal record for the trip as it stands (saved on shutdown), or nil without a navigating trip.
    public func checkpoint(now: Date) -> TripJournalRecord? {
        guard let current = trip else { return nil }
        if let resume = current.resumeFrom {
            // Not re-snapped yet since the last start: keep what the journal said.
            return TripJournalRecord(
                routeId: current.routeId, route: current.controller.route, options: current.options.json, distanceAlong: resume.distanceAlong,
                stepIndex: 0, startedAt: resume.summary.startedAt, savedAt: now, lastFixTime: resume.lastFixTime,
                distanceTravelled: resume.summary.distanceTravelled, reroutes: current.reroutes, waypoints: current.requested,
                passedWaypoints: current.passedBeforeRoute)
        }
        guard let state = current.state.navigating else { return nil }
        return TripJournalRecord(
            routeId: current.routeId, route: current.controller.route, options: current.options.json,
            distanceAlong: state.distanceAlong, stepIndex: state.stepIndex, startedAt: state.summary.startedAt, savedAt: now,
            lastFixTime: lastFix?.location.timestamp, distanceTravelled: state.summary.distanceTravelled, reroutes: current.reroutes,
            waypoints: current.requested, passedWaypoints: current.passedBeforeRoute)
    }

    mutating func saveJournal(now: Date) {
        guard trip?.state.isNavigating == true, let record = checkpoint(now: now) else { return }
        trip!.lastJournalSave = now
        effects.append(.saveJournal(record))
    }
}

extension GNSSSourceStatus {
    var isProblem: Bool {
        switch self {
        case .disconnected, .receiverLost, .failed: true
        default: false
        }
    }
}

extension TripStateRecord {
    /// The idle record for a fix: where the vehicle is, with no trip.
    static func idle(at fix: GNSSFix) -> TripStateRecord {
        var record = TripStateRecord(.idle, time: fix.location.timestamp)
        record.rawLocation = Point(fix.location)
        return record
    }
}
