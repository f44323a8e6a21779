/// When the controller moves on to the next step. Conditions compose with ``and(_:)`` and ``or(_:)``.
///
/// All distances are metres; accuracies are navd's 68% radius (see docs/conventions.md). A fix whose
/// horizontal accuracy is worse than a condition's `minimumHorizontalAccuracy` never satisfies it.
public indirect enum StepAdvanceCondition: Hashable, Sendable {
    /// Only an explicit ``NavigationController/advanceManually(_:)``.
    case manual
    /// Advance once the vehicle is within `distance` of the end of the step (measured along the route).
    case distanceToEndOfStep(distance: Double, minimumHorizontalAccuracy: Double)
    /// Advance once the vehicle is more than `distance` away from the current step's geometry: it has left
    /// the step (taken the turn). `policy` says when the check applies.
    case distanceFromStep(distance: Double, minimumHorizontalAccuracy: Double, policy: DistanceFromStepPolicy)
    /// Stateful: first the vehicle must come within `entry` of the end of the step; then it advances once it
    /// is past the maneuver, its raw fix at least `exit` metres from the maneuver point and on the route beyond it.
    case distanceEntryAndExit(entry: Double, exit: Double, minimumHorizontalAccuracy: Double)
    /// Like ``distanceEntryAndExit(entry:exit:minimumHorizontalAccuracy:)``, but the exit is measured on the
    /// snapped position along the next step, which is robust when the raw fix is noisy at the corner.
    case distanceEntryAndSnappedExit(entry: Double, exit: Double, minimumHorizontalAccuracy: Double)
    /// All of the conditions hold (each keeps its own state).
    case and([StepAdvanceCondition])
    /// Any of the conditions holds.
    case or([StepAdvanceCondition])
}

/// When a ``StepAdvanceCondition/distanceFromStep(distance:minimumHorizontalAccuracy:policy:)`` check applies.
public enum DistanceFromStepPolicy: String, Hashable, Sendable, Codable {
    /// Whenever the vehicle is far enough from the step, even off the route.
    case always
    /// Only while the vehicle is on the route (within the deviation threshold of it): leaving the route does
    /// not advance steps.
    case whileOnRoute
    /// Only when the vehicle matches the step right after the current one: it has moved on in sequence.
    case whileOnCurrentStep
}

/// The state a stateful condition keeps between fixes, mirroring the condition's shape.
public indirect enum StepAdvanceConditionState: Hashable, Sendable {
    case stateless
    /// For entry-and-exit conditions: whether the entry distance has been reached on this step.
    case entered(Bool)
    case composite([StepAdvanceConditionState])

    /// The initial state for a condition at the start of a step.
    public init(_ condition: StepAdvanceCondition) {
        switch condition {
        case .manual, .distanceToEndOfStep, .distanceFromStep: self = .stateless
        case .distanceEntryAndExit, .distanceEntryAndSnappedExit: self = .entered(false)
        case .and(let conditions), .or(let conditions): self = .composite(conditions.map(StepAdvanceConditionState.init))
        }
    }
}

/// What a step-advance condition looks at for one fix.
public struct StepAdvanceContext: Sendable {
    public var location: UserLocation
    /// Distance along the route from the snapped position to the end of the current step, metres (negative
    /// when the snapped position is already past it).
    public var distanceToEndOfStep: Double
    /// Distance from the raw fix to the current step's geometry, metres.
    public var distanceFromCurrentStep: Double
    /// Distance from the raw fix to the maneuver point at the end of the current step, metres.
    public var distanceFromManeuver: Double
    /// Distance from the raw fix to the route, metres.
    public var distanceFromRoute: Double
    /// True when the best route match lies on the step after the current one.
    public var matchedNextStep: Bool
    /// True while the deviation tracker considers the vehicle on the route.
    public var isOnRoute: Bool
    /// True on the last step, whose end is the destination: there is no route beyond it, so an exit is
    /// measured from the destination point.
    public var isFinalStep: Bool

    public init(
        location: UserLocation, distanceToEndOfStep: Double, distanceFromCurrentStep: Double, distanceFromManeuver: Double,
        distanceFromRoute: Double, matchedNextStep: Bool, isOnRoute: Bool, isFinalStep: Bool = false
    ) {
        self.isFinalStep = isFinalStep
        self.location = location
        self.distanceToEndOfStep = distanceToEndOfStep
        self.distanceFromCurrentStep = distanceFromCurrentStep
        self.distanceFromManeuver = distanceFromManeuver
        self.distanceFromRoute = distanceFromRoute
        self.matchedNextStep = matchedNextStep
        self.isOnRoute = isOnRoute
    }
}

extension StepAdvanceCondition {
    /// Evaluates the condition for one fix: whether to advance, and the condition's state for the next fix.
    public func evaluate(_ context: StepAdvanceContext, state: StepAdvanceConditionState) -> (advance: Bool, state: StepAdvanceConditionState) {
        switch self {
        case .manual:
            return (false, .stateless)
        case .distanceToEndOfStep(let distance, let accuracy):
            guard context.location.horizontalAccuracy <= accuracy else { return (false, .stateless) }
            return (context.distanceToEndOfStep <= distance, .stateless)
        case .distanceFromStep(let distance, let accuracy, let policy):
            guard context.location.horizontalAccuracy <= accuracy else { return (false, .stateless) }
            let applies: Bool =
                switch policy {
                case .always: true
                case .whileOnRoute: context.isOnRoute
                case .whileOnCurrentStep: context.isOnRoute && context.matchedNextStep
                }
            return (applies && context.distanceFromCurrentStep > distance, .stateless)
        case .distanceEntryAndExit(let entry, let exit, let accuracy),
            .distanceEntryAndSnappedExit(let entry, let exit, let accuracy):
            var entered = false
            if case .entered(let value) = state { entered = value }
            guard context.location.horizontalAccuracy <= accuracy else { return (false, .entered(entered)) }
            if !entered {
                entered = context.distanceToEndOfStep <= entry
                // Entry and exit may both happen on one fix when fixes are sparse.
                guard entered else { return (false, .entered(false)) }
            }
            let exited: Bool =
                if context.isFinalStep {
                    // As an arrival condition: at the destination and then `exit` metres away from it.
                    context.distanceToEndOfStep <= 0.5 && context.distanceFromManeuver >= exit
                } else if case .distanceEntryAndSnappedExit = self {
                    -context.distanceToEndOfStep >= exit
                } else {
                    // Past the maneuver, away from its point, and nearer the route's continuation than the point
                    // itself: the vehicle took the maneuver (driving straight past a turn leaves the snapped
                    // position at the corner, with the fix as far from the route as from the corner).
                    context.distanceToEndOfStep <= 0 && context.distanceFromManeuver >= exit
                        && context.distanceFromRoute < context.distanceFromManeuver - 1
                }
            return (exited, .entered(true))
        case .and(let conditions), .or(let conditions):
            var states: [StepAdvanceConditionState] = []
            if case .composite(let existing) = state, existing.count == conditions.count {
                states = existing
            } else {
                states = conditions.map(StepAdvanceConditionState.init)
            }
            var results: [Bool] = []
            for (i, condition) in conditions.enumerated() {
                let (advance, next) = condition.evaluate(context, state: states[i])
                results.append(advance)
                states[i] = next
            }
            let isAnd: Bool = if case .and = self { true } else { false }
            let advance = isAnd ? (!results.isEmpty && results.allSatisfy { $0 }) : results.contains(true)
            return (advance, .composite(states))
        }
    }
}
