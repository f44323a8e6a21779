/// A route from the vehicle's position through its waypoints, ready to navigate.
public struct Route: Hashable, Sendable {
    /// The whole route's polyline.
    public var geometry: [GeographicCoordinate]
    public var boundingBox: BoundingBox
    /// Length, metres.
    public var distance: Double
    /// Expected travel time, seconds.
    public var duration: Double
    /// The waypoints the route was computed through (start, stops and shaping points), in order.
    public var waypoints: [Waypoint]
    /// Every step of every leg, in order. Each leg ends with an `arrive` step.
    public var steps: [RouteStep]
    /// What navd changed in the engine's answer and why (instructions in another language or units than asked
    /// for, written by navd instead); empty for an answer used as it came.
    public var notices: [String] = []

    public init(
        geometry: [GeographicCoordinate], boundingBox: BoundingBox? = nil, distance: Double, duration: Double,
        waypoints: [Waypoint], steps: [RouteStep]
    ) {
        self.geometry = geometry
        self.boundingBox =
            boundingBox ?? BoundingBox(enclosing: geometry)
            ?? BoundingBox(southWest: .init(latitude: 0, longitude: 0), northEast: .init(latitude: 0, longitude: 0))
        self.distance = distance
        self.duration = duration
        self.waypoints = waypoints
        self.steps = steps
    }

    /// Number of legs (stretches between stops).
    public var legCount: Int { (steps.last?.legIndex ?? 0) + 1 }
}

extension Route: Codable {
    private enum CodingKeys: String, CodingKey {
        case geometry, boundingBox, distance, duration, waypoints, steps, notices
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            geometry: try c.decode(LineStringCoding.self, forKey: .geometry).coordinates,
            boundingBox: try c.decodeIfPresent(BoundingBox.self, forKey: .boundingBox),
            distance: try c.decode(Double.self, forKey: .distance),
            duration: try c.decode(Double.self, forKey: .duration),
            waypoints: try c.decodeIfPresent([Waypoint].self, forKey: .waypoints) ?? [],
            steps: try c.decode([RouteStep].self, forKey: .steps))
        notices = try c.decodeIfPresent([String].self, forKey: .notices) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(LineStringCoding(geometry), forKey: .geometry)
        try c.encode(boundingBox, forKey: .boundingBox)
        try c.encode(distance, forKey: .distance)
        try c.encode(duration, forKey: .duration)
        try c.encode(waypoints, forKey: .waypoints)
        try c.encode(steps, forKey: .steps)
        if !notices.isEmpty { try c.encode(notices, forKey: .notices) }
    }
}

/// The document navctl writes and reads: `{"routes": [...]}` (see docs/route-format.md).
public struct RouteDocument: Hashable, Sendable, Codable {
    public var routes: [Route]
    public init(routes: [Route]) { self.routes = routes }
}
