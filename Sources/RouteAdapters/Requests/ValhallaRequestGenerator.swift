import FoundationEssentials
import Glibc
import NavigationCore

/// Builds Valhalla `/route` requests that answer in OSRM format with banner and voice instructions.
public struct ValhallaRequestGenerator: RouteRequestGenerator {
    public var baseURL: String { didSet { routeURL = Self.routeURL(base: baseURL) } }
    /// `baseURL` joined with `/route`, or why it cannot be: made once per base, not per request (Foundation's URL
    /// parser, cold by the time a `navigate` comes, took about 30 µs of its way to the engine).
    private var routeURL: Result<String, RouteRequestError>
    /// Valhalla costing model: `auto`, `truck`, `bicycle`, `pedestrian`, `motor_scooter`, ...
    public var profile: String
    /// `kilometers` or `miles`: units of the spoken and written distances.
    public var units: String
    /// Language of instructions, e.g. `en-US`, `fi-FI`.
    public var language: String
    /// Extra body keys merged over the defaults (e.g. `costing_options`, `alternates`). Objects merge key by key.
    public var options: [String: JSONValue]

    public init(
        baseURL: String, profile: String = "auto", units: String = "kilometers", language: String = "en-US",
        options: [String: JSONValue] = [:]
    ) {
        self.baseURL = baseURL
        routeURL = Self.routeURL(base: baseURL)
        self.profile = profile
        self.units = units
        self.language = language
        self.options = options
    }

    private static func routeURL(base: String) -> Result<String, RouteRequestError> {
        Result { () throws(RouteRequestError) in try makeURL(base: base, path: "/route") }
    }

    /// Shape attributes asked for so that routes carry per-segment annotations (speed, limit, time, length).
    static let annotationFilter: JSONValue = [
        "action": "include",
        "attributes": [
            "shape_attributes.speed", "shape_attributes.speed_limit", "shape_attributes.time",
            "shape_attributes.length",
        ],
    ]

    public func routeRequest(for query: RouteQuery) throws -> HTTPRequestSpec {
        guard !query.waypoints.isEmpty else { throw RouteRequestError.noWaypoints }
        var locations: [JSONValue] = [.object(Self.originLocation(query.origin))]
        for waypoint in query.waypoints {
            try Self.validate(waypoint.coordinate)
            locations.append(.object(Self.location(for: waypoint)))
        }
        try Self.validate(query.origin.coordinate)
        var body: JSONValue = [
            "locations": .array(locations),
            "costing": .string(profile),
            "format": "osrm",
            "banner_instructions": true,
            "voice_instructions": true,
            "units": .string(units),
            "language": .string(language),
            "filters": Self.annotationFilter,
        ]
        if query.alternatives > 0 { body = body.merging(["alternates": .number(Double(query.alternatives))]) }
        body = body.merging(.object(options)).merging(.object(query.options))
        return HTTPRequestSpec(
            method: .post, url: try routeURL.get(),
            headers: ["Content-Type": "application/json", "Accept": "application/json"], body: encodeJSONBody(body))
    }

    /// The start: the vehicle's fix. Its course becomes `heading` (so the route leaves in the direction of
    /// travel instead of asking for a U-turn) and its accuracy becomes `street_side_tolerance`.
    static func originLocation(_ origin: UserLocation) -> [String: JSONValue] {
        var location: [String: JSONValue] = [
            "lat": .number(origin.coordinate.latitude), "lon": .number(origin.coordinate.longitude), "type": "break",
        ]
        if let course = origin.course {
            location["heading"] = .number(course.degrees.rounded())
            if let accuracy = course.accuracy {
                // Valhalla's default tolerance is 60°; never ask for less than 15° (noise) or more than 90°.
                location["heading_tolerance"] = .number(min(90, max(15, accuracy.rounded())))
            }
        }
        // Valhalla's default is 5 m; a less accurate fix cannot tell which side of the street it is on.
        location["street_side_tolerance"] = .number(max(5, origin.horizontalAccuracy.rounded(.up)))
        return location
    }

    static func location(for waypoint: Waypoint) -> [String: JSONValue] {
        var location = waypoint.properties
        let allowUTurns = location.removeValue(forKey: "allow_uturns")?.boolValue ?? true
        location["lat"] = .number(waypoint.coordinate.latitude)
        location["lon"] = .number(waypoint.coordinate.longitude)
        switch (waypoint.kind, allowUTurns) {
        case (.break, true): location["type"] = "break"
        case (.break, false): location["type"] = "break_through"
        case (.via, true): location["type"] = "via"
        case (.via, false): location["type"] = "through"
        }
        return location
    }

    static func validate(_ c: GeographicCoordinate) throws {
        guard c.isValid else { throw RouteRequestError.invalidCoordinate(c) }
    }
}

/// Builds Valhalla `/trace_route` map-matching requests (OSRM format, with instructions), to snap an
/// external track to the road network and navigate it.
public struct ValhallaMapMatchingRequestGenerator: MapMatchingRequestGenerator {
    public var baseURL: String
    public var profile: String
    public var units: String
    public var language: String
    public var options: [String: JSONValue]
    /// Valhalla's `shape_match`: `map_snap` for a recorded track (the default); `edge_walk` for a shape that
    /// follows the road network's edges exactly (a route's own geometry, to re-cost it: a route refresh).
    public var shapeMatch: String

    public init(
        baseURL: String, profile: String = "auto", units: String = "kilometers", language: String = "en-US",
        options: [String: JSONValue] = [:], shapeMatch: String = "map_snap"
    ) {
        self.baseURL = baseURL
        self.profile = profile
        self.units = units
        self.language = language
        self.options = options
        self.shapeMatch = shapeMatch
    }

    public func matchRequest(for trace: [TracePoint]) throws -> HTTPRequestSpec {
        guard trace.count >= 2 else { throw RouteRequestError.traceTooShort(count: trace.count) }
        var shape: [JSONValue] = []
        for (index, point) in trace.enumerated() {
            try ValhallaRequestGenerator.validate(point.coordinate)
            var entry: [String: JSONValue] = [
                "lat": .number(point.coordinate.latitude), "lon": .number(point.coordinate.longitude),
                // Only the ends are stops; everything between only shapes the path.
                "type": index == 0 || index == trace.count - 1 ? "break" : "via",
            ]
            if let time = point.timestamp { entry["time"] = .number(time.timeIntervalSince1970.rounded()) }
            if let radius = point.radius { entry["radius"] = .number(radius.rounded(.up)) }
            shape.append(.object(entry))
        }
        var body: JSONValue = [
            "shape": .array(shape),
            "costing": .string(profile),
            "shape_match": .string(shapeMatch),
            "format": "osrm",
            "banner_instructions": true,
            "voice_instructions": true,
            "units": .string(units),
            "language": .string(language),
            "filters": ValhallaRequestGenerator.annotationFilter,
        ]
        if trace.allSatisfy({ $0.timestamp != nil }) { body = body.merging(["use_timestamps": true]) }
        body = body.merging(.object(options))
        return HTTPRequestSpec(
            method: .post, url: try makeURL(base: baseURL, path: "/trace_route"),
            headers: ["Content-Type": "application/json", "Accept": "application/json"], body: encodeJSONBody(body))
    }
}
