import FoundationEssentials
import Glibc

/// Turn-by-turn navigation along one route: pure and deterministic. It takes the previous trip state and a fix
/// and returns the next state; it performs no I/O, reads no clock (time comes from the fixes) and draws no
/// random numbers.
///
/// Each update, in this order:
/// 1. match the fix to the route in a window around the current progress (``RouteMatcher``);
/// 2. decide deviation on **this** fix, before anything advances;
/// 3. move the snapped progress forward (only on the route, only with a trustworthy fix);
/// 4. evaluate the step-advance condition (the arrival condition on the last step);
/// 5. advance waypoints;
/// 6. pick the banner and the voice prompt due now (none while off the route).
///
/// The cost of an update does not depend on the route's length: matching looks only at the window, and every
/// per-route quantity comes from the ``RouteIndex`` built once in `init`.
public struct NavigationController: Sendable {
    /// The route as navigated: prompt timing already applied.
    public let route: Route
    public let config: NavigationControllerConfig
    public let index: RouteIndex
    public var matcher = RouteMatcher()
    /// Fixes with a 68% accuracy radius worse than this (metres) do not move the snapped position.
    public var maximumAccuracyForProgress: Double = 50
    /// The vehicle is reported off the current step (but on the route) only beyond this distance from the step,
    /// metres, and beyond 2.5 × the fix's 68% accuracy (the radius of 99.9% of honest error): just past a corner,
    /// before the step advances, is not a deviation, and neither is a biased city fix.
    public var offStepDistance: Double = 20
    static let offStepAccuracyMultiplier = 2.5
    /// When a trip that starts away from its route is approaching it (``RouteApproach``).
    public var approachRules = RouteApproachRules()

    /// Index of the step whose end is the destination: the step before a final zero-length `arrive` step.
    let approachStepIndex: Int
    /// For each leg, the index in ``Route/waypoints`` of the stop that ends it.
    let legEndWaypointIndex: [Int]

    public init(route: Route, config: NavigationControllerConfig = NavigationControllerConfig()) throws(NavigationControllerError) {
        guard !route.steps.isEmpty else { throw .routeHasNoSteps }
        let timed = config.promptTiming.apply(to: route)
        self.route = timed
        self.config = config
        self.index = RouteIndex(route: timed)
        let last = timed.steps.count - 1
        approachStepIndex = last > 0 && timed.steps[last].distance <= 0 && timed.steps[last].maneuver.type == .arrive ? last - 1 : last
        var legEnds: [Int] = []
        var breaksSeen = 0
        for (i, waypoint) in timed.waypoints.enumerated() where waypoint.kind == .break {
            if breaksSeen > 0 { legEnds.append(i) }
            breaksSeen += 1
        }
        legEndWaypointIndex = legEnds
    }

    // MARK: - Starting

    /// The first state on this route, from the vehicle's fix: the fix is matched near the start of the route.
    /// `trip`: the totals of the trip so far when this route continues it (a reroute): one trip has one clock and
    /// one distance, whatever routes it drove.
    public func initialState(for location: UserLocation, continuing trip: TripSummary? = nil) -> TripState {
        startState(for: location, fromDistance: 0, continuing: trip)
    }

    /// A state that resumes a trip at `distanceAlong` metres (for example after a restart), matching the fix
    /// in a window around that progress; `trip` is what the trip had counted before (its start, its distance).
    public func resumedState(for location: UserLocation, fromDistance distanceAlong: Double, continuing trip: TripSummary) -> TripState {
        startState(for: location, fromDistance: max(0, distanceAlong), continuing: trip)
    }

