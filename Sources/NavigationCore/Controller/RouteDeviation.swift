/// Where the vehicle is relative to the route, as reported in every navigating state.
public enum RouteDeviation: Hashable, Sendable {
    /// On the current step.
    case none
    /// Off the current step but on the route: the vehicle matches a later step and is more than
    /// ``NavigationController/offStepDistance`` from the current one (the step has not advanced, e.g. under the
    /// `manual` condition). `distance`: metres from the current step's geometry.
    case offStep(distance: Double)
    /// Off the route. `distance`: metres from the route.
    case offRoute(distance: Double)

    public var isOffRoute: Bool {
        if case .offRoute = self { return true }
        return false
    }
}

/// How deviation from the route is decided.
public enum RouteDeviationTracking: Sendable {
    /// Never report off-route.
    case none
    /// Distance thresholds with hysteresis and evidence (see ``StaticThresholdDeviation``).
    case staticThreshold(StaticThresholdDeviation)
    /// Application code decides.
    case custom(any RouteDeviationDetector)
}

/// Application-defined deviation detection. Called once per fix, before step advance; it may keep state
/// in the value it returns.
public protocol RouteDeviationDetector: Sendable {
    /// Decides whether the vehicle is off the route for this fix.
    /// - Parameters:
    ///   - distanceFromRoute: metres from the fix to the route (within the matching window).
    ///   - previous: the deviation reported for the previous fix.
    func isOffRoute(location: UserLocation, distanceFromRoute: Double, route: Route, currentStepIndex: Int, previous: RouteDeviation)
        -> Bool
}

/// Off-route detection that does not flap on GNSS jitter, yet catches a wrong turn within about 30 m:
///
/// - **Enter thresholds** (metres from the route): `enterDistance` in general; the tighter
///   `maneuverEnterDistance` within `maneuverZone` of a maneuver (where wrong turns happen) and whenever the
///   vehicle's course disagrees with the route's direction by at least `headingMismatch` degrees at
///   `minimumSpeedForHeading` or more (it is driving somewhere else, not drifting in GNSS noise).
/// - **Exit threshold**: once off the route, the vehicle is back on it only within `exitDistance`, which lies
///   below every enter threshold, so a position near a threshold cannot flap.
/// - **Evidence**: beyond the enter threshold, off-route is reported after `requiredConsecutiveFixes` fixes in a
///   row, or at once when the course disagrees with the route and the distance from the route has grown on at
///   least two fixes in a row by `minimumDistanceMovingAway` metres in all (the vehicle is driving away; GNSS
///   jitter moves the position but not the course, so it never takes this path).
/// - **Accuracy gate**: a fix whose 68% accuracy radius is worse than `minimumHorizontalAccuracy` changes
///   nothing: it neither raises nor clears a deviation, and it is not evidence.
///
/// Defaults: enter 50 m (MapLibre's and Mapbox's off-route radius); 20 m near maneuvers (Mapbox uses 25 m near
/// intersections) and on a heading mismatch of 45° at 4 m/s or more; maneuver zone 40 m; exit 15 m; 3 fixes;
/// 15 m moving away; accuracy 25 m (a 95% radius of about 40 m: worse fixes are not trusted to place the vehicle
/// on one street rather than the next).
public struct StaticThresholdDeviation: Hashable, Sendable {
    public var minimumHorizontalAccuracy: Double
    public var enterDistance: Double
    public var maneuverEnterDistance: Double
    public var maneuverZone: Double
    public var headingMismatch: Double
    public var minimumSpeedForHeading: Double
    public var exitDistance: Double
    public var requiredConsecutiveFixes: Int
    public var minimumDistanceMovingAway: Double

    public init(
        minimumHorizontalAccuracy: Double = 25, enterDistance: Double = 50, maneuverEnterDistance: Double = 20,
        maneuverZone: Double = 40, headingMismatch: Double = 45, minimumSpeedForHeading: Double = 4, exitDistance: Double = 15,
        requiredConsecutiveFixes: Int = 3, minimumDistanceMovingAway: Double = 15
    ) {
        self.minimumHorizontalAccuracy = minimumHorizontalAccuracy
        self.enterDistance = enterDistance
        self.maneuverEnterDistance = maneuverEnterDistance
        self.maneuverZone = maneuverZone
        self.headingMismatch = headingMismatch
        self.minimumSpeedForHeading = minimumSpeedForHeading
        self.exitDistance = exitDistance
        self.requiredConsecutiveFixes = requiredConsecutiveFixes
        self.minimumDistanceMovingAway = minimumDistanceMovingAway
    }
}

/// Evidence kept between fixes by ``StaticThresholdDeviation``.
public struct DeviationEvidence: Hashable, Sendable {
    /// Consecutive accurate fixes beyond the enter threshold.
    public var consecutiveFixes: Int = 0
    /// Distance from the route where the current run of growing distances began, metres.
    public var growthStart: Double?
    /// Distance from the route at the previous accurate fix, metres.
    public var lastDistance: Double?
    /// Fixes in the current run of growing distances.
    public var growingFixes: Int = 0
    public var isOffRoute: Bool = false

    public init() {}
}

extension StaticThresholdDeviation {
    /// Updates the evidence with one fix and says whether the vehicle is off the route.
    /// - Parameters:
    ///   - distanceFromRoute: metres from the fix to the route.
    ///   - distanceToNearestManeuver: metres along the route to the closest maneuver (behind or ahead).
    ///   - routeBearing: direction of the route where the fix matches, degrees.
    public func update(
        _ evidence: DeviationEvidence, location: UserLocation, distanceFromRoute: Double, distanceToNearestManeuver: Double,
        routeBearing: Double?
    ) -> DeviationEvidence {
        guard location.horizontalAccuracy <= minimumHorizontalAccuracy else { return evidence }
        var next = evidence
        next.lastDistance = distanceFromRoute
        if let last = evidence.lastDistance, distanceFromRoute > last {
            next.growthStart = evidence.growthStart ?? last
            next.growingFixes += 1
        } else {
            next.growthStart = distanceFromRoute
            next.growingFixes = 0
        }
        if evidence.isOffRoute {
            if distanceFromRoute <= exitDistance {
                next.isOffRoute = false
                next.consecutiveFixes = 0
            }
            return next
        }
        var threshold = enterDistance
        if distanceToNearestManeuver <= maneuverZone { threshold = min(threshold, maneuverEnterDistance) }
        var headingDisagrees = false
        if let course = location.course?.degrees, let routeBearing, (location.speed?.metersPerSecond ?? 0) >= minimumSpeedForHeading,
            Geodesy.angleBetween(course, routeBearing) >= headingMismatch
        {
            headingDisagrees = true
            threshold = min(threshold, maneuverEnterDistance)
        }
        guard distanceFromRoute > threshold else {
            next.consecutiveFixes = 0
            return next
        }
        next.consecutiveFixes += 1
        let growth = distanceFromRoute - (next.growthStart ?? distanceFromRoute)
        let drivingAway = headingDisagrees && next.growingFixes >= 2 && growth >= minimumDistanceMovingAway
        if next.consecutiveFixes >= requiredConsecutiveFixes || drivingAway { next.isOffRoute = true }
        return next
    }
}
