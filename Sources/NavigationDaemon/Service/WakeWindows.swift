/// When navd holds idle CPUs awake (``CPUWakeLatency``): in windows that open shortly before something is due
/// that a driver waits on, and close once it has been handled and written to the clients, or at the latest when
/// the window's longest hold has passed (a receiver unplugged, an engine that does not answer).
///
/// Times are nanoseconds of a monotonic clock, passed in: this type reads no clock.
struct WakeWindows: Equatable {
    enum Reason: CaseIterable {
        /// The receiver's next fix: opened after the fix's way was rehearsed, closed when a reading came.
        case fix
        /// A route answer: opened when a local engine's request is sent, or when a slower engine's answer is
        /// rehearsed; closed when the calculation's outcome came.
        case answer
    }

    /// The longest a window holds the CPUs awake, nanoseconds.
    static func longest(_ reason: Reason) -> Int64 {
        switch reason {
        // The fix rehearsal comes 2 ms before the fix is due; a fix 20 ms late is a receiver's hiccup.
        case .fix: 20_000_000
        // A local engine answers in milliseconds; one that takes longer is not worth polling for.
        case .answer: 50_000_000
        }
    }

    /// Each window's end, nanoseconds; nil when closed. Two fields, not a dictionary: opened and closed on every
    /// fix, with nothing allocated.
    private var fixEnd: Int64?
    private var answerEnd: Int64?

    /// `reason`'s window's end, nanoseconds; nil when it is closed.
    func end(of reason: Reason) -> Int64? {
        switch reason {
        case .fix: fixEnd
        case .answer: answerEnd
        }
    }

    private mutating func setEnd(_ end: Int64?, of reason: Reason) {
        switch reason {
        case .fix: fixEnd = end
        case .answer: answerEnd = end
        }
    }

    /// Opens (or extends) `reason`'s window at `now`.
    mutating func open(_ reason: Reason, now: Int64) {
        let (end, overflow) = now.addingReportingOverflow(Self.longest(reason))
        setEnd(overflow ? Int64.max : end, of: reason)
    }

    mutating func close(_ reason: Reason) {
        setEnd(nil, of: reason)
    }

    /// Closes every window whose end has come by `now`.
    mutating func expire(now: Int64) {
        if let end = fixEnd, end <= now { fixEnd = nil }
        if let end = answerEnd, end <= now { answerEnd = nil }
    }

    /// Whether the CPUs are to be held awake.
    var isOpen: Bool { fixEnd != nil || answerEnd != nil }

    /// The end of the window that closes first, nanoseconds; nil when none is open.
    var nextEnd: Int64? {
        switch (fixEnd, answerEnd) {
        case (let fix?, let answer?): min(fix, answer)
        case (let fix?, nil): fix
        case (nil, let answer): answer
        }
    }
}