    private func startState(for location: UserLocation, fromDistance start: Double, continuing trip: TripSummary?) -> TripState {
        let lookAhead = matcher.maximumLookAhead
        let segmentHint = index.segment(atDistance: start)
        let match = matcher.match(
            location, index: index, progress: start, segmentHint: segmentHint, lookAhead: lookAhead,
            currentStep: index.segmentStep.isEmpty ? 0 : index.segmentStep[segmentHint])
        let along = max(start, match.distanceAlong)
        var stepIndex = index.segmentStep.isEmpty ? 0 : index.segmentStep[index.segment(atDistance: along)]
        stepIndex = min(stepIndex, approachStepIndex)
        var summary = trip ?? TripSummary(distanceTravelled: 0, snappedDistanceTravelled: 0, startedAt: location.timestamp, endedAt: location.timestamp)
        summary.endedAt = max(summary.endedAt, location.timestamp)
        var state = NavigatingState(
            rawLocation: location, snappedLocation: location, stepIndex: stepIndex, remainingSteps: route.steps[stepIndex...],
            remainingWaypoints: route.waypoints[min(1, route.waypoints.count)...],
            progress: TripProgress(distanceToNextManeuver: 0, distanceRemaining: 0, durationRemaining: 0), deviation: .none,
            visualInstruction: nil, spokenInstruction: nil, annotation: nil, roadName: route.steps[stepIndex].roadName,
            summary: summary, distanceAlong: along, segment: match.segment,
            conditionState: StepAdvanceConditionState(condition(for: stepIndex)), deviationEvidence: DeviationEvidence(),
            spokenWatermark: -1, nextWaypointIndex: min(1, max(0, route.waypoints.count - 1)), progressAnchor: location.coordinate)
        state.nextWaypointIndex = waypointIndexAfterLegsBefore(stepIndex: stepIndex, current: state.nextWaypointIndex)
        state.remainingWaypoints = route.waypoints[state.nextWaypointIndex...]
        if start <= 0, let approach = beginApproach(location, match: match, stepIndex: stepIndex) {
            state.approach = approach
            return .navigating(holding(state, match: match))
        }
        return .navigating(refresh(state, match: match, isOffRoute: false))
    }

    // MARK: - Starting away from the route

    /// An approach when the trip's first fix lies away from the route: beyond ``RouteApproachRules/startDistance``
    /// and, unless the vehicle stands, 2.5 × its accuracy; and not driving along the route, nor straight at its start
    /// from behind it within three seconds (a reroute starts where the vehicle will be when the answer comes: it is
    /// met on the way). A standing vehicle needs no accuracy margin: holding the first prompt until it moves along
    /// the road costs nothing, announcing a road it cannot reach misguides (city error in a lot is 20 m and more).
    private func beginApproach(_ location: UserLocation, match: RouteMatch, stepIndex: Int) -> RouteApproach? {
        let distance = match.distanceFromRoute
        let stands = (location.speed?.metersPerSecond).map { $0 < standstillSpeed } ?? false
        let margin = stands ? 0 : Self.offStepAccuracyMultiplier * location.horizontalAccuracy
        guard distance > max(approachRules.startDistance, margin) else { return nil }
        if isDrivingAlong(location, match: match) { return nil }
        if match.distanceAlong < 1, let speed = location.speed?.metersPerSecond, speed >= 4, let course = location.course?.degrees,
            let bearing = forwardBearing(at: match), distance <= 3 * speed,
            Geodesy.angleBetween(course, bearing) <= approachRules.alongAngle,
            Geodesy.angleBetween(course, Geodesy.bearing(from: location.coordinate, to: match.coordinate)) <= approachRules.alongAngle
        {
            return nil
        }
        return RouteApproach(
            distance: distance, bearing: Geodesy.bearing(from: location.coordinate, to: match.coordinate), target: match.coordinate,
            roadName: route.steps[stepIndex].roadName, originSnapDistance: route.waypoints.first?.snapDistance, initialDistance: distance,
            lastDistance: distance, closest: distance)
    }

    /// True when the vehicle drives along the route near the match: at 4 m/s or more, its course within
    /// ``RouteApproachRules/alongAngle`` of the route's, within ``RouteApproachRules/alongDistance`` (or 2.5 × its accuracy).
    private func isDrivingAlong(_ location: UserLocation, match: RouteMatch) -> Bool {
        guard let speed = location.speed?.metersPerSecond, speed >= 4, let course = location.course?.degrees, let bearing = forwardBearing(at: match)
        else { return false }
        return Geodesy.angleBetween(course, bearing) <= approachRules.alongAngle
            && match.distanceFromRoute <= max(approachRules.alongDistance, Self.offStepAccuracyMultiplier * location.horizontalAccuracy)
    }

