import FoundationEssentials
import Glibc

/// Dead reckoning through a GNSS outage: when predictions start, how long they go on, and what speed they use.
/// The daemon predicts on its tick; ``TripReplay`` predicts at the same moments in fix time.
public struct DeadReckoning: Hashable, Sendable {
    /// Seconds without a fix before predictions start: a fix that is 1.5 s overdue (at 1 Hz) is missing, not late.
    public var delay: Double
    /// Seconds after the last fix when predictions stop (`gnss.dead_reckoning`; 0 turns prediction off).
    public var limit: Double
    /// Seconds between predictions (the daemon's tick).
    public var interval: Double

    public init(delay: Double = 1.5, limit: Double = 60, interval: Double = 1) {
        self.delay = delay
        self.limit = limit
        self.interval = interval
    }

    /// The speed to predict with, metres per second: the last fix's when the vehicle was moving (1 m/s or more,
    /// capped at 70 m/s), else 0: a vehicle that stood still before the outage is assumed to stand still.
    public static func trustworthySpeed(_ location: UserLocation) -> Double {
        guard let speed = location.speed?.metersPerSecond, speed.isFinite, speed >= 1 else { return 0 }
        return min(speed, 70)
    }

    /// Fix times at which to predict between a fix at `last` and the next at `next` (nil: none yet).
    public func predictionTimes(after last: Date, before next: Date) -> [Date] {
        guard limit > 0 else { return [] }
        var times: [Date] = []
        var offset = (delay / interval).rounded(.up) * interval
        while offset <= limit, last.addingTimeInterval(offset) < next {
            times.append(last.addingTimeInterval(offset))
            offset += interval
        }
        return times
    }
}

/// The daemon's path from fixes to trip states, without the daemon: the plausibility gate, the controller, and
/// dead reckoning through gaps, with each prompt reported once (as the daemon's instruction ledger does).
/// `navctl replay` and the drive tests run it. Pure.
public struct TripReplay: Sendable {
    public enum Output: Sendable {
        /// A state from a fix, or predicted during a gap (``NavigatingState/predicted``).
        case state(TripState, time: Date)
        /// A fix the gate rejected; it changed nothing.
        case rejected(UserLocation, FixRejection)
    }

    public let controller: NavigationController
    public var gate: FixPlausibilityGate
    public var deadReckoning: DeadReckoning

    public init(controller: NavigationController, gate: FixPlausibilityGate = FixPlausibilityGate(), deadReckoning: DeadReckoning = DeadReckoning()) {
        self.controller = controller
        self.gate = gate
        self.deadReckoning = deadReckoning
    }

    /// Every output for `fixes`, until arrival.
    public mutating func run(_ fixes: [UserLocation]) -> [Output] {
        var outputs: [Output] = []
        var state = TripState.idle
        var said: Set<String> = []
        var predictedUntil = Date.distantPast
        func report(_ next: TripState, time: Date) {
            var next = next
            switch next {
            case .navigating(var s):
                if let prompt = s.spokenInstruction, !said.insert(prompt.utteranceId).inserted {
                    s.spokenInstruction = nil
                    next = .navigating(s)
                }
            case .complete(var c):
                if let prompt = c.spokenInstruction, !said.insert(prompt.utteranceId).inserted {
                    c.spokenInstruction = nil
                    next = .complete(c)
                }
            case .idle:
                break
            }
            outputs.append(.state(next, time: time))
        }
        for fix in fixes {
            if case .complete = state { break }
            if let real = state.navigating, real.isOnRoute {
                let speed = DeadReckoning.trustworthySpeed(real.rawLocation)
                if speed > 0 {
                    for time in deadReckoning.predictionTimes(after: real.rawLocation.timestamp, before: fix.timestamp) where time > predictedUntil {
                        predictedUntil = time
                        report(.navigating(controller.predicted(from: real, at: time, speed: speed)), time: time)
                    }
                }
            }
            let verdict = gate.check(fix)
            if case .rejected(let reason) = verdict {
                outputs.append(.rejected(fix, reason))
                continue
            }
            let jumped = if case .acceptedAfterJump = verdict { true } else { false }
            state = !state.isNavigating ? controller.initialState(for: fix) : controller.update(state, with: fix, afterJump: jumped)
            report(state, time: fix.timestamp)
        }
        return outputs
    }
}
