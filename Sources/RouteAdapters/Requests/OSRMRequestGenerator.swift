import FoundationEssentials
import Glibc
import NavigationCore

/// Builds OSRM `/route/v1/{profile}/{coordinates}` requests: steps, full overview, polyline6 geometry,
/// annotations, and the vehicle's course as the start bearing.
///
/// Per-waypoint engine properties understood: `bearing` (degrees, or `"deg,range"`), `radius` (metres),
/// `approach` (`curb` or `unrestricted`), `hint`. Via waypoints are sent through OSRM's `waypoints`
/// parameter so that they shape the route without splitting it into legs.
public struct OSRMRequestGenerator: RouteRequestGenerator {
    public var baseURL: String
    /// OSRM profile name in the URL (`driving`, `car`, ...; osrm-routed serves one profile whatever the name).
    public var profile: String
    /// Extra query parameters (e.g. `exclude: "toll"`, `alternatives: true`), overriding the defaults.
    public var options: [String: JSONValue]

    public init(baseURL: String, profile: String = "driving", options: [String: JSONValue] = [:]) {
        self.baseURL = baseURL
        self.profile = profile
        self.options = options
    }

    public func routeRequest(for query: RouteQuery) throws -> HTTPRequestSpec {
        guard !query.waypoints.isEmpty else { throw RouteRequestError.noWaypoints }
        let coordinates = [query.origin.coordinate] + query.waypoints.map(\.coordinate)
        for c in coordinates where !c.isValid { throw RouteRequestError.invalidCoordinate(c) }
        var parameters: [String: String] = [
            "steps": "true", "overview": "full", "geometries": "polyline6", "annotations": "true",
        ]
        let perWaypoint = OSRMWaypointParameters(origin: query.origin, waypoints: query.waypoints)
        parameters.merge(perWaypoint.parameters) { _, new in new }
        if query.alternatives > 0 { parameters["alternatives"] = String(query.alternatives) }
        try requireQueryValues(options.merging(query.options) { _, new in new }, engine: "OSRM")
        parameters.merge(queryParameters(options)) { _, new in new }
        parameters.merge(queryParameters(query.options)) { _, new in new }
        let path = "/route/v1/\(percentEncode(profile))/\(osrmCoordinateList(coordinates))"
        return HTTPRequestSpec(
            method: .get, url: try makeURL(base: baseURL, path: path, query: sortedItems(parameters)),
            headers: ["Accept": "application/json"])
    }
}

/// Builds OSRM `/match/v1` map-matching requests for a trace.
public struct OSRMMapMatchingRequestGenerator: MapMatchingRequestGenerator {
    public var baseURL: String
    public var profile: String
    public var options: [String: JSONValue]

    public init(baseURL: String, profile: String = "driving", options: [String: JSONValue] = [:]) {
        self.baseURL = baseURL
        self.profile = profile
        self.options = options
    }

    public func matchRequest(for trace: [TracePoint]) throws -> HTTPRequestSpec {
        guard trace.count >= 2 else { throw RouteRequestError.traceTooShort(count: trace.count) }
        for point in trace where !point.coordinate.isValid { throw RouteRequestError.invalidCoordinate(point.coordinate) }
        var parameters: [String: String] = [
            "steps": "true", "overview": "full", "geometries": "polyline6", "annotations": "true",
            // One matching for the whole trace: a navigable route, not fragments split at gaps.
            "gaps": "ignore", "tidy": "true",
        ]
        if trace.allSatisfy({ $0.timestamp != nil }) {
            parameters["timestamps"] = trace.map { String(CheckedNumber.clampedWhole($0.timestamp!.timeIntervalSince1970)) }
                .joined(separator: ";")
        }
        if trace.contains(where: { $0.radius != nil }) {
            parameters["radiuses"] = trace.map { $0.radius.map { String(CheckedNumber.clampedWhole($0, rounding: .up, in: 0...50)) } ?? "" }
                .joined(separator: ";")
        }
        try requireQueryValues(options, engine: "OSRM")
        parameters.merge(queryParameters(options)) { _, new in new }
        let path = "/match/v1/\(percentEncode(profile))/\(osrmCoordinateList(trace.map(\.coordinate)))"
        return HTTPRequestSpec(
            method: .get, url: try makeURL(base: baseURL, path: path, query: sortedItems(parameters)),
            headers: ["Accept": "application/json"])
    }
}