    /// The state while approaching: where the route is, no banner, no prompt, the raw position, no deviation.
    private func holding(_ state: NavigatingState, match: RouteMatch) -> NavigatingState {
        var held = refresh(state, match: match, isOffRoute: true)
        held.deviation = .approaching(distance: match.distanceFromRoute)
        return held
    }

    /// The next state while approaching the route: joined (normal guidance from the matched step, its prompts due
    /// now), heading elsewhere (off the route: a reroute starts the route where the vehicle is), or still on the way.
    private func approached(_ previous: NavigatingState, approach: RouteApproach, location: UserLocation, afterJump: Bool) -> NavigatingState {
        var next = previous
        var approach = approach
        next.predicted = false
        let travelled = Geodesy.distance(previous.rawLocation.coordinate, location.coordinate)
        let isStationary = isStationary(location, after: previous)
        next.stoppedBySpeed = location.speed.map { $0.metersPerSecond < standstillSpeed } ?? false
        // The route's first road, from its start (and a little beyond, where it may be joined at its next corner):
        // a later part of the route that passes near the lot is not where this trip starts.
        let match = matcher.match(
            location, index: index, progress: 0, segmentHint: 0,
            lookAhead: index.stepEnd[previous.stepIndex] + matcher.minimumLookAhead, currentStep: previous.stepIndex)
        if !isStationary {
            next.progressAnchor = location.coordinate
            if !afterJump {
                next.summary.distanceTravelled += travelled
                // Driven by Doppler speed where the receiver gives it: at a lot's walking pace, position noise
                // would add as much again as the car moved.
                let elapsed = max(0, location.timestamp.timeIntervalSince(previous.rawLocation.timestamp))
                approach.driven += location.speed.map { $0.metersPerSecond * elapsed } ?? travelled
            }
        }
        next.summary.endedAt = location.timestamp
        next.rawLocation = location
        let distance = match.distanceFromRoute
        approach.alongFixes = isDrivingAlong(location, match: match) ? approach.alongFixes + 1 : 0

        if distance <= max(approachRules.joinDistance, location.horizontalAccuracy) || approach.alongFixes >= approachRules.alongFixes {
            next.approach = nil
            next.deviationEvidence = DeviationEvidence()
            next.distanceAlong = max(previous.distanceAlong, match.distanceAlong)
            next.segment = match.segment
            let matchedStep = min(index.segmentStep.isEmpty ? 0 : index.segmentStep[match.segment], approachStepIndex)
            while next.stepIndex < matchedStep { next = advanced(next) }
            return refresh(next, match: match, isOffRoute: false)
        }

        // Away from the route: the distance, averaged over this fix and the one before (one fix's error halves),
        // is `awayGrowth` beyond the closest such average of the approach. Only moving fixes count: a parked car's
        // jitter is no direction.
        var drivingAway = false
        if !isStationary, location.horizontalAccuracy <= maximumAccuracyForProgress {
            let smoothed = (distance + approach.lastDistance) / 2
            approach.closest = min(approach.closest, smoothed)
            drivingAway = smoothed >= approach.closest + approachRules.awayGrowth
            approach.lastDistance = distance
        }
        let wandering = approach.driven >= approachRules.wanderDistance && distance > approach.initialDistance - approachRules.noCloser
        if drivingAway || wandering {
            next.approach = nil
            next.deviationEvidence = DeviationEvidence()
            if case .none = config.deviationTracking { return refresh(next, match: match, isOffRoute: false) }
            next.deviationEvidence.isOffRoute = true
            return refresh(next, match: match, isOffRoute: true)
        }

        approach.distance = distance
        approach.bearing = Geodesy.bearing(from: location.coordinate, to: match.coordinate)
        approach.target = match.coordinate
        approach.roadName = route.steps[index.segmentStep.isEmpty ? 0 : index.segmentStep[match.segment]].roadName
        next.approach = approach
        return holding(next, match: match)
    }

    // MARK: - Updating

