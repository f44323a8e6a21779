/// Changes the trigger distances of a route's instructions, once per route (when the controller is created).
public protocol InstructionTimingTransform: Sendable {
    func transform(_ route: Route) -> Route
}

/// How spoken prompts are timed.
public enum PromptTiming: Sendable {
    /// As the server sent them.
    case unchanged
    /// Every spoken trigger distance multiplied by `factor`.
    case scaleSpoken(factor: Double)
    /// Spoken triggers scaled by each step's speed class: `stepSpeed / referenceSpeed` clamped to
    /// `minimumFactor...maximumFactor`, so prompts come earlier on fast roads and later in town.
    /// Speeds in metres per second; a step's speed is its distance over its duration.
    case speedAdaptive(referenceSpeed: Double, minimumFactor: Double, maximumFactor: Double)
    case custom(any InstructionTimingTransform)

    /// Speed-adaptive timing around 50 km/h, between 0.6× and 2×.
    public static let speedAdaptiveDefault = PromptTiming.speedAdaptive(referenceSpeed: 13.9, minimumFactor: 0.6, maximumFactor: 2)

    public func apply(to route: Route) -> Route {
        switch self {
        case .unchanged:
            return route
        case .custom(let transform):
            return transform.transform(route)
        case .scaleSpoken(let factor):
            return Self.scale(route) { _ in factor }
        case .speedAdaptive(let reference, let minimum, let maximum):
            return Self.scale(route) { step in
                guard step.duration > 0, step.distance > 0, reference > 0 else { return 1 }
                return min(maximum, max(minimum, (step.distance / step.duration) / reference))
            }
        }
    }

    /// Scales spoken triggers, keeping each within its step (a prompt cannot come before the step starts)
    /// and the prompts of a step in their order.
    private static func scale(_ route: Route, factor: (RouteStep) -> Double) -> Route {
        var route = route
        for i in route.steps.indices {
            let f = max(0, factor(route.steps[i]))
            let length = route.steps[i].distance
            for j in route.steps[i].spokenInstructions.indices {
                let original = route.steps[i].spokenInstructions[j].triggerDistanceBeforeManeuver
                route.steps[i].spokenInstructions[j].triggerDistanceBeforeManeuver = min(length, original * f)
            }
        }
        return route
    }
}
