import NavigationCore

/// When a faster way is worth offering or taking during a trip (`[routing] faster_route*`).
public struct FasterRouteRules: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Never look for one.
        case off
        /// Offer it (`faster_route`); the driver takes it with `choose_route`.
        case notify
        /// Take it (`route` with reason `faster`).
        case `switch`
    }

    /// Off unless the integrator turns it on: an offer needs a client that shows it and a driver who can answer,
    /// and switching unasked changes the route under the driver.
    public var mode: Mode = .off
    /// Seconds of fix time between looks.
    public var interval = 120.0
    /// A candidate must save at least this many seconds ...
    public var minimumSaving = 60.0
    /// ... and at least this fraction of the time left.
    public var minimumFraction = 0.1
    /// Seconds of driving within which a candidate must not turn off: a way that leaves the route that soon
    /// cannot be taken safely.
    public var maneuverWindow = 20.0

    public init() {}
}

/// One route of an answer to "is there a faster way from here", as the coordinator measured it.
public struct FasterRouteCandidate: Sendable, Equatable {
    /// Index in the engine's answer.
    public var index: Int
    /// The engine's seconds to the destination.
    public var duration: Double
    /// It is the route being navigated (the same way ahead).
    public var isSameWay: Bool
    /// It is the way navd switched away from recently.
    public var isWayLeft: Bool
    /// It was offered already and not taken.
    public var wasOffered: Bool
    /// Seconds of driving at the vehicle's speed before it leaves the route being navigated.
    public var secondsToLeaveRoute: Double

    public init(index: Int, duration: Double, isSameWay: Bool, isWayLeft: Bool = false, wasOffered: Bool = false, secondsToLeaveRoute: Double) {
        self.index = index
        self.duration = duration
        self.isSameWay = isSameWay
        self.isWayLeft = isWayLeft
        self.wasOffered = wasOffered
        self.secondsToLeaveRoute = secondsToLeaveRoute
    }
}

public enum FasterRouteDecision: Sendable, Equatable {
    /// `index` in the answer is faster by `saving` seconds than `baseline` seconds of the route.
    case faster(index: Int, saving: Double, baseline: Double)
    /// Nothing to offer, and why.
    case refused(String)
}

/// Decides whether an answer holds a faster way worth the driver's attention. Pure.
public struct FasterRouteJudge: Sendable {
    public var rules: FasterRouteRules

    public init(rules: FasterRouteRules) { self.rules = rules }

    /// `routeLeft`: the engine's seconds left on the route being navigated, used when the answer does not hold
    /// the same way (when it does, that answer's time is the fresher comparison).
    public func decide(routeLeft: Double, candidates: [FasterRouteCandidate]) -> FasterRouteDecision {
        let baseline = candidates.filter(\.isSameWay).map(\.duration).min() ?? routeLeft
        let others = candidates.filter { !$0.isSameWay }.sorted { $0.duration < $1.duration }
        guard !others.isEmpty else { return .refused("the engine knows no other way than the route") }
        let needed = max(rules.minimumSaving, rules.minimumFraction * baseline)
        var firstReason: String?
        for candidate in others {
            let saving = baseline - candidate.duration
            let reason: String?
            if saving < needed {
                reason = "the fastest other way saves \(Self.whole(saving)) s of \(Self.whole(baseline)) s; it must save \(Self.whole(rules.minimumSaving)) s and \(Self.whole(rules.minimumFraction * 100)) %"
            } else if candidate.isWayLeft {
                reason = "it is the way navd switched away from (no switching back and forth)"
            } else if candidate.wasOffered {
                reason = "it was offered already"
            } else if candidate.secondsToLeaveRoute < rules.maneuverWindow {
                reason = "it leaves the route within \(Self.whole(candidate.secondsToLeaveRoute)) s of driving: too soon to take safely"
            } else {
                reason = nil
            }
            guard let reason else { return .faster(index: candidate.index, saving: saving, baseline: baseline) }
            firstReason = firstReason ?? reason
            // Slower ones save less: the first refusal for want of saving is the last word.
            if saving < needed { break }
        }
        return .refused(firstReason ?? "no other way qualifies")
    }

    static func whole(_ value: Double) -> Int { CheckedNumber.clampedWhole(value) }
}