    /// The next state after a fix. `afterJump`: the plausibility gate accepted `location` only after it and the
    /// fixes before it persisted far from the last accepted one (in place or in time): a new position, not a drive,
    /// so it adds nothing to the distance travelled.
    public func update(_ state: TripState, with location: UserLocation, afterJump: Bool = false) -> TripState {
        var next = state
        advance(&next, with: location, afterJump: afterJump)
        return next
    }

    /// ``update(_:with:afterJump:)`` made in place: the navigating state is taken out of `state`, changed there and
    /// put back. A fix's step made a new state from a copy of the one before (a retain of every reference the state
    /// holds, and a release of each when the one before was dropped), and the refresh another; taking it out still
    /// copies it once (the compiler does not move an enum's payload here), the rest is done in place.
    public func advance(_ state: inout TripState, with location: UserLocation, afterJump: Bool = false) {
        switch consume state {
        case .navigating(var next):
            if let approach = next.approach {
                state = .navigating(approached(next, approach: approach, location: location, afterJump: afterJump))
            } else if let arrived = step(&next, with: location, afterJump: afterJump) {
                state = arrived
            } else {
                state = .navigating(next)
            }
        case let other:
            state = other
        }
    }

    /// A fix's step on the route, made on `next` in place; the state to take instead when the step decides the
    /// arrival (``arrival(_:match:location:isOffRoute:)``), nil otherwise. What the step needs of the state before
    /// is read before `next` changes.
    private func step(_ next: inout NavigatingState, with location: UserLocation, afterJump: Bool) -> TripState? {
        let before = next.rawLocation
        let previousDistanceAlong = next.distanceAlong
        let previousStep = next.stepIndex
        next.predicted = false
        let elapsed = max(0, location.timestamp.timeIntervalSince(before.timestamp))
        let travelled = Geodesy.distance(before.coordinate, location.coordinate)
        let isStationary = isStationary(location, anchor: next.progressAnchor, stoppedBySpeed: next.stoppedBySpeed)
        next.stoppedBySpeed = location.speed.map { $0.metersPerSecond < standstillSpeed } ?? false

        // 1. Match in the window.
        // After a gap the vehicle may have slowed: the window covers the faster of the two speeds.
        let windowSpeed = max(location.speed?.metersPerSecond ?? matcher.assumedSpeed, before.speed?.metersPerSecond ?? 0)
        let lookAhead = next.deviation.isOffRoute ? matcher.maximumLookAhead : matcher.lookAhead(elapsed: elapsed, speed: windowSpeed)
        let match = matcher.match(
            location, index: index, progress: previousDistanceAlong, segmentHint: next.segment, lookAhead: lookAhead,
            currentStep: previousStep, expectedTravel: location.speed == nil ? nil : windowSpeed * elapsed)

        // 2. Deviation, on this fix, before any advance.
        let nearestManeuver = min(
            abs(previousDistanceAlong - index.stepStart[previousStep]), abs(index.stepEnd[previousStep] - previousDistanceAlong))
        let isOffRoute: Bool
        var isLeaving = false
        switch config.deviationTracking {
        case .none:
            isOffRoute = false
        case .staticThreshold(let threshold):
            next.deviationEvidence = threshold.update(
                next.deviationEvidence,
                DeviationInput(
                    location: location, distanceFromRoute: match.distanceFromRoute, distanceToNearestManeuver: nearestManeuver,
                    routeBearing: forwardBearing(at: match), travelled: travelled, isStationary: isStationary))
            isOffRoute = next.deviationEvidence.isOffRoute
            isLeaving = next.deviationEvidence.isLeaving
        case .custom(let detector):
            isOffRoute = detector.isOffRoute(
                location: location, distanceFromRoute: match.distanceFromRoute, route: route, currentStepIndex: previousStep,
                previous: next.deviation)
        }

        // 3. Progress: forward only, on the route, with a fix good enough to place the vehicle, and not while the
        // vehicle stands still (jitter along the road would creep it past a corner the car is waiting at) or may be
        // leaving the route (a missed exit must not carry progress along the ramp).
        if !isStationary {
            next.progressAnchor = location.coordinate
            if !isOffRoute, !isLeaving, location.horizontalAccuracy <= maximumAccuracyForProgress, match.distanceAlong > previousDistanceAlong {
                next.distanceAlong = match.distanceAlong
                next.segment = match.segment
            }
            if !afterJump { next.summary.distanceTravelled += travelled }
        }
        next.summary.snappedDistanceTravelled += next.distanceAlong - previousDistanceAlong
        next.summary.endedAt = location.timestamp
        next.rawLocation = location

        // 4. Step advance (none while standing still), or arrival on the last step (also when the vehicle has
        // stopped: progress is frozen, so only where it stopped counts).
        let matchedStep = index.segmentStep.isEmpty ? 0 : index.segmentStep[match.segment]
        if !isStationary || next.stepIndex >= approachStepIndex {
            let (advance, conditionState) = condition(for: next.stepIndex).evaluate(
                context(
                    stepIndex: next.stepIndex, distanceAlong: next.distanceAlong, location: location, match: match, matchedStep: matchedStep,
                    isOnRoute: !isOffRoute),
                state: next.conditionState)
            next.conditionState = conditionState
            if advance {
                if next.stepIndex >= approachStepIndex {
                    return arrival(next, match: match, location: location, isOffRoute: isOffRoute)
                }
                advanceStep(&next)
                // Catch-up: after a gap or with sparse fixes the vehicle may be past several maneuvers; every step
                // it is already past is advanced now, so the banner is right at once and passed prompts stay unsaid.
                while !isOffRoute, next.stepIndex < approachStepIndex, matchedStep > next.stepIndex,
                    index.stepEnd[next.stepIndex] <= next.distanceAlong
                {
                    advanceStep(&next)
                }
            }
        }
        refresh(&next, match: match, isOffRoute: isOffRoute, isLeaving: isLeaving)
        return nil
    }

