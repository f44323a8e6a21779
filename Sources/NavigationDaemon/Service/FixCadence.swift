import FoundationEssentials
import NavigationCore

/// When the receiver's next fix is due, learned from when the last ones reached the loop, and when to rehearse
/// its way (``NavigationService``'s fix rehearsal, docs/daemon.md *A fix's way rehearsed*).
///
/// Times are nanoseconds of a monotonic clock (the event loop's), passed in: this type reads no clock.
struct FixCadence: Equatable {
    /// How long before the next fix is due its way is rehearsed, nanoseconds. Long enough that a receiver's
    /// jitter (a USB serial adapter's latency timer, 1–16 ms, moves every epoch alike) rarely brings the fix in
    /// during the rehearsal; short enough that the caches still hold what the rehearsal touched (on this
    /// project's machines a walk over 2,400 cache lines took 25 µs 0.5 ms after the same walk, 70 µs 2 ms after,
    /// 640 µs after 100 ms).
    static let lead: Int64 = 2_000_000
    /// The receiver rates rehearsed, as the gap between two fixes: 20 Hz to one fix in 2 s, nanoseconds. Outside
    /// it (a burst of fixes after an outage, a gap in one) nothing is rehearsed until two fixes come in it again.
    static let intervals: ClosedRange<Int64> = 50_000_000...2_000_000_000

    /// When the last fix reached the loop, nanoseconds.
    private(set) var lastArrival: Int64?
    /// The gap between the last two fixes, nanoseconds, when it is a receiver's rate (``intervals``).
    private(set) var interval: Int64?

    /// Records a fix that reached the loop at `time` (nanoseconds).
    mutating func fixArrived(at time: Int64) {
        if let last = lastArrival {
            let (gap, overflow) = time.subtractingReportingOverflow(last)
            interval = !overflow && Self.intervals.contains(gap) ? gap : nil
        }
        lastArrival = time
    }

    /// When to rehearse the next fix's way (nanoseconds), nil when no rate is known.
    var rehearsalTime: Int64? {
        guard let lastArrival, let interval else { return nil }
        return lastArrival + interval - Self.lead
    }

    /// The gap between the last two fixes in seconds, nil when no rate is known.
    var intervalSeconds: Double? { interval.map { Double($0) / 1e9 } }
}
