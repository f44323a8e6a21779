import NavigationCore

/// What navd is doing: `hello`'s `state` and `status`'s result.
public struct Snapshot: Codable, Hashable, Sendable {
    public enum Phase: String, Codable, Hashable, Sendable {
        case idle
        case waitingForFix = "waiting_for_fix"
        case calculating, navigating
        /// A trip restored from the journal, waiting for the first fix to re-snap.
        case resuming
    }
    public struct GNSS: Codable, Hashable, Sendable {
        public struct Rejected: Codable, Hashable, Sendable {
            public var backwardsInTime: Int
            public var repeatedTime: Int
            public var impossibleSpeed: Int
            /// Absent from navd 0.6.0's lines (recordings made before it existed): read as 0.
            public var timeJump: Int

            public init(backwardsInTime: Int, repeatedTime: Int, impossibleSpeed: Int, timeJump: Int = 0) {
                self.backwardsInTime = backwardsInTime
                self.repeatedTime = repeatedTime
                self.impossibleSpeed = impossibleSpeed
                self.timeJump = timeJump
            }

            public init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                backwardsInTime = try container.decode(Int.self, forKey: .backwardsInTime)
                repeatedTime = try container.decode(Int.self, forKey: .repeatedTime)
                impossibleSpeed = try container.decode(Int.self, forKey: .impossibleSpeed)
                timeJump = try container.decodeIfPresent(Int.self, forKey: .timeJump) ?? 0
            }

            /// Fixes refused for any reason.
            public var total: Int { backwardsInTime + repeatedTime + impossibleSpeed + timeJump }
        }
        public var status: GNSSEvent.Status
        public var detail: String
        /// Fixes the plausibility gate refused since navd started, by reason.
        public var rejectedFixes: Rejected
        /// Seconds since the last accepted fix arrived (navd's clock); absent before the first.
        public var lastFixAge: Double?

        public init(status: GNSSEvent.Status, detail: String, rejectedFixes: Rejected, lastFixAge: Double?) {
            self.status = status
            self.detail = detail
            self.rejectedFixes = rejectedFixes
            self.lastFixAge = lastFixAge
        }
    }
    public struct Calculation: Codable, Hashable, Sendable {
        public var session: Int
        public var purpose: RouteCalculationEvent.Purpose
        public var waitingForFix: Bool
        public var attempts: Int

        public init(session: Int, purpose: RouteCalculationEvent.Purpose, waitingForFix: Bool, attempts: Int) {
            self.session = session
            self.purpose = purpose
            self.waitingForFix = waitingForFix
            self.attempts = attempts
        }
    }
    public struct Reroute: Codable, Hashable, Sendable {
        /// `automatic`, `report_only` or `off`.
        public var policy: String
        /// `if_still_off_route` or `always`.
        public var accept: String
        /// During a loop backoff: when rerouting resumes (ISO 8601 UTC, fix time); null otherwise.
        public var resumesAt: String?

        public init(policy: String, accept: String, resumesAt: String?) {
            self.policy = policy
            self.accept = accept
            self.resumesAt = resumesAt
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(policy, forKey: .policy)
            try c.encode(accept, forKey: .accept)
            try c.encode(resumesAt, forKey: .resumesAt)
        }
    }
    public struct RouteSummary: Codable, Hashable, Sendable {
        /// Metres, seconds (one decimal).
        public var distance: Double
        public var duration: Double
        public var steps: Int
        public var reroutes: Int

        public init(distance: Double, duration: Double, steps: Int, reroutes: Int) {
            self.distance = distance
            self.duration = duration
            self.steps = steps
            self.reroutes = reroutes
        }
    }
    public var phase: Phase
    /// The active route's id; null without one.
    public var routeId: String?
    public var gnss: GNSS
    public var calculations: [Calculation]
    public var reroute: Reroute
    public var lastFix: TripStateRecord.Point?
    /// ISO 8601 UTC, the receiver's time of the last fix.
    public var lastFixTime: String?
    public var route: RouteSummary?
    /// The destinations as the client asked for them (origin excluded).
    public var destinations: [LatLon]?
    public var tripState: TripStateRecord?
    /// The voice mode and the language voice clients speak (as the `voice` event).
    public var voice: VoiceEvent?
    /// `status` only: whether the asking peer has control rights.
    public var control: Bool?

    public init(phase: Phase, routeId: String?, gnss: GNSS, calculations: [Calculation], reroute: Reroute) {
        self.phase = phase
        self.routeId = routeId
        self.gnss = gnss
        self.calculations = calculations
        self.reroute = reroute
    }

    private enum CodingKeys: String, CodingKey {
        case phase, routeId, gnss, calculations, reroute, lastFix, lastFixTime, route, destinations, tripState, voice, control
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(phase, forKey: .phase)
        // Always present, null without a route.
        try c.encode(routeId, forKey: .routeId)
        try c.encode(gnss, forKey: .gnss)
        try c.encode(calculations, forKey: .calculations)
        try c.encode(reroute, forKey: .reroute)
        try c.encodeIfPresent(lastFix, forKey: .lastFix)
        try c.encodeIfPresent(lastFixTime, forKey: .lastFixTime)
        try c.encodeIfPresent(route, forKey: .route)
        try c.encodeIfPresent(destinations, forKey: .destinations)
        try c.encodeIfPresent(tripState, forKey: .tripState)
        try c.encodeIfPresent(voice, forKey: .voice)
        try c.encodeIfPresent(control, forKey: .control)
    }
}