    /// What the step-advance condition sees on step `stepIndex`, `distanceAlong` metres along the route, for this fix.
    private func context(
        stepIndex: Int, distanceAlong: Double, location: UserLocation, match: RouteMatch, matchedStep: Int, isOnRoute: Bool
    ) -> StepAdvanceContext {
        StepAdvanceContext(
            location: location, distanceToEndOfStep: index.stepEnd[stepIndex] - distanceAlong,
            distanceFromCurrentStep: match.distanceFromCurrentStep,
            distanceFromManeuver: Geodesy.distance(location.coordinate, index.coordinate(atDistance: index.stepEnd[stepIndex])),
            distanceFromRoute: match.distanceFromRoute, matchedNextStep: matchedStep == stepIndex + 1, isOnRoute: isOnRoute,
            isFinalStep: stepIndex >= approachStepIndex)
    }

    /// Arrival decided on the last step.
    private func arrival(_ state: NavigatingState, match: RouteMatch, location: UserLocation, isOffRoute: Bool) -> TripState {
        let prompts = route.steps[state.stepIndex].spokenInstructions
        guard !isOffRoute, state.spokenWatermark + 1 < prompts.count else {
            return .complete(completion(state, location: location))
        }
        // Arrival is decided, but the route still has a prompt for this last stretch (e.g. "In 40 feet, you have
        // arrived"): report it now and arrive on the next fix, so it is neither lost nor stalls the arrival when
        // the vehicle stops short of its trigger.
        var last = refresh(state, match: match, isOffRoute: isOffRoute)
        if last.spokenInstruction == nil {
            last.spokenWatermark += 1
            last.spokenInstruction = prompts[last.spokenWatermark]
        }
        return .navigating(last)
    }

    /// Below this ground speed (metres per second) the vehicle is standing still: 0.8 m/s is a slow walk, above
    /// the Doppler speed noise of a stopped receiver (0.1-0.3 m/s) and below any vehicle that is pulling away.
    public var standstillSpeed: Double = 0.8
    /// The smallest radius, metres, within which a stopped vehicle's fixes wander (even with a receiver claiming
    /// better accuracy).
    public var standstillRadius: Double = 3

