import NavigationCore

/// The figures at the top of a drive report.
public struct DriveSummary: Sendable, Equatable {
    /// Metres navd counted as driven (the arrival's, else the last trip state's).
    public var distanceDriven: Double
    /// Seconds from the trip's start to arrival (nil without arrival).
    public var tripDuration: Double?
    /// Seconds the recording covers.
    public var recordingSeconds: Double
    public var arrived: Bool
    public var routes: Int
    public var reroutes: Int
    public var deviations: Int
    /// Seconds (receiver time) navd considered the vehicle off its route.
    public var secondsOffRoute: Double
    public var fixes: Int
    public var noFixEpochs: Int
    /// Fixes per second of receiver time.
    public var fixRate: Double
    /// Fix accuracy (metres, 68%): median, 95th percentile, worst.
    public var accuracyMedian: Double?
    public var accuracyP95: Double?
    public var accuracyWorst: Double?
    public var sessions: Int
    public var failedSessions: Int
    /// Trip states navd predicted through an outage.
    public var predictedStates: Int

    public init(_ log: DriveLog) {
        let arrival = log.arrival
        distanceDriven = arrival?.distanceTravelled ?? log.states.last(where: { $0.distanceTravelled != nil })?.distanceTravelled ?? 0
        tripDuration = arrival?.duration
        recordingSeconds = log.span
        arrived = arrival != nil
        routes = log.routes.count
        reroutes = log.routes.filter { $0.reason == "reroute" }.count
        deviations = log.deviations.count
        var off = 0.0
        for (state, next) in zip(log.states, log.states.dropFirst()) where state.offRoute {
            off += max(0, (next.fixTime ?? next.at) - (state.fixTime ?? state.at))
        }
        secondsOffRoute = off
        fixes = log.fixes.count
        noFixEpochs = log.noFixEpochs
        let fixSpan = (log.fixes.last?.time ?? 0) - (log.fixes.first?.time ?? 0)
        fixRate = fixSpan > 0 ? Double(log.fixes.count - 1) / fixSpan : 0
        let accuracies = log.fixes.map(\.accuracy).sorted()
        accuracyMedian = Self.percentile(accuracies, 0.5)
        accuracyP95 = Self.percentile(accuracies, 0.95)
        accuracyWorst = accuracies.last
        sessions = log.sessions.count
        failedSessions = log.sessions.filter { $0.outcome == "failed" }.count
        predictedStates = log.states.filter(\.predicted).count
    }

    /// Nearest-rank percentile of sorted values; nil when there are none.
    public static func percentile(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = CheckedNumber.clampedWhole(fraction * Double(sorted.count), rounding: .up, in: 0...sorted.count)
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
