import FoundationEssentials
import Glibc

/// Where the trip stands after a fix.
public enum TripState: Sendable {
    /// Not navigating.
    case idle
    case navigating(NavigatingState)
    /// Arrived at the destination.
    case complete(TripCompletion)

    public var navigating: NavigatingState? {
        if case .navigating(let state) = self { return state }
        return nil
    }

    /// True while navigating: asked without taking the state out (``navigating`` returns a copy of it).
    public var isNavigating: Bool {
        if case .navigating = self { return true }
        return false
    }

    /// For a navigating state, whether it places the vehicle on its route from a real fix (not a prediction):
    /// what a refresh of the route ahead waits for, read without a copy of the state; nil when not navigating.
    public var isOnRouteFromRealFix: Bool? {
        if case .navigating(let state) = self { return state.isOnRoute && !state.predicted }
        return nil
    }

    /// While navigating, the distance left (metres) and whether the vehicle is off the route: read in place,
    /// for a status line written on every fix.
    public var distanceRemainingAndOffRoute: (distance: Double, offRoute: Bool)? {
        if case .navigating(let state) = self { return (state.progress.distanceRemaining, state.deviation.isOffRoute) }
        return nil
    }
}

/// Distances and time left, from the snapped position.
public struct TripProgress: Hashable, Sendable, Codable {
    /// Metres along the route to the maneuver at the end of the current step.
    public var distanceToNextManeuver: Double
    /// Metres along the route to the destination.
    public var distanceRemaining: Double
    /// Expected seconds to the destination.
    public var durationRemaining: Double
}

/// Totals of a trip, from fix timestamps (no clock is read).
public struct TripSummary: Hashable, Sendable {
    /// Metres between consecutive raw fixes, summed.
    public var distanceTravelled: Double
    /// Metres of route covered by the snapped position.
    public var snappedDistanceTravelled: Double
    /// Timestamp of the first fix of the trip.
    public var startedAt: Date
    /// Timestamp of the latest fix (of the arrival, once complete).
    public var endedAt: Date

    public init(distanceTravelled: Double, snappedDistanceTravelled: Double, startedAt: Date, endedAt: Date) {
        self.distanceTravelled = distanceTravelled
        self.snappedDistanceTravelled = snappedDistanceTravelled
        self.startedAt = startedAt
        self.endedAt = endedAt
    }
}

/// The state of a trip in progress. Public fields are what clients show; the rest is the controller's memory
/// between fixes.
public struct NavigatingState: Sendable {
    /// The fix as received.
    public var rawLocation: UserLocation
    /// The fix moved onto the route (the raw fix while off the route), with the course chosen by
    /// ``CourseFiltering``.
    public var snappedLocation: UserLocation
    /// Index of the current step in ``Route/steps``.
    public var stepIndex: Int
    /// The current step and every step after it.
    public var remainingSteps: ArraySlice<RouteStep>
    /// Stops and shaping points not reached yet, the destination last (never dropped before arrival).
    public var remainingWaypoints: ArraySlice<Waypoint>
    public var progress: TripProgress
    public var deviation: RouteDeviation
    /// The banner to show now; nil while off the route.
    public var visualInstruction: VisualInstruction?
    /// A voice prompt that became due with this fix. Each prompt is reported once per route; none while off the
    /// route; a prompt that became due while another was reported on the same fix is stale and not reported.
    public var spokenInstruction: SpokenInstruction?
    /// What the route says about the road at the snapped position (speed limit, congestion), when known.
    public var annotation: SegmentAnnotation?
    /// Name of the road of the current step.
    public var roadName: String?
    public var summary: TripSummary
    /// True when this state was predicted along the route during a GNSS outage rather than made from a fix.
    public var predicted = false
    /// Set while the trip starts away from its route and the vehicle has not joined it yet: where the route is.
    /// Banners and prompts are held back meanwhile, and there is no deviation (``RouteDeviation/approaching``).
    public var approach: RouteApproach?

    /// True when progress may be predicted along the route from this state through an outage: the vehicle is on
    /// the route (not off it, not still approaching it).
    public var isOnRoute: Bool {
        switch deviation {
        case .none, .offStep: true
        case .offRoute, .leaving, .approaching: false
        }
    }

    // Memory between fixes.
    /// Metres along the route of the snapped position; never decreases.
    public internal(set) var distanceAlong: Double
    /// Global segment of the snapped position (start of the next matching window).
    var segment: Int
    var conditionState: StepAdvanceConditionState
    var deviationEvidence: DeviationEvidence
    /// Index of the last spoken prompt of the current step already reported (-1: none).
    var spokenWatermark: Int
    /// Index in ``Route/waypoints`` of the next waypoint to reach.
    var nextWaypointIndex: Int
    /// Where the vehicle last moved: a fix within its accuracy of here, at walking speed or below, is standing still.
    var progressAnchor: GeographicCoordinate?
    /// True when the previous fix reported a speed below the standstill speed.
    var stoppedBySpeed = false
}

/// How a trip ended.
public struct TripCompletion: Sendable {
    public var summary: TripSummary
    /// The fix on which arrival was decided.
    public var location: UserLocation
    /// The route's arrival prompt ("You have arrived..."), reported once, with this state.
    public var spokenInstruction: SpokenInstruction?
}

/// Why a controller cannot be created.
public enum NavigationControllerError: Error, Hashable, Sendable, CustomStringConvertible {
    case routeHasNoSteps

    public var description: String {
        switch self {
        case .routeHasNoSteps: "the route has no steps to navigate (ask the routing engine for steps)"
        }
    }
}
