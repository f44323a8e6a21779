/// When an intermediate stop counts as reached.
public enum WaypointAdvanceMode: Hashable, Sendable {
    /// When the vehicle is within this many metres of the next stop.
    case withinRange(Double)
    /// When the controller advances past a step whose geometry passes within this many metres of the next
    /// stop (the stop is on a step the vehicle has completed).
    case alongAdvancingStep(Double)
}

/// What course the snapped location carries.
public enum CourseFiltering: String, Hashable, Sendable, Codable {
    /// The receiver's course, unchanged.
    case raw
    /// The bearing of the route where the vehicle is snapped (steady on straight roads, no jitter at low speed).
    case snapToRoute
}

/// Everything that tunes the controller. The defaults are for a car on real roads; each is explained where it is
/// defined and in docs/controller.md.
public struct NavigationControllerConfig: Sendable {
    /// Advances every step but the last.
    public var stepAdvance: StepAdvanceCondition
    /// Completes the trip on the last step (the one that ends at the destination).
    public var arrival: StepAdvanceCondition
    public var waypointAdvance: WaypointAdvanceMode
    public var deviationTracking: RouteDeviationTracking
    public var courseFiltering: CourseFiltering
    /// Applied to the route's instructions once, when the controller is created.
    public var promptTiming: PromptTiming

    public init(
        stepAdvance: StepAdvanceCondition = Self.defaultStepAdvance, arrival: StepAdvanceCondition = Self.defaultArrival,
        waypointAdvance: WaypointAdvanceMode = .withinRange(100),
        deviationTracking: RouteDeviationTracking = .staticThreshold(StaticThresholdDeviation()),
        courseFiltering: CourseFiltering = .snapToRoute, promptTiming: PromptTiming = .unchanged
    ) {
        self.stepAdvance = stepAdvance
        self.arrival = arrival
        self.waypointAdvance = waypointAdvance
        self.deviationTracking = deviationTracking
        self.courseFiltering = courseFiltering
        self.promptTiming = promptTiming
    }

    /// Entry 30 m before the maneuver, exit 5 m after it, fixes better than 32 m (Ferrostar's tested car
    /// defaults); or, when the vehicle has clearly moved on to the next step (more than 40 m from the current
    /// one, matched to the next, on the route), advance anyway so a missed entry cannot stall the trip.
    public static let defaultStepAdvance: StepAdvanceCondition = .or([
        .distanceEntryAndExit(entry: 30, exit: 5, minimumHorizontalAccuracy: 32),
        .distanceFromStep(distance: 40, minimumHorizontalAccuracy: 32, policy: .whileOnCurrentStep),
    ])

    /// Arrived within 20 m of the destination along the route (peers use 10-30 m: closer than 10 m is often
    /// impossible at the kerb, farther than 30 m announces arrival a building early).
    public static let defaultArrival: StepAdvanceCondition = .distanceToEndOfStep(distance: 20, minimumHorizontalAccuracy: 32)
}
