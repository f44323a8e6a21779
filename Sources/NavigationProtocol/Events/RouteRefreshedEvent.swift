import NavigationCore

/// `route_refreshed`: the route ahead re-costed by the engine on the same way (`routing.refresh_interval`), or the
/// traffic of an old refresh dropped. The route id, the step, the prompts already sent and the geometry stay; the
/// times, traffic, posted limits and incidents ahead are the refresh's. docs/trip.md#route-refresh.
public struct RouteRefreshedEvent: Codable, Hashable, Sendable {
    /// A stretch of the route ahead with one traffic level.
    public struct Congestion: Codable, Hashable, Sendable {
        /// Metres from the vehicle to where it begins (0 while in it) and ends (one decimal).
        public var from: Double
        public var to: Double
        /// `low`, `moderate`, `heavy`, `severe` or `unknown`, as the engine says.
        public var level: String

        public init(from: Double, to: Double, level: String) {
            self.from = from
            self.to = to
            self.level = level
        }
    }

    /// An incident on the route ahead.
    public struct Incident: Codable, Hashable, Sendable {
        public var id: String
        /// e.g. `accident`, `construction`, `road_closure`.
        public var type: String
        public var description: String?
        public var impact: String?
        /// Metres from the vehicle to where it begins (0 while in it), and its length (one decimal).
        public var distance: Double
        public var length: Double

        public init(id: String, type: String, description: String?, impact: String?, distance: Double, length: Double) {
            self.id = id
            self.type = type
            self.description = description
            self.impact = impact
            self.distance = distance
            self.length = length
        }
    }

    /// The refresh's calculation session (absent when old traffic was dropped).
    public var session: Int?
    /// Seconds the engine now expects from the vehicle to the destination (one decimal).
    public var durationRemaining: Double
    /// Seconds more (positive) or fewer than the route said before (one decimal).
    public var change: Double
    /// The whole route's seconds, as a `route` event would say (one decimal).
    public var duration: Double
    /// Segments ahead whose posted limit changed.
    public var speedLimitsChanged: Int
    public var congestion: [Congestion]
    public var incidents: [Incident]
    /// True when this drops the traffic (congestion, incidents) of a refresh older than three intervals.
    public var expired: Bool
    /// The engine that answered (absent when old traffic was dropped).
    public var engine: EngineIdentity?

    public init(
        session: Int?, durationRemaining: Double, change: Double, duration: Double, speedLimitsChanged: Int, congestion: [Congestion],
        incidents: [Incident], expired: Bool, engine: EngineIdentity?
    ) {
        self.session = session
        self.durationRemaining = durationRemaining
        self.change = change
        self.duration = duration
        self.speedLimitsChanged = speedLimitsChanged
        self.congestion = congestion
        self.incidents = incidents
        self.expired = expired
        self.engine = engine
    }
}

extension RouteRefreshedEvent {
    /// One line for logs and timelines: the time left and its change, the incidents ahead.
    public var summary: String {
        if expired { return "route refreshed: traffic too old, dropped" }
        let sign = change >= 0 ? "+" : "−"
        return "route refreshed: \(HumanReadable.duration(durationRemaining)) left (\(sign)\(HumanReadable.duration(abs(change)))), "
            + "\(incidents.count) incident(s) ahead"
    }
}
