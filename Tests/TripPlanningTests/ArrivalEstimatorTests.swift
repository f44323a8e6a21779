import Foundation
import NavigationCore
import Testing
import TripPlanning

/// The arrival at the driver's pace, fix by fix in fix time (no clock): a driver at the engine's pace, a slower
/// one, standing at a light, a gap, a new route, and the memory a recording carries.
struct ArrivalEstimatorTests {
    static let start = Date(timeIntervalSince1970: 1_795_241_290)

    /// Drives `seconds` fixes a second apart from `remaining` (the engine's seconds to the destination), covering
    /// `rate` expected seconds per second (1: the engine's pace; 0.5: twice as slow; 0: standing), at `speed` m/s.
    /// Returns the arrival (fix time plus the estimate) after each fix.
    static func drive(
        _ estimator: inout ArrivalEstimator, from time: inout Date, remaining: inout Double, seconds: Int, rate: Double, speed: Double
    ) -> [Date] {
        (0..<seconds).map { _ in
            time = time.addingTimeInterval(1)
            remaining = max(0, remaining - rate)
            return time.addingTimeInterval(estimator.observe(time: time, remaining: remaining, speed: speed))
        }
    }

    @Test func atTheEnginesPaceTheArrivalHolds() {
        var estimator = ArrivalEstimator()
        var time = Self.start, remaining = 1200.0
        let arrivals = Self.drive(&estimator, from: &time, remaining: &remaining, seconds: 600, rate: 1, speed: 14)
        #expect(abs(estimator.pace - 1) < 1e-9)
        #expect(arrivals.allSatisfy { abs($0.timeIntervalSince(Self.start.addingTimeInterval(1200))) < 1e-6 })
    }

    /// Twice as slow as the engine expected (a jam): the pace rises towards 2 over minutes, never in a jump, and the
    /// arrival moves later with it.
    @Test func aSlowerDriverIsFollowedSmoothly() {
        var estimator = ArrivalEstimator()
        var time = Self.start, remaining = 3000.0
        let arrivals = Self.drive(&estimator, from: &time, remaining: &remaining, seconds: 900, rate: 0.5, speed: 6)
        let steps = zip(arrivals, arrivals.dropFirst()).map { $1.timeIntervalSince($0) }
        #expect(steps.allSatisfy { $0 >= 0 && $0 < 3 }, "largest move of the arrival in one second: \(steps.max() ?? 0) s")
        #expect(estimator.pace > 1.6 && estimator.pace <= 2, "pace \(estimator.pace)")
        // After 15 minutes, 2550 expected seconds remain: the next 1200 at the pace, the rest at the engine's speeds.
        let left = arrivals.last!.timeIntervalSince(time)
        #expect(abs(left - (1200 * estimator.pace + (remaining - 1200))) < 1e-6)
        #expect(left > 1200 * 1.6 + 1350)
    }

    /// Standing at a light for two minutes: the pace does not change, and the arrival moves later second for second
    /// (a peer's estimate froze while stationary).
    @Test func standingMovesTheArrivalOnByItself() {
        var estimator = ArrivalEstimator()
        var time = Self.start, remaining = 1200.0
        _ = Self.drive(&estimator, from: &time, remaining: &remaining, seconds: 120, rate: 1, speed: 14)
        let pace = estimator.pace
        let standing = Self.drive(&estimator, from: &time, remaining: &remaining, seconds: 120, rate: 0, speed: 0.2)
        #expect(estimator.pace == pace)
        let steps = zip(standing, standing.dropFirst()).map { $1.timeIntervalSince($0) }
        #expect(steps.allSatisfy { abs($0 - 1) < 1e-6 }, "\(steps.prefix(5))")
        // A receiver without speed: standing is known by the route progress not moving.
        var silent = ArrivalEstimator()
        var t = Self.start, r = 600.0
        _ = silent.observe(time: t, remaining: r, speed: nil)
        for _ in 0..<60 {
            t = t.addingTimeInterval(1)
            _ = silent.observe(time: t, remaining: r, speed: nil)
        }
        #expect(silent.pace == 1)
        r -= 10
        t = t.addingTimeInterval(10)
        _ = silent.observe(time: t, remaining: r, speed: nil)
        #expect(abs(silent.pace - 1) < 1e-9)
    }

    /// A gap between fixes (an outage, a restart), a prediction and going back along the route say nothing of the
    /// pace; a new route keeps it.
    @Test func gapsPredictionsAndNewRoutesKeepThePace() {
        var estimator = ArrivalEstimator()
        var time = Self.start, remaining = 2000.0
        _ = Self.drive(&estimator, from: &time, remaining: &remaining, seconds: 300, rate: 0.8, speed: 10)
        let pace = estimator.pace
        #expect(pace > 1.05)
        time = time.addingTimeInterval(120)
        remaining -= 40
        _ = estimator.observe(time: time, remaining: remaining, speed: 10)
        #expect(estimator.pace == pace)
        time = time.addingTimeInterval(1)
        _ = estimator.observe(time: time, remaining: remaining - 30, speed: nil, measured: false)
        #expect(estimator.pace == pace)
        time = time.addingTimeInterval(1)
        _ = estimator.observe(time: time, remaining: remaining + 20, speed: 10)
        #expect(estimator.pace == pace)
        estimator.routeChanged()
        time = time.addingTimeInterval(1)
        let left = estimator.observe(time: time, remaining: 5000, speed: 10)
        #expect(estimator.pace == pace && abs(left - (1200 * pace + 3800)) < 1e-6)
    }

    @Test func thePaceStaysInItsRange() {
        var estimator = ArrivalEstimator()
        var time = Self.start, remaining = 10_000.0
        _ = Self.drive(&estimator, from: &time, remaining: &remaining, seconds: 3600, rate: 0.1, speed: 1.5)
        #expect(estimator.pace == 2)
        var fast = ArrivalEstimator()
        time = Self.start
        remaining = 10_000
        _ = Self.drive(&fast, from: &time, remaining: &remaining, seconds: 1800, rate: 3, speed: 40)
        #expect(fast.pace == 0.5)
    }

    /// What a recording carries: the same estimator again; numbers out of range are refused, not trusted.
    @Test func theMemoryRoundTripsAndIsChecked() throws {
        var estimator = ArrivalEstimator()
        var time = Self.start, remaining = 2000.0
        _ = Self.drive(&estimator, from: &time, remaining: &remaining, seconds: 200, rate: 0.7, speed: 9)
        let copy = try #require(ArrivalEstimator(settings: ArrivalSettings(), memory: estimator.memory))
        #expect(copy.memory == estimator.memory && copy.pace == estimator.pace)
        for bad in [
            ArrivalEstimator.Memory(actual: -1, expected: 10, lastTime: nil, lastRemaining: nil),
            ArrivalEstimator.Memory(actual: 10, expected: .infinity, lastTime: nil, lastRemaining: nil),
            ArrivalEstimator.Memory(actual: 10, expected: 10, lastTime: 1e300, lastRemaining: 5),
            ArrivalEstimator.Memory(actual: 10, expected: 10, lastTime: 0, lastRemaining: -5),
        ] {
            #expect(ArrivalEstimator(settings: ArrivalSettings(), memory: bad) == nil, "\(bad)")
        }
    }
}