/// Builds GraphHopper requests for its Mapbox-compatible navigation endpoint
/// (`/navigate/directions/v5/gh/{profile}/{coordinates}`), which answers in the OSRM/Mapbox format with
/// banner and voice instructions. Add `key` to ``options`` for GraphHopper's hosted API.
public struct GraphHopperRequestGenerator: RouteRequestGenerator {
    public var baseURL: String
    /// GraphHopper profile, e.g. `car`, `bike`, `foot`.
    public var profile: String
    public var language: String
    /// `metric` or `imperial`.
    public var voiceUnits: String
    public var options: [String: JSONValue]

    public init(
        baseURL: String, profile: String = "car", language: String = "en", voiceUnits: String = "metric",
        options: [String: JSONValue] = [:]
    ) {
        self.baseURL = baseURL
        self.profile = profile
        self.language = language
        self.voiceUnits = voiceUnits
        self.options = options
    }

    public func routeRequest(for query: RouteQuery) throws -> HTTPRequestSpec {
        guard !query.waypoints.isEmpty else { throw RouteRequestError.noWaypoints }
        let coordinates = [query.origin.coordinate] + query.waypoints.map(\.coordinate)
        for c in coordinates where !c.isValid { throw RouteRequestError.invalidCoordinate(c) }
        var parameters: [String: String] = [
            "geometries": "polyline6", "overview": "full", "steps": "true", "language": language,
            "roundabout_exits": "true", "voice_instructions": "true", "banner_instructions": "true",
            "voice_units": voiceUnits,
        ]
        if let bearings = OSRMWaypointParameters(origin: query.origin, waypoints: query.waypoints).parameters["bearings"] {
            parameters["bearings"] = bearings
        }
        var merged = options
        merged.merge(query.options) { _, new in new }
        if merged.values.contains(where: \.isObject) { return try postRequest(coordinates: coordinates, options: merged) }
        parameters.merge(queryParameters(merged)) { _, new in new }
        let path = "/navigate/directions/v5/gh/\(percentEncode(profile))/\(osrmCoordinateList(coordinates))"
        return HTTPRequestSpec(
            method: .get, url: try makeURL(base: baseURL, path: path, query: sortedItems(parameters)),
            headers: ["Accept": "application/json"])
    }
}

extension GraphHopperRequestGenerator {
    /// `POST /navigate` (GraphHopper 8 and later): a GraphHopper request with `type: mapbox`, answered in the same
    /// Mapbox format. Used when an option is an object a URL cannot carry: a `custom_model` (navd's `avoid`). The
    /// API `key` stays in the query; every other option goes into the body. GraphHopper sets the Mapbox answer's
    /// own parameters (steps, polyline6, voice and banner instructions) itself and refuses them in the body.
    func postRequest(coordinates: [GeographicCoordinate], options: [String: JSONValue]) throws(RouteRequestError) -> HTTPRequestSpec {
        var body: [String: JSONValue] = [
            "type": "mapbox", "profile": .string(profile), "locale": .string(language), "voice_units": .string(voiceUnits),
            "points": .array(coordinates.map { [.number($0.longitude), .number($0.latitude)] }),
        ]
        var query: [String: String] = [:]
        for (key, value) in options {
            if key == "key" { query[key] = queryParameters([key: value])[key] } else { body[key] = value }
        }
        return HTTPRequestSpec(
            method: .post, url: try makeURL(base: baseURL, path: "/navigate", query: sortedItems(query)),
            headers: ["Content-Type": "application/json", "Accept": "application/json"], body: encodeJSONBody(.object(body)))
    }
}

/// The per-coordinate parameters of OSRM-style requests (`bearings`, `radiuses`, `approaches`, `hints`,
/// `waypoints`), each sent only when some coordinate has a value.
struct OSRMWaypointParameters {
    var parameters: [String: String] = [:]

