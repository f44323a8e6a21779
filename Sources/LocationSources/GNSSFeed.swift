import FoundationEssentials
import Glibc
import NavigationCore
import Synchronization
import SystemSupport

/// What a source says about itself, as opposed to what the receiver measured.
public enum GNSSSourceStatus: Hashable, Sendable, CustomStringConvertible {
    /// Trying to reach gpsd or open the device.
    case connecting(String)
    /// Reading from it.
    case connected(String)
    /// Lost it; trying again after `retryIn` seconds.
    case disconnected(reason: String, retryIn: Double)
    /// No fix for `silentFor` seconds (the silence watchdog, the same for every source: gpsd says nothing when its
    /// device goes away, a serial receiver may simply stop talking, a tunnel leaves only no-fix epochs).
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
        case .disconnected(let reason, let retry): "\(reason); retrying in \(String(cFormat: "%.1f", retry)) s"
        case .receiverLost(let silent): "receiver lost: no fix for \(String(cFormat: "%.1f", silent)) s"
        case .receiverBack: "receiver back: fixes resumed"
        case .failed(let reason): "failed: \(reason)"
        case .finished: "end of input"
        }
    }
}

/// The two streams every source offers: readings and status changes (rare, never dropped). A live source keeps
/// only the newest reading for a slow consumer (an old fix is worth nothing); a replay keeps every reading (its
/// input is already in memory, and a replay exists to show every fix).
///
/// Every source's feed has the same silence watchdog (``watchSilence(timeout:)``): `receiverLost` when no fix
/// has been yielded for the timeout, `receiverBack` with the next fix.
public final class GNSSFeed: Sendable {
    public let readings: AsyncStream<GNSSReading>
    public let statuses: AsyncStream<GNSSSourceStatus>
    private let readingContinuation: AsyncStream<GNSSReading>.Continuation
    private let statusContinuation: AsyncStream<GNSSSourceStatus>.Continuation
    private let lastStatus = Mutex<GNSSSourceStatus?>(nil)
    private let finished = Mutex(false)
    /// Monotonic seconds of the last fix (or of the feed's creation), and whether the watchdog has reported it lost.
    private let silence = Mutex<(lastFix: Double, lost: Bool)>((monotonicSeconds(), false))
    private let rawObserver = HandlerSlot<RawGNSSInput>()
    private let rawObserved = Atomic<Bool>(false)
    /// Where readings go instead of `readings`, when set: the consumer's own queue, called on the source's thread.
    private let readingSink = HandlerSlot<GNSSReading>()
    /// How the source rehearses its next reading's way, when it has one (``rehearseNextReading()``).
    private let rehearsal = HandlerSlot<Void>()

    public init(keepEveryReading: Bool = false) {
        (readings, readingContinuation) = AsyncStream.makeStream(
            of: GNSSReading.self, bufferingPolicy: keepEveryReading ? .unbounded : .bufferingNewest(1))
        (statuses, statusContinuation) = AsyncStream.makeStream(of: GNSSSourceStatus.self, bufferingPolicy: .unbounded)
    }

    public func yield(_ reading: GNSSReading) {
        if !readingSink.call(reading) { readingContinuation.yield(reading) }
        guard reading.fix != nil else { return }
        let wasLost = silence.withLock { state in
            defer { state = (monotonicSeconds(), false) }
            return state.lost
        }
        if wasLost { report(.receiverBack) }
    }

    /// The silence watchdog, until the task is cancelled or the feed finishes: reports
    /// ``GNSSSourceStatus/receiverLost(silentFor:)`` once no fix has arrived for `timeout` seconds. It sleeps until
    /// the moment the receiver would be silent for that long (``SilenceCheck``), not in short polls: at 10 Hz a
    /// poll every 0.1 s cost a quarter of navd's CPU in timer wake-ups on the cooperative pool.
    public func watchSilence(timeout: Double) async {
        while !Task.isCancelled, !finished.withLock({ $0 }) {
            let check = silence.withLock { state in
                let check = SilenceCheck(now: monotonicSeconds(), lastFix: state.lastFix, reported: state.lost, timeout: timeout)
                if check.silentFor != nil { state.lost = true }
                return check
            }
            if let silent = check.silentFor { report(.receiverLost(silentFor: silent)) }
            try? await Task.sleep(for: .seconds(check.wait))
        }
    }

    /// Hands every reading from now on straight to `sink` on the source's own thread, instead of to `readings`:
    /// a consumer with its own input queue (the navigation loop) saves a task relaying one stream into another,
    /// which costs a thread hop per fix.
    public func forwardReadings(to sink: @escaping @Sendable (GNSSReading) -> Void) {
        readingSink.set(sink)
    }

    /// How the source rehearses reading its next fix, set by a source that reads on the navigation loop's event
    /// loop (a serial receiver: its last bytes assembled again on a copy of its assembler, dropped); nil: none.
    public func rehearseWith(_ body: (@Sendable () -> Void)?) {
        guard let body else { return rehearsal.set(nil) }
        rehearsal.set { (_: Void) in body() }
    }

    /// Runs the source's rehearsal, if it has one (false when it has none): called by the navigation loop shortly
    /// before the next fix is due, on the event loop the source reads on (docs/daemon.md, *A fix's way rehearsed*).
    @discardableResult
    public func rehearseNextReading() -> Bool {
        rehearsal.call(())
    }

    /// Who sees the source's input as received (the flight recorder); nil: nobody.
    public func observeRaw(_ observer: (@Sendable (RawGNSSInput) -> Void)?) {
        rawObserver.set(observer)
        rawObserved.store(observer != nil, ordering: .releasing)
    }

    /// True while someone observes the raw input: sources skip building it otherwise.
    public var isRawObserved: Bool { rawObserved.load(ordering: .acquiring) }

    /// Hands input as received to the observer, if any.
    public func yieldRaw(_ input: RawGNSSInput) {
        guard isRawObserved else { return }
        rawObserver.call(input)
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
        finished.withLock { $0 = true }
        readingContinuation.finish()
        statusContinuation.finish()
    }
}

/// A source's input exactly as it arrived, for the flight recorder.
public enum RawGNSSInput: Sendable {
    /// Bytes read from a serial receiver (any cut: not aligned to sentences).
    case serialBytes([UInt8])
    /// One JSON report from gpsd.
    case gpsdJSON(String)
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

/// One look of the silence watchdog: whether to report the receiver lost now, and how long to sleep before the
/// next look. Seconds on a monotonic clock.
struct SilenceCheck: Equatable {
    /// Seconds without a fix, when the receiver is to be reported lost now.
    var silentFor: Double?
    /// Seconds to sleep: until the last fix is `timeout` old (and a millisecond, so that it is then older), or a
    /// whole `timeout` once the loss is reported (the next fix reports the receiver back, not the watchdog).
    var wait: Double

    init(silentFor: Double?, wait: Double) {
        self.silentFor = silentFor
        self.wait = wait
    }

    init(now: Double, lastFix: Double, reported: Bool, timeout: Double) {
        let silent = now - lastFix
        // At least a millisecond: a timeout of 0 must not spin.
        if reported {
            self.init(silentFor: nil, wait: max(0.001, timeout))
        } else if silent > timeout {
            self.init(silentFor: silent, wait: max(0.001, timeout))
        } else {
            self.init(silentFor: nil, wait: max(0.001, timeout - silent + 0.001))
        }
    }
}