    /// True when the vehicle stands still, so that this fix moves neither progress nor steps.
    ///
    /// With a reported speed (Doppler, which position noise does not touch): below ``standstillSpeed`` on this fix
    /// and the one before, and no farther from where the vehicle stopped than 3 × its accuracy plus
    /// ``standstillRadius`` (beyond that the position really changed, whatever the speed says). The first fix of a
    /// stop still places the vehicle once: the last moving fix may be a few metres short of where it stopped.
    /// Without a speed: the fix within its accuracy (at least ``standstillRadius``) of where the vehicle last moved.
    public func isStationary(_ location: UserLocation, after previous: NavigatingState) -> Bool {
        isStationary(location, anchor: previous.progressAnchor, stoppedBySpeed: previous.stoppedBySpeed)
    }

    /// ``isStationary(_:after:)`` from the two fields of the state before that it reads (a fix's step passes them,
    /// not the state it is changing in place, which would be copied for the call).
    private func isStationary(_ location: UserLocation, anchor: GeographicCoordinate?, stoppedBySpeed: Bool) -> Bool {
        guard let anchor else { return false }
        let displacement = Geodesy.distance(anchor, location.coordinate)
        if let speed = location.speed?.metersPerSecond {
            return speed < standstillSpeed && stoppedBySpeed && displacement <= 3 * location.horizontalAccuracy + standstillRadius
        }
        return displacement <= max(standstillRadius, location.horizontalAccuracy)
    }

    // MARK: - Prediction

    /// Dead reckoning through a GNSS outage: the trip as it will stand at `time` if the vehicle keeps driving
    /// along the route at `speed` metres per second from `state` (the last state made from a real fix).
    ///
    /// Progress moves along the route, steps whose maneuver is passed by `PredictionLimits.stepExit` advance, and
    /// prompts that fall due are reported; deviation is not decided (the state keeps the last real one), the trip
    /// never arrives on a prediction, and nothing is added to the distance travelled. The result is marked
    /// ``NavigatingState/predicted``; the next real fix is applied to `state`, not to the prediction, with a
    /// window that covers the predicted distance.
    public func predicted(from state: NavigatingState, at time: Date, speed: Double) -> NavigatingState {
        var next = state
        let elapsed = max(0, time.timeIntervalSince(state.rawLocation.timestamp))
        let end = index.stepEnd[approachStepIndex]
        let along = min(end, state.distanceAlong + max(0, speed) * elapsed)
        next.distanceAlong = max(state.distanceAlong, along)
        next.segment = index.segment(atDistance: next.distanceAlong)
        while next.stepIndex < approachStepIndex, index.stepEnd[next.stepIndex] + Self.predictionStepExit <= next.distanceAlong {
            next = advanced(next)
        }
        let coordinate = index.coordinate(atDistance: next.distanceAlong)
        var location = state.rawLocation
        location.coordinate = coordinate
        location.timestamp = time
        // The prediction's error grows with the distance driven blind: 10% of it, over the last real accuracy.
        location.horizontalAccuracy = state.rawLocation.horizontalAccuracy + 0.1 * (next.distanceAlong - state.distanceAlong)
        location.speed = Speed(metersPerSecond: speed)
        if index.segmentCount > 0 { location.course = CourseOverGround(degrees: index.bearing(ofSegment: next.segment)) }
        next.rawLocation = location
        next.predicted = true
        let match = RouteMatch(
            segment: next.segment, distanceAlong: next.distanceAlong, coordinate: coordinate, distanceFromRoute: 0, distanceFromCurrentStep: 0)
        var refreshed = refresh(next, match: match, isOffRoute: state.deviation.isOffRoute)
        refreshed.deviation = state.deviation
        return refreshed
    }

    /// Metres past a maneuver before a prediction moves on to the next step (a real fix uses the step-advance
    /// condition's exit distance; 5 m is the default's).
    static let predictionStepExit = 5.0

    /// Moves to the next step on request (the `manual` condition, or a driver's "next" button).
    public func advanceManually(_ state: TripState) -> TripState {
        guard case .navigating(let current) = state else { return state }
        if current.stepIndex >= approachStepIndex { return .complete(completion(current, location: current.rawLocation)) }
        var next = advanced(current)
        // Jump the snapped progress to the start of the new step so distances describe it.
        next.distanceAlong = max(next.distanceAlong, index.stepStart[next.stepIndex])
        next.segment = index.segment(atDistance: next.distanceAlong)
        let match = RouteMatch(
            segment: next.segment, distanceAlong: next.distanceAlong, coordinate: index.coordinate(atDistance: next.distanceAlong),
            distanceFromRoute: 0, distanceFromCurrentStep: 0)
        return .navigating(refresh(next, match: match, isOffRoute: next.deviation.isOffRoute))
    }