    init(origin: UserLocation, waypoints: [Waypoint]) {
        var bearings = [Self.originBearing(origin)]
        var radiuses: [String] = [""]
        var approaches: [String] = [""]
        var hints: [String] = [""]
        for waypoint in waypoints {
            let p = waypoint.properties
            bearings.append(Self.bearing(p["bearing"]))
            radiuses.append(p["radius"]?.doubleValue.map { String(Self.radiusText($0)) } ?? p["radius"]?.stringValue ?? "")
            approaches.append(p["approach"]?.stringValue ?? "")
            hints.append(p["hint"]?.stringValue ?? "")
        }
        for (name, values) in [("bearings", bearings), ("radiuses", radiuses), ("approaches", approaches), ("hints", hints)]
        where values.contains(where: { !$0.isEmpty }) {
            parameters[name] = values.joined(separator: ";")
        }
        if waypoints.contains(where: { $0.kind == .via }) {
            // Indices of coordinates that end a leg: the start, every stop, and the destination.
            var legEnds = [0]
            for (i, waypoint) in waypoints.enumerated() where waypoint.kind == .break || i == waypoints.count - 1 {
                legEnds.append(i + 1)
            }
            parameters["waypoints"] = legEnds.map(String.init).joined(separator: ";")
        }
    }

    /// `deg,range` from the fix's course: the route then leaves in the direction of travel.
    static func originBearing(_ origin: UserLocation) -> String {
        guard let course = origin.course else { return "" }
        let range = CheckedNumber.clampedWhole(course.accuracy ?? 45, in: 15...90)
        return "\(CheckedNumber.clampedWhole(Geodesy.normalizedDegrees(course.degrees), in: 0...360) % 360),\(range)"
    }

    /// A waypoint's search radius as OSRM takes it: whole metres, rounded up. The navigate command has checked it
    /// against ``PhysicalRange/radius``; held there for any other caller, so that no value traps.
    static func radiusText(_ metres: Double) -> Int {
        CheckedNumber.clampedWhole(metres, rounding: .up, in: 0...Int(PhysicalRange.radius.upperBound))
    }

    static func bearing(_ value: JSONValue?) -> String {
        switch value {
        // 1e400 parses as infinity, which Int() would trap on: a client's option must never stop navd.
        case .number(let degrees)? where degrees.isFinite: "\(CheckedNumber.clampedWhole(Geodesy.normalizedDegrees(degrees), in: 0...360) % 360),45"
        case .string(let text)?: text
        case .array(let pair)? where pair.count == 2:
            "\(CheckedNumber.whole(pair[0], in: 0...360) ?? 0),\(CheckedNumber.whole(pair[1], in: 0...180) ?? 45)"
        default: ""
        }
    }
}

/// Refuses options a query string cannot carry (objects), rather than dropping them without a word.
func requireQueryValues(_ options: [String: JSONValue], engine: String) throws(RouteRequestError) {
    if let key = options.keys.sorted().first(where: { options[$0]!.isObject }) {
        throw RouteRequestError.unsupportedOption(key: key, reason: "\(engine) takes query parameters, and its value is an object")
    }
}

extension JSONValue {
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}

/// Renders engine options as query parameters: strings as they are, numbers without a needless fraction,
/// booleans as `true`/`false`, arrays joined with commas.
func queryParameters(_ options: [String: JSONValue]) -> [String: String] {
    var result: [String: String] = [:]
    for (key, value) in options {
        if let text = queryText(value) { result[key] = text }
    }
    return result
}

private func queryText(_ value: JSONValue) -> String? {
    switch value {
    case .null: nil
    case .bool(let b): b ? "true" : "false"
    case .number(let n): n.rounded() == n && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    case .string(let s): s
    case .array(let items): items.compactMap(queryText).joined(separator: ",")
    case .object: nil
    }
}

/// Query items in key order: the same request always gives the same URL.
func sortedItems(_ parameters: [String: String]) -> [URLQueryItem] {
    parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
}
