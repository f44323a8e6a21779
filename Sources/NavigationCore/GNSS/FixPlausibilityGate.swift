import FoundationEssentials
import Glibc

/// Rejects fixes that cannot be the vehicle's position before they reach the controller: a time that goes back or
/// repeats, a time far ahead of the last accepted fix's (a receiver's bad date, a week-number rollover), or a jump
/// that implies an impossible speed from the last accepted fix (a teleport: a multipath ghost, a receiver glitch).
/// A rejected fix moves nothing. A jump in place or time that persists (the receiver really was moved, or its time
/// line was reset, or it comes back after a long outage) is accepted once `confirmationsForJump` fixes in a row agree
/// with each other; an accepted jump is a new position, not a drive.
///
/// Pure: time comes from the fixes.
public struct FixPlausibilityGate: Hashable, Sendable {
    /// Fastest plausible ground speed, metres per second. 90 m/s is 324 km/h: above any road vehicle, below
    /// anything a real teleport implies (a 5000 km jump in one second).
    public var maximumSpeed: Double
    /// Consistent fixes in a row at a new place (or on a new time line) before it is accepted.
    public var confirmationsForJump: Int
    /// How many 68% radii of both fixes a jump may be explained by: 3 covers about 99.9% of honest error.
    public var accuracyAllowance: Double
    /// Seconds of receiver time after the last accepted fix from which a fix needs confirming. A fix dated years
    /// ahead is near enough in place to pass the speed check (any distance over years is a plausible speed), and
    /// once accepted every real fix after it would look backwards in time. 3600 s is longer than any tunnel or
    /// parking-garage outage a trip continues through, so those resume on their first fix.
    public var maximumTimeGap: Double

    /// The last fix let through.
    public private(set) var lastAccepted: UserLocation?
    /// Fixes rejected so far, by reason.
    public private(set) var rejections = FixRejectionCounts()
    /// Fixes that agree with each other but not with ``lastAccepted``: the start of a real jump, perhaps.
    private var candidates: [UserLocation] = []

    public init(maximumSpeed: Double = 90, confirmationsForJump: Int = 3, accuracyAllowance: Double = 3, maximumTimeGap: Double = 3600) {
        self.maximumSpeed = maximumSpeed
        self.confirmationsForJump = confirmationsForJump
        self.accuracyAllowance = accuracyAllowance
        self.maximumTimeGap = maximumTimeGap
    }

    /// Decides on one fix and remembers it when accepted.
    public mutating func check(_ fix: UserLocation) -> FixVerdict {
        guard let last = lastAccepted else {
            lastAccepted = fix
            return .accepted
        }
        guard let reason = consistency(of: fix, after: last) else {
            lastAccepted = fix
            candidates = []
            return .accepted
        }
        // A repeat is never the start of a new place.
        guard reason != .repeatedTime else { return rejected(reason) }
        // Not consistent with the last accepted fix: does it continue a run of fixes at a new place?
        if let previous = candidates.last, consistency(of: fix, after: previous) == nil {
            candidates.append(fix)
        } else {
            candidates = [fix]
        }
        if candidates.count >= confirmationsForJump {
            let distance = Geodesy.distance(last.coordinate, fix.coordinate)
            lastAccepted = fix
            candidates = []
            return .acceptedAfterJump(distance: distance)
        }
        return rejected(reason)
    }

    private mutating func rejected(_ reason: FixRejection) -> FixVerdict {
        switch reason {
        case .backwardsInTime: rejections.backwardsInTime += 1
        case .impossibleSpeed: rejections.impossibleSpeed += 1
        case .repeatedTime: rejections.repeatedTime += 1
        case .timeJump: rejections.timeJump += 1
        }
        return .rejected(reason)
    }

    /// Why `fix` cannot follow `previous`, or nil when it can.
    func consistency(of fix: UserLocation, after previous: UserLocation) -> FixRejection? {
        let elapsed = fix.timestamp.timeIntervalSince(previous.timestamp)
        if abs(elapsed) < 0.0005 { return .repeatedTime }
        if elapsed < 0 { return .backwardsInTime }
        if elapsed > maximumTimeGap { return .timeJump }
        let distance = Geodesy.distance(previous.coordinate, fix.coordinate)
        let explained = accuracyAllowance * (previous.horizontalAccuracy + fix.horizontalAccuracy)
        return max(0, distance - explained) / elapsed > maximumSpeed ? .impossibleSpeed : nil
    }
}

/// What the gate decided.
public enum FixVerdict: Hashable, Sendable {
    case accepted
    /// Accepted after enough consistent fixes far from the last accepted one. `distance`: metres jumped.
    case acceptedAfterJump(distance: Double)
    case rejected(FixRejection)

    public var isAccepted: Bool {
        if case .rejected = self { return false }
        return true
    }
}

/// Why a fix was rejected.
public enum FixRejection: String, Hashable, Sendable, Codable {
    /// Its time is before the last accepted fix's.
    case backwardsInTime = "backwards_in_time"
    /// Its time equals the last accepted fix's (a receiver repeating itself).
    case repeatedTime = "repeated_time"
    /// Reaching it from the last accepted fix needs a speed above ``FixPlausibilityGate/maximumSpeed``.
    case impossibleSpeed = "impossible_speed"
    /// Its time is more than ``FixPlausibilityGate/maximumTimeGap`` after the last accepted fix's.
    case timeJump = "time_jump"

    /// A sentence for logs.
    public var explanation: String {
        switch self {
        case .backwardsInTime: "its time is before the last accepted fix's"
        case .repeatedTime: "it repeats the last accepted fix's time"
        case .impossibleSpeed: "reaching it from the last accepted fix needs an impossible speed"
        case .timeJump: "its time is more than an hour after the last accepted fix's"
        }
    }
}

/// Rejected fixes, counted by reason (reported in `status` under `gnss.rejectedFixes`).
public struct FixRejectionCounts: Hashable, Sendable, Codable {
    public var backwardsInTime = 0
    public var repeatedTime = 0
    public var impossibleSpeed = 0
    public var timeJump = 0

    public var total: Int { backwardsInTime + repeatedTime + impossibleSpeed + timeJump }

    public init() {}
}
