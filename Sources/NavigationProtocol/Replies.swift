import NavigationCore

// The `result` of each command's reply, typed (docs/protocol.md lists them).

/// `navigate`: the calculation session started.
public struct NavigateReply: Codable, Hashable, Sendable {
    public var session: Int
    /// True when navd has no fix yet: the session waits for one.
    public var waitingForFix: Bool
    /// Seconds since the fix the route starts from arrived (navd's clock).
    public var originAge: Double?
    /// True when that fix is older than `gnss.watchdog_timeout`.
    public var originStale: Bool?

    public init(session: Int, waitingForFix: Bool, originAge: Double? = nil, originStale: Bool? = nil) {
        self.session = session
        self.waitingForFix = waitingForFix
        self.originAge = originAge
        self.originStale = originStale
    }

    /// The reply's `result` object: what `JSONValueEncoder` makes of this value (nil members left out), made by
    /// hand. A `navigate`'s reply is made before its route's request goes to the engine, and the `Encodable`
    /// machinery, cold by then, took about 40 µs of that.
    public var resultObject: [String: JSONValue] {
        var object: [String: JSONValue] = ["session": .number(Double(session)), "waitingForFix": .bool(waitingForFix)]
        if let originAge { object["originAge"] = .number(originAge) }
        if let originStale { object["originStale"] = .bool(originStale) }
        return object
    }
}

/// `snap_route`: the map-matching session started.
public struct SessionReply: Codable, Hashable, Sendable {
    public var session: Int
    public init(session: Int) { self.session = session }
}

/// `add_stop`, `remove_stop`, `skip_waypoint`: the calculation from the current position through the new list.
public struct StopsReply: Codable, Hashable, Sendable {
    /// Most waypoints a trip routes through at once (as `navigate` takes).
    public static let waypointLimit = 50
    public var session: Int
    /// The waypoints still ahead once the route is found, the destination last.
    public var waypoints: [LatLon]
    public init(session: Int, waypoints: [LatLon]) {
        self.session = session
        self.waypoints = waypoints
    }
}

/// `choose_route`: the route navigated now.
public struct ChooseRouteReply: Codable, Hashable, Sendable {
    public var routeId: String
    /// The index chosen; the route of index 0 of `navigate`'s alternatives is the one already navigated.
    public var index: Int
    public init(routeId: String, index: Int) {
        self.routeId = routeId
        self.index = index
    }
}

/// `route`: the trip's route now; both absent (null) without a trip or before its first route.
public struct CurrentRouteReply: Codable, Hashable, Sendable {
    public var routeId: String?
    /// The whole route (docs/route-format.md): geometry, steps, waypoints.
    public var route: Route?
    public init(routeId: String?, route: Route?) {
        self.routeId = routeId
        self.route = route
    }

    public func encode(to encoder: any Encoder) throws {
        // Both keys always present: null says "no route" as plainly as a route says which.
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(routeId, forKey: .routeId)
        try container.encode(route, forKey: .route)
    }
}

/// `repeat`: what is said.
public struct RepeatReply: Codable, Hashable, Sendable {
    public var text: String
    public init(text: String) { self.text = text }
}

/// `cancel`.
public struct CancelReply: Codable, Hashable, Sendable {
    /// False when there was no trip.
    public var cancelledTrip: Bool
    public init(cancelledTrip: Bool) { self.cancelledTrip = cancelledTrip }
}

/// `advance`: the step navigated now, or arrival.
public struct AdvanceReply: Codable, Hashable, Sendable {
    /// Null once arrived.
    public var stepIndex: Int?
    public var arrived: Bool

    public init(stepIndex: Int?, arrived: Bool) {
        self.stepIndex = stepIndex
        self.arrived = arrived
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stepIndex, forKey: .stepIndex)
        try c.encode(arrived, forKey: .arrived)
    }
}

/// `cancel_calculation`: the sessions cancelled.
public struct CancelCalculationReply: Codable, Hashable, Sendable {
    public var cancelled: [Int]
    public init(cancelled: [Int]) { self.cancelled = cancelled }
}

/// `subscribe`: the topics this client now receives.
public struct SubscribeReply: Codable, Hashable, Sendable {
    public var topics: [EventType]
    public init(topics: [EventType]) { self.topics = topics }
}

/// `record`: the flight recorder's state after the command.
public struct RecordReply: Codable, Hashable, Sendable {
    public var recording: Bool
    /// The recording's first file (start, status).
    public var path: String?
    /// Every file written (stop): the first, then its parts.
    public var files: [String]?
    /// Bytes written (stop).
    public var bytes: Int?
    /// Seconds recorded.
    public var seconds: Double?

    public init(recording: Bool, path: String? = nil, files: [String]? = nil, bytes: Int? = nil, seconds: Double? = nil) {
        self.recording = recording
        self.path = path
        self.files = files
        self.bytes = bytes
        self.seconds = seconds
    }
}
