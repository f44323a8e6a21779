import Foundation
import NavigationCore
import Synchronization

/// What a source says about itself, as opposed to what the receiver measured.
public enum GNSSSourceStatus: Hashable, Sendable, CustomStringConvertible {
    /// Trying to reach gpsd or open the device.
    case connecting(String)
    /// Reading from it.
    case connected(String)
    /// Lost it; trying again after `retryIn` seconds.
    case disconnected(reason: String, retryIn: Double)
    /// No fix for `silentFor` seconds although the connection is up (gpsd says nothing when its device goes away).
    case receiverLost(silentFor: Double)
    /// Fixes arrive again after `receiverLost`.
    case receiverBack
    /// The source cannot go on (bad configuration); it has stopped.
    case failed(String)
    /// A replay reached the end of its input.
    case finished

    public var description: String {
        switch self {
        case .connecting(let what): "connecting to \(what)"
        case .connected(let what): "connected to \(what)"
        case .disconnected(let reason, let retry): "\(reason); retrying in \(String(format: "%.1f", retry)) s"
        case .receiverLost(let silent): "receiver lost: no fix for \(String(format: "%.1f", silent)) s"
        case .receiverBack: "receiver back: fixes resumed"
        case .failed(let reason): "failed: \(reason)"
        case .finished: "end of input"
        }
    }
}

/// The two streams every source offers: readings and status changes (rare, never dropped). A live source keeps
/// only the newest reading for a slow consumer (an old fix is worth nothing); a replay keeps every reading (its
/// input is already in memory, and a replay exists to show every fix).
public final class GNSSFeed: Sendable {
    public let readings: AsyncStream<GNSSReading>
    public let statuses: AsyncStream<GNSSSourceStatus>
    private let readingContinuation: AsyncStream<GNSSReading>.Continuation
    private let statusContinuation: AsyncStream<GNSSSourceStatus>.Continuation
    private let lastStatus = Mutex<GNSSSourceStatus?>(nil)

    public init(keepEveryReading: Bool = false) {
        (readings, readingContinuation) = AsyncStream.makeStream(
            of: GNSSReading.self, bufferingPolicy: keepEveryReading ? .unbounded : .bufferingNewest(1))
        (statuses, statusContinuation) = AsyncStream.makeStream(of: GNSSSourceStatus.self, bufferingPolicy: .unbounded)
    }

    public func yield(_ reading: GNSSReading) {
        readingContinuation.yield(reading)
    }

    /// Publishes a status unless it repeats the previous one.
    public func report(_ status: GNSSSourceStatus) {
        let changed = lastStatus.withLock { last in
            defer { last = status }
            return last != status
        }
        if changed { statusContinuation.yield(status) }
    }

    public func finish() {
        readingContinuation.finish()
        statusContinuation.finish()
    }
}

/// Exponential backoff for reconnects: 0.5 s doubling to 8 s.
struct Backoff {
    var current: Double = 0.5
    let maximum: Double = 8

    mutating func next() -> Double {
        defer { current = min(maximum, current * 2) }
        return current
    }

    mutating func reset() { current = 0.5 }
}

/// A stop flag shared with a reader thread.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }

    /// Sleeps up to `seconds` in short slices, returning early when the flag is set.
    func sleep(_ seconds: Double) {
        var remaining = seconds
        while remaining > 0, !isSet {
            let slice = min(0.05, remaining)
            usleep(UInt32(slice * 1_000_000))
            remaining -= slice
        }
    }
}

/// Monotonic seconds, for watchdogs and latency (never the receiver's time).
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
