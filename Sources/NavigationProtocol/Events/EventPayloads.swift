import NavigationCore

// The payload of every event but `trip_state` (whose payload is NavigationCore's ``TripStateRecord``). Keys are
// camelCase, values snake_case; nil optionals are left out of the line. docs/protocol.md describes each field,
// docs/protocol.schema.json checks them.

/// `instruction`: a banner or a voice prompt, each sent once per route.
public struct InstructionEvent: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable {
        case visual, spoken
    }
    public var kind: Kind
    /// The step whose maneuver the instruction announces (index into the route's steps).
    public var stepIndex: Int
    /// The banner (`kind: visual`) or the prompt (`kind: spoken`), in the route format (docs/route-format.md).
    public var visual: VisualInstruction?
    public var spoken: SpokenInstruction?
    /// The prompt's stable id (spoken only): a client that speaks it once per id never repeats it.
    public var utteranceId: String?

    public static func visual(_ instruction: VisualInstruction, stepIndex: Int) -> InstructionEvent {
        InstructionEvent(kind: .visual, stepIndex: stepIndex, visual: instruction)
    }

    public static func spoken(_ instruction: SpokenInstruction, stepIndex: Int) -> InstructionEvent {
        InstructionEvent(kind: .spoken, stepIndex: stepIndex, spoken: instruction, utteranceId: instruction.utteranceId)
    }

    public init(kind: Kind, stepIndex: Int, visual: VisualInstruction? = nil, spoken: SpokenInstruction? = nil, utteranceId: String? = nil) {
        self.kind = kind
        self.stepIndex = stepIndex
        self.visual = visual
        self.spoken = spoken
        self.utteranceId = utteranceId
    }

    private enum CodingKeys: String, CodingKey { case kind, stepIndex, instruction, utteranceId }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(Kind.self, forKey: .kind)
        stepIndex = try c.decode(Int.self, forKey: .stepIndex)
        utteranceId = try c.decodeIfPresent(String.self, forKey: .utteranceId)
        switch kind {
        case .visual: visual = try c.decode(VisualInstruction.self, forKey: .instruction)
        case .spoken: spoken = try c.decode(SpokenInstruction.self, forKey: .instruction)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(stepIndex, forKey: .stepIndex)
        try c.encodeIfPresent(utteranceId, forKey: .utteranceId)
        if let visual { try c.encode(visual, forKey: .instruction) }
        if let spoken { try c.encode(spoken, forKey: .instruction) }
    }
}

/// `instruction_retracted`: instructions already sent that no longer apply.
public struct InstructionRetractedEvent: Codable, Hashable, Sendable {
    public enum Reason: String, Codable, Hashable, Sendable {
        case reroute, cancel
        case newRoute = "new_route"
        /// A stop was added, removed or skipped: the route through the new list replaces them.
        case stopsChanged = "stops_changed"
        /// A faster way replaced the route (`routing.faster_route`, or an offer chosen).
        case fasterRoute = "faster_route"
        /// A client chose another of the alternatives.
        case routeChosen = "route_chosen"
    }
    public struct Retracted: Codable, Hashable, Sendable {
        public var kind: InstructionEvent.Kind
        public var stepIndex: Int
        public var utteranceId: String?

        public init(kind: InstructionEvent.Kind, stepIndex: Int, utteranceId: String? = nil) {
            self.kind = kind
            self.stepIndex = stepIndex
            self.utteranceId = utteranceId
        }
    }
    public var reason: Reason
    public var instructions: [Retracted]

    public init(reason: Reason, instructions: [Retracted]) {
        self.reason = reason
        self.instructions = instructions
    }
}