    // MARK: - Internals

    private func condition(for stepIndex: Int) -> StepAdvanceCondition {
        stepIndex >= approachStepIndex ? config.arrival : config.stepAdvance
    }

    /// The state on the step after the current one: condition state and prompts reset, waypoints advanced.
    private func advanced(_ state: NavigatingState) -> NavigatingState {
        var next = state
        advanceStep(&next)
        return next
    }

    /// ``advanced(_:)`` made in place.
    private func advanceStep(_ next: inout NavigatingState) {
        let completedStep = next.stepIndex
        next.stepIndex += 1
        next.conditionState = StepAdvanceConditionState(condition(for: next.stepIndex))
        next.spokenWatermark = -1
        if case .alongAdvancingStep(let range) = config.waypointAdvance, next.nextWaypointIndex < route.waypoints.count - 1 {
            let waypoint = route.waypoints[next.nextWaypointIndex].coordinate
            if route.steps[completedStep].geometry.contains(where: { Geodesy.distance($0, waypoint) <= range }) {
                next.nextWaypointIndex += 1
            }
        }
        next.nextWaypointIndex = waypointIndexAfterLegsBefore(stepIndex: next.stepIndex, current: next.nextWaypointIndex)
    }

    /// Stops of legs that end before `stepIndex` are reached; the destination is never passed.
    private func waypointIndexAfterLegsBefore(stepIndex: Int, current: Int) -> Int {
        let leg = route.steps[stepIndex].legIndex
        var next = current
        if leg > 0, leg - 1 < legEndWaypointIndex.count { next = max(next, legEndWaypointIndex[leg - 1] + 1) }
        return min(next, max(0, route.waypoints.count - 1))
    }

    /// Recomputes everything clients see from the memory fields. `isLeaving`: the fix is beyond the off-route
    /// threshold while the evidence is gathered (``RouteDeviation/leaving``).
    private func refresh(_ state: NavigatingState, match: RouteMatch, isOffRoute: Bool, isLeaving: Bool = false) -> NavigatingState {
        var next = state
        refresh(&next, match: match, isOffRoute: isOffRoute, isLeaving: isLeaving)
        return next
    }

