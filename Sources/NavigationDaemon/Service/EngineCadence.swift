/// How long the engine takes to answer, learned from its last answers, and when to rehearse an answer's way
/// while it computes (``NavigationService``'s answer rehearsal, docs/daemon.md *An answer's way rehearsed*).
///
/// Times are nanoseconds of a monotonic clock (the event loop's), passed in: this type reads no clock.
struct EngineCadence: Equatable {
    /// How long before the fastest recent answer's time its way is rehearsed, nanoseconds. An answer's time runs
    /// from the request's write to the answer's last byte, before navd parses it; the rehearsal (0.3–1 ms cold)
    /// then mostly ends before the answer comes, and the engine's own work has little time to evict what it
    /// touched (rehearsed right after the request, 4–6 ms before Valhalla's answer here, it did not shorten the
    /// answer's way).
    static let lead: Int64 = 1_000_000
    /// Engines whose fastest recent answer came sooner than this are not rehearsed for, nanoseconds: the
    /// rehearsal would come less than 1 ms after the request, while the request's own work is still in the
    /// caches, and mostly delay the answer.
    static let shortest: Int64 = 2_000_000
    /// Answers that took longer are not learned from, nanoseconds: a retry, a long route or a remote provider's
    /// bad minute says nothing about the next answer's time, and the rehearsal would come too early.
    static let longest: Int64 = 10_000_000_000
    /// How many of the last answers are remembered.
    static let remembered = 8
    /// An engine whose fastest recent answer came within this is taken for a local one (its whole exchange is
    /// short enough to hold idle CPUs awake for, ``WakeHold``), nanoseconds.
    static let local: Int64 = 50_000_000

    /// How long the last answers took, nanoseconds, oldest first (at most ``remembered``).
    private(set) var recent: [Int64] = []

    /// Records an answer whose last byte came `nanoseconds` after its request was sent; out of range values are
    /// dropped.
    mutating func answered(after nanoseconds: Int64) {
        guard nanoseconds > 0, nanoseconds <= Self.longest else { return }
        if recent.count == Self.remembered { recent.removeFirst() }
        recent.append(nanoseconds)
    }

    /// Whether the engine answers as a local one does (``local``); true before any answer was learned.
    var isLocal: Bool { (recent.min() ?? 0) < Self.local }

    /// How long after a request is sent to rehearse its answer's way, nanoseconds; nil when no answer was learned
    /// or the engine answers too soon to rehearse for (``shortest``).
    var rehearsalDelay: Int64? {
        guard let fastest = recent.min(), fastest >= Self.shortest else { return nil }
        return fastest - Self.lead
    }
}