/// `deviation`: the vehicle left the route or came back, and what the reroute policy did about it.
public struct DeviationEvent: Codable, Hashable, Sendable {
    public enum Reroute: String, Codable, Hashable, Sendable {
        case requested
        case inFlight = "in_flight"
        case cooldown
        case waitingForMovement = "waiting_for_movement"
        case loopDetected = "loop_detected"
        case loopBackoff = "loop_backoff"
        case reportOnly = "report_only"
    }
    public var offRoute: Bool
    /// Metres from the route.
    public var distance: Double
    /// What the policy does while off the route (absent when back on it).
    public var reroute: Reroute?
    /// During a loop backoff: when rerouting resumes (ISO 8601 UTC, fix time).
    public var rerouteResumesAt: String?

    public init(offRoute: Bool, distance: Double, reroute: Reroute? = nil, rerouteResumesAt: String? = nil) {
        self.offRoute = offRoute
        self.distance = distance
        self.reroute = reroute
        self.rerouteResumesAt = rerouteResumesAt
    }
}

/// `route`: a new active route.
public struct RouteEvent: Codable, Hashable, Sendable {
    public enum Reason: String, Codable, Hashable, Sendable {
        case initial, reroute, snap, resumed
        /// A stop was added (`add_stop`), removed (`remove_stop`) or skipped (`skip_waypoint`).
        case stopAdded = "stop_added"
        case stopRemoved = "stop_removed"
        case waypointSkipped = "waypoint_skipped"
        /// A faster way, taken by navd or chosen by a client.
        case faster
        /// Another of the alternatives, chosen by a client.
        case chosen
    }
    public var reason: Reason
    /// The calculation session that produced it (absent when resumed from the journal).
    public var session: Int?
    /// Metres, seconds (one decimal).
    public var distance: Double
    public var duration: Double
    public var steps: Int
    public var route: Route
    /// `route`'s text written ahead (a long route's, on Swift's pool), which the line carries as it stands; nil:
    /// the line writes it. Not part of the event: not sent as a member, not compared.
    public var routeText: JSONTextWritten?

    public init(reason: Reason, session: Int?, route: Route, routeText: JSONTextWritten? = nil) {
        self.reason = reason
        self.session = session
        distance = (route.distance * 10).rounded() / 10
        duration = (route.duration * 10).rounded() / 10
        steps = route.steps.count
        self.route = route
        self.routeText = routeText
    }

    private enum CodingKeys: String, CodingKey {
        case reason, session, distance, duration, steps, route
    }

    /// The event's members; `routeText` stands for `route` and is not compared.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.reason == rhs.reason && lhs.session == rhs.session && lhs.distance == rhs.distance && lhs.duration == rhs.duration
            && lhs.steps == rhs.steps && lhs.route == rhs.route
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(reason)
        hasher.combine(session)
        hasher.combine(distance)
        hasher.combine(duration)
        hasher.combine(steps)
        hasher.combine(route)
    }
}

/// A routing engine as events name it: its kind and `scheme://host:port` (never a path or query).
public struct EngineIdentity: Codable, Hashable, Sendable {
    /// `valhalla`, `osrm`, `graphhopper` or `custom`.
    public var name: String
    public var server: String

    public init(name: String, server: String) {
        self.name = name
        self.server = server
    }
}

/// Why a calculation (or one of its attempts) failed.
public struct CalculationError: Codable, Hashable, Sendable {
    /// `connection_failed`, `connection_lost`, `timed_out`, `http_NNN`, `engine_refused`, `invalid_response`,
    /// `no_gnss_fix`, `no_route`, `invalid_route`, ... (docs/protocol.md).
    public var code: String
    public var message: String
    /// True when another attempt may succeed.
    public var retryable: Bool

    public init(code: String, message: String, retryable: Bool) {
        self.code = code
        self.message = message
        self.retryable = retryable
    }
}

/// `route_calculation`: progress of a calculation session.
public struct RouteCalculationEvent: Codable, Hashable, Sendable {
    public enum Purpose: String, Codable, Hashable, Sendable {
        case initial, reroute, snap
        /// The route ahead re-costed on the same way (`routing.refresh_interval`).
        case refresh
        /// A look for a faster way from the vehicle (`routing.faster_route`).
        case fasterRoute = "faster_route"
        /// The trip's stops changed: a route from the current position through the new list.
        case addStop = "add_stop"
        case removeStop = "remove_stop"
        case skipWaypoint = "skip_waypoint"