    /// ``refresh(_:match:isOffRoute:isLeaving:)`` made in place.
    private func refresh(_ next: inout NavigatingState, match: RouteMatch, isOffRoute: Bool, isLeaving: Bool = false) {
        let step = route.steps[next.stepIndex]
        let stepEnd = index.stepEnd[next.stepIndex]
        let distanceToManeuver = max(0, stepEnd - next.distanceAlong)

        // Waypoints within range.
        if case .withinRange(let range) = config.waypointAdvance {
            while next.nextWaypointIndex < route.waypoints.count - 1,
                Geodesy.distance(next.rawLocation.coordinate, route.waypoints[next.nextWaypointIndex].coordinate) <= range
            {
                next.nextWaypointIndex += 1
            }
        }
        next.remainingWaypoints = route.waypoints[next.nextWaypointIndex...]
        next.remainingSteps = route.steps[next.stepIndex...]
        next.roadName = step.roadName

        // Deviation as clients see it.
        if isOffRoute {
            next.deviation = .offRoute(distance: match.distanceFromRoute)
        } else if isLeaving {
            next.deviation = .leaving(distance: match.distanceFromRoute)
        } else if index.segmentStep.isEmpty || index.segmentStep[match.segment] != next.stepIndex,
            match.distanceFromCurrentStep > max(offStepDistance, Self.offStepAccuracyMultiplier * next.rawLocation.horizontalAccuracy)
        {
            next.deviation = .offStep(distance: match.distanceFromCurrentStep)
        } else {
            next.deviation = .none
        }

        // Snapped location and progress. A point on the route farther from the fix than the off-route threshold
        // is not where the vehicle is: while leaving, as while off the route, clients get the fix.
        var snapped = next.rawLocation
        if !isOffRoute, !isLeaving {
            let segment = segment(containing: next.distanceAlong, hint: next.segment)
            snapped.coordinate = index.coordinate(onSegment: segment, atDistance: next.distanceAlong)
            if config.courseFiltering == .snapToRoute, index.segmentCount > 0 {
                snapped.course = CourseOverGround(degrees: index.bearing(ofSegment: segment), accuracy: nil)
            }
            let stepIndexOfSegment = index.segmentStep.isEmpty ? next.stepIndex : index.segmentStep[segment]
            let inStep = index.segmentIndexInStep.isEmpty ? 0 : index.segmentIndexInStep[segment]
            let annotations = route.steps[stepIndexOfSegment].annotations
            next.annotation = inStep < annotations.count ? annotations[inStep] : nil
        }
        next.snappedLocation = snapped
        let stepLength = stepEnd - index.stepStart[next.stepIndex]
        let stepFraction = stepLength > 0 ? min(1, distanceToManeuver / stepLength) : 0
        next.progress = TripProgress(
            distanceToNextManeuver: distanceToManeuver, distanceRemaining: max(0, index.totalDistance - next.distanceAlong),
            durationRemaining: stepFraction * step.duration + index.durationAfterStep[next.stepIndex])

        // Instructions: none while off the route.
        next.spokenInstruction = nil
        guard !isOffRoute else {
            next.visualInstruction = nil
            return
        }
        let banners = step.visualInstructions
        next.visualInstruction = banners.last { $0.triggerDistanceBeforeManeuver >= distanceToManeuver } ?? banners.first
        // While leaving, the banner stays and no new prompt is said: it may be for a road the vehicle is not on.
        // It stays due, and is said if the vehicle turns out to be on the route after all.
        guard !isLeaving else { return }
        var due: Int?
        let prompts = step.spokenInstructions
        if next.spokenWatermark + 1 < prompts.count {
            for j in (next.spokenWatermark + 1)..<prompts.count where prompts[j].triggerDistanceBeforeManeuver >= distanceToManeuver {
                due = j
            }
        }
        if let due {
            next.spokenInstruction = prompts[due]
            next.spokenWatermark = due
        }
    }

    /// The route's direction just ahead of a match, degrees: at a corner, the outgoing direction (a vehicle
    /// driving straight past a turn disagrees with it).
    private func forwardBearing(at match: RouteMatch) -> Double? {
        guard index.segmentCount > 0 else { return nil }
        var segment = match.segment
        while segment + 1 < index.segmentCount, index.cumulativeDistance[segment + 1] <= match.distanceAlong + 0.5 { segment += 1 }
        return index.bearing(ofSegment: segment)
    }

    /// The segment holding the point `distance` along the route: `hint` when it does (the usual case, O(1)),
    /// else found by binary search.
    private func segment(containing distance: Double, hint: Int) -> Int {
        if hint >= 0, hint < index.segmentCount, index.cumulativeDistance[hint] <= distance, distance <= index.cumulativeDistance[hint + 1] {
            return hint
        }
        return index.segment(atDistance: distance)
    }

    private func completion(_ state: NavigatingState, location: UserLocation) -> TripCompletion {
        var summary = state.summary
        summary.endedAt = location.timestamp
        let arrivalStep = route.steps[route.steps.count - 1]
        // The approach step's prompts announce the arrival (its maneuver is the destination); when its last one has
        // been said, saying the arrive step's prompt as well would announce the destination twice.
        let approachPrompts = route.steps[approachStepIndex].spokenInstructions
        let alreadyAnnounced = state.stepIndex == approachStepIndex && !approachPrompts.isEmpty && state.spokenWatermark >= approachPrompts.count - 1
        let arrivalPrompt = approachStepIndex < route.steps.count - 1 && !alreadyAnnounced ? arrivalStep.spokenInstructions.first : nil
        return TripCompletion(summary: summary, location: location, spokenInstruction: arrivalPrompt)
    }
}
