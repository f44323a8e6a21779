/// A place the route must pass.
public struct Waypoint: Hashable, Sendable, Codable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// A stop: the route ends a leg here, and arrival is announced.
        case `break`
        /// A shaping point: the route passes through without a stop or an announcement.
        case via
    }

    public var coordinate: GeographicCoordinate
    public var kind: Kind
    /// Engine-specific properties merged into this location's entry of the request (for Valhalla, for
    /// example, `heading`, `radius`, `preferred_side`; see ``ValhallaWaypointProperties`` in RouteAdapters).
    public var properties: [String: JSONValue]
    /// In a route: metres the engine moved this waypoint from where it was asked for to the road it routes on
    /// (OSRM-format `waypoints[].distance`), when the engine said. A large one at the origin means the trip starts
    /// off the road network (a parking lot, a yard).
    public var snapDistance: Double?

    public init(coordinate: GeographicCoordinate, kind: Kind = .break, properties: [String: JSONValue] = [:]) {
        self.coordinate = coordinate
        self.kind = kind
        self.properties = properties
    }

    private enum CodingKeys: String, CodingKey { case lat, lon, kind, properties, snapDistance }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        coordinate = GeographicCoordinate(
            latitude: try c.decode(Double.self, forKey: .lat), longitude: try c.decode(Double.self, forKey: .lon))
        kind = try c.decodeIfPresent(Kind.self, forKey: .kind) ?? .break
        properties = try c.decodeIfPresent([String: JSONValue].self, forKey: .properties) ?? [:]
        if let snap = try c.decodeIfPresent(Double.self, forKey: .snapDistance) {
            guard let checked = CheckedNumber.measure(snap, in: PhysicalRange.routeDistance) else {
                throw DecodingError.dataCorruptedError(forKey: .snapDistance, in: c, debugDescription: "\(snap) m is outside \(PhysicalRange.routeDistance)")
            }
            snapDistance = checked
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(coordinate.latitude, forKey: .lat)
        try c.encode(coordinate.longitude, forKey: .lon)
        try c.encode(kind, forKey: .kind)
        if !properties.isEmpty { try c.encode(properties, forKey: .properties) }
        try c.encodeIfPresent(snapDistance, forKey: .snapDistance)
    }
}