        /// Whether the session changes the stops of the trip being navigated (it continues the trip).
        public var editsStops: Bool { self == .addStop || self == .removeStop || self == .skipWaypoint }
    }
    public enum Status: String, Codable, Hashable, Sendable {
        case inProgress = "in_progress"
        case succeeded, failed, cancelled
    }
    public enum Waiting: String, Codable, Hashable, Sendable {
        /// The session waits for the first fix to route from.
        case gnssFix = "gnss_fix"
        /// It waited and no longer does: the fix arrived.
        case none
    }
    public struct FailedEngine: Codable, Hashable, Sendable {
        public var name: String
        public var server: String
        public var error: CalculationError

        public init(_ engine: EngineIdentity, error: CalculationError) {
            name = engine.name
            server = engine.server
            self.error = error
        }
    }

    public var session: Int
    public var purpose: Purpose
    public var status: Status
    public var waiting: Waiting?
    /// The attempt that failed (counted over the session), while retrying.
    public var attempt: Int?
    /// Attempts over all engines, when the session ended.
    public var attempts: Int?
    /// Seconds until the next attempt (0 when moving on to `fallbackTo`).
    public var retryIn: Double?
    public var error: CalculationError?
    /// The engine that failed this attempt, or that answered.
    public var engine: EngineIdentity?
    public var fallbackTo: EngineIdentity?
    public var failedEngines: [FailedEngine]?
    /// Succeeded: whether the route became the active one.
    public var applied: Bool?
    public var newRouteId: String?
    /// Why a route was not applied, or why the session was cancelled.
    public var reason: String?

    public init(session: Int, purpose: Purpose, status: Status) {
        self.session = session
        self.purpose = purpose
        self.status = status
    }
}

/// `waypoint_reached`: an intermediate stop was passed.
public struct WaypointReachedEvent: Codable, Hashable, Sendable {
    /// Index among the destinations the client asked for (0: the first stop).
    public var index: Int
    /// Degrees.
    public var lat: Double
    public var lon: Double
    public var kind: Waypoint.Kind

    public init(index: Int, coordinate: GeographicCoordinate, kind: Waypoint.Kind) {
        self.index = index
        lat = coordinate.latitude
        lon = coordinate.longitude
        self.kind = kind
    }
}

/// `arrived`: the destination was reached.
public struct ArrivedEvent: Codable, Hashable, Sendable {
    /// Metres navd counted as driven (two decimals).
    public var distanceTravelled: Double
    /// Seconds from the trip's start to arrival (fix times).
    public var duration: Double
    /// ISO 8601 UTC, fix times.
    public var startedAt: String
    public var arrivedAt: String
    public var reroutes: Int
    public var destination: LatLon?

    public init(distanceTravelled: Double, duration: Double, startedAt: String, arrivedAt: String, reroutes: Int, destination: GeographicCoordinate?) {
        self.distanceTravelled = distanceTravelled
        self.duration = duration
        self.startedAt = startedAt
        self.arrivedAt = arrivedAt
        self.reroutes = reroutes
        self.destination = destination.map(LatLon.init)
    }
}

/// `gnss`: GNSS health changed.
public struct GNSSEvent: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Hashable, Sendable {
        case ok, degraded, lost
    }
    public var status: Status
    /// A sentence saying why.
    public var detail: String

    public init(status: Status, detail: String) {
        self.status = status
        self.detail = detail
    }
}

/// A point as the protocol writes it: `lat`, `lon` in degrees.
public struct LatLon: Codable, Hashable, Sendable {
    public var lat: Double
    public var lon: Double

    public init(_ coordinate: GeographicCoordinate) {
        lat = coordinate.latitude
        lon = coordinate.longitude
    }
}
