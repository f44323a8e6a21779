import NavigationCore

// The wire shapes of the OSRM family of responses (OSRM, Valhalla's OSRM format, Mapbox, GraphHopper's
// navigate endpoint), read from a parsed JSONValue. Every field is optional: the parser decides what is
// required and says what is missing. A field of the wrong type is an error naming its path.

/// Where a value is in the answer, e.g. `routes[0].legs`: written out only when an error names it (an answer has
/// thousands of objects, and building each one's path as text was a fifth of the parsing time).
indirect enum FieldPath: CustomStringConvertible {
    case root(String)
    case key(FieldPath, String)
    case index(FieldPath, Int)

    var description: String {
        switch self {
        case .root(let name): name
        case .key(let parent, let key):
            switch parent {
            case .root(let name) where name.isEmpty: key
            default: "\(parent).\(key)"
            }
        case .index(let parent, let index): "\(parent)[\(index)]"
        }
    }
}

/// Typed, path-aware access to a JSON object.
struct JSONFields {
    let values: [String: JSONValue]
    let path: FieldPath

    init(_ value: JSONValue, path: FieldPath) throws(RouteParseError) {
        guard case .object(let object) = value else { throw RouteParseError.typeMismatch(path: "\(path)", expected: "an object") }
        values = object
        self.path = path
    }

    /// The path of a field of this object, e.g. `routes[0].legs`.
    func sub(_ key: String) -> String { "\(FieldPath.key(path, key))" }

    private func present(_ key: String) -> JSONValue? {
        guard let value = values[key], value != .null else { return nil }
        return value
    }

    /// A number inside `range` (``CheckedNumber``): a value outside it (`1e300`, a negative distance) is a wrong
    /// answer, an error naming the field, never a number passed on to the controller or the socket.
    func double(_ key: String, in range: ClosedRange<Double>) throws(RouteParseError) -> Double? {
        guard let value = present(key) else { return nil }
        guard case .number(let n) = value else { throw RouteParseError.typeMismatch(path: sub(key), expected: "a number") }
        guard let checked = CheckedNumber.measure(n, in: range) else {
            throw RouteParseError.typeMismatch(path: sub(key), expected: "a number from \(range.lowerBound) to \(range.upperBound), not \(n)")
        }
        return checked
    }

    /// A whole number inside `range` (``CheckedNumber``); an error naming the field otherwise.
    func int(_ key: String, in range: ClosedRange<Int>) throws(RouteParseError) -> Int? {
        guard let value = present(key) else { return nil }
        guard case .number(let n) = value else { throw RouteParseError.typeMismatch(path: sub(key), expected: "an integer") }
        guard let checked = CheckedNumber.whole(n, in: range) else {
            throw RouteParseError.typeMismatch(path: sub(key), expected: "an integer from \(range.lowerBound) to \(range.upperBound), not \(n)")
        }
        return checked
    }

    func string(_ key: String) throws(RouteParseError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let s) = value else { throw RouteParseError.typeMismatch(path: sub(key), expected: "a string") }
        return s
    }

    func bool(_ key: String) throws(RouteParseError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let b) = value else { throw RouteParseError.typeMismatch(path: sub(key), expected: "true or false") }
        return b
    }

    func array(_ key: String) throws(RouteParseError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard case .array(let a) = value else { throw RouteParseError.typeMismatch(path: sub(key), expected: "an array") }
        return a
    }

    func doubles(_ key: String) throws(RouteParseError) -> [Double]? {
        guard let items = try array(key) else { return nil }
        var result: [Double] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .number(let n) = item else { throw RouteParseError.typeMismatch(path: "\(sub(key))[\(i)]", expected: "a number") }
            result.append(n)
        }
        return result
    }

    func strings(_ key: String) throws(RouteParseError) -> [String]? {
        guard let items = try array(key) else { return nil }
        var result: [String] = []
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else { throw RouteParseError.typeMismatch(path: "\(sub(key))[\(i)]", expected: "a string") }
            result.append(s)
        }
        return result
    }

    func object(_ key: String) throws(RouteParseError) -> JSONFields? {
        guard let value = present(key) else { return nil }
        return try JSONFields(value, path: .key(path, key))
    }

    /// An array of objects, each read with `make`.
    func objects<T>(_ key: String, _ make: (JSONFields) throws(RouteParseError) -> T) throws(RouteParseError) -> [T]? {
        guard let items = try array(key) else { return nil }
        var result: [T] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            result.append(try make(try JSONFields(item, path: .index(.key(path, key), i))))
        }
        return result
    }
}

struct OSRMResponseDTO {
    var code: String?
    var message: String?
    var routes: [OSRMRouteDTO]?
    var matchings: [OSRMRouteDTO]?
    var waypoints: [OSRMWaypointDTO]?
    // Valhalla's own error shape.
    var errorCode: Int?
    var error: String?

    init(_ f: JSONFields) throws(RouteParseError) {
        code = try f.string("code")
        message = try f.string("message")
        errorCode = try f.int("error_code", in: Int(Int32.min)...Int(Int32.max))
        error = try f.string("error")
        // An error answer is reported as such, whatever else it holds.
        if (code.map { $0.lowercased() != "ok" } ?? false) || errorCode != nil { return }
        routes = try f.objects("routes", OSRMRouteDTO.init)
        matchings = try f.objects("matchings", OSRMRouteDTO.init)
        waypoints = try f.objects("waypoints", OSRMWaypointDTO.init)
    }
}

struct OSRMWaypointDTO {
    var location: [Double]?
    var name: String?
    /// Metres between the location asked for and `location`, where the engine snapped it to the road.
    var distance: Double?

    init(_ f: JSONFields) throws(RouteParseError) {
        location = try f.doubles("location")
        name = try f.string("name")
        distance = try f.double("distance", in: PhysicalRange.routeDistance)
    }
}

/// A geometry: an encoded polyline, or GeoJSON when a client asked for `geometries=geojson`.
enum GeometryDTO {
    case polyline(String)
    case coordinates([[Double]], path: String)

    init?(_ f: JSONFields, key: String) throws(RouteParseError) {
        guard let value = f.values[key], value != .null else { return nil }
        if case .string(let text) = value {
            self = .polyline(text)
            return
        }
        guard let object = try f.object(key), let pairs = try object.array("coordinates") else {
            throw RouteParseError.typeMismatch(path: f.sub(key), expected: "an encoded polyline or a GeoJSON LineString")
        }
        var result: [[Double]] = []
        for (i, pair) in pairs.enumerated() {
            guard case .array(let numbers) = pair else {
                throw RouteParseError.typeMismatch(path: "\(object.path).coordinates[\(i)]", expected: "[lon, lat]")
            }
            result.append(numbers.compactMap(\.doubleValue))
        }
        self = .coordinates(result, path: "\(object.path).coordinates")
    }
}

struct OSRMRouteDTO {
    var distance: Double?
    var duration: Double?
    var geometry: GeometryDTO?
    var legs: [OSRMLegDTO]?

    init(_ f: JSONFields) throws(RouteParseError) {
        distance = try f.double("distance", in: PhysicalRange.routeDistance)
        duration = try f.double("duration", in: PhysicalRange.routeDuration)
        geometry = try GeometryDTO(f, key: "geometry")
        legs = try f.objects("legs", OSRMLegDTO.init)
    }
}

struct OSRMViaWaypointDTO {
    /// An index into a route's geometry: far more points than any answer of the size navd accepts holds.
    static let geometryIndexRange = 0...(1 << 31)
    var geometryIndex: Int?

    init(_ f: JSONFields) throws(RouteParseError) {
        geometryIndex = try f.int("geometry_index", in: Self.geometryIndexRange)
    }
}

struct OSRMLegDTO {
    var distance: Double?
    var duration: Double?
    var steps: [OSRMStepDTO]?
    /// Annotation columns: every key whose value is an array (per-segment values). Others (OSRM's `metadata`) are skipped.
    var annotation: [String: [JSONValue]]
    var incidents: [OSRMIncidentDTO]?
    var viaWaypoints: [OSRMViaWaypointDTO]?
    /// The countries the leg crosses (ISO 3166-1 codes), indexed by the intersections' `admin_index`.
    var admins: [String]?

    init(_ f: JSONFields) throws(RouteParseError) {
        distance = try f.double("distance", in: PhysicalRange.routeDistance)
        duration = try f.double("duration", in: PhysicalRange.routeDuration)
        steps = try f.objects("steps", OSRMStepDTO.init)
        annotation = [:]
        if let columns = try f.object("annotation") {
            for (key, value) in columns.values {
                if case .array(let items) = value { annotation[key] = items }
            }
        }
        incidents = try f.objects("incidents", OSRMIncidentDTO.init)
        viaWaypoints = try f.objects("via_waypoints", OSRMViaWaypointDTO.init)
        admins = try f.objects("admins") { (a: JSONFields) throws(RouteParseError) -> String in
            if let code = try a.string("iso_3166_1") { return code }
            return try a.string("iso_3166_1_alpha3") ?? ""
        }
    }
}

struct OSRMIncidentDTO {
    var id: String?
    var type: String?
    var description: String?
    var impact: String?
    var geometryIndexStart: Int?
    var geometryIndexEnd: Int?
    var properties: [String: JSONValue] = [:]

    static let knownKeys: Set<String> = ["id", "type", "description", "impact", "geometry_index_start", "geometry_index_end"]

    init(_ f: JSONFields) throws(RouteParseError) {
        id = try f.string("id") ?? (try? f.int("id", in: PhysicalRange.identifier)).flatMap { $0.map(String.init) }
        type = try f.string("type")
        description = try f.string("description")
        impact = try f.string("impact")
        geometryIndexStart = try f.int("geometry_index_start", in: OSRMViaWaypointDTO.geometryIndexRange)
        geometryIndexEnd = try f.int("geometry_index_end", in: OSRMViaWaypointDTO.geometryIndexRange)
        properties = f.values.filter { !Self.knownKeys.contains($0.key) }
    }
}

struct OSRMManeuverDTO {
    var type: String?
    var modifier: String?
    var location: [Double]?
    var bearingBefore: Double?
    var bearingAfter: Double?
    var instruction: String?
    var exit: Int?

    init(_ f: JSONFields) throws(RouteParseError) {
        type = try f.string("type")
        modifier = try f.string("modifier")
        location = try f.doubles("location")
        bearingBefore = try f.double("bearing_before", in: PhysicalRange.course)
        bearingAfter = try f.double("bearing_after", in: PhysicalRange.course)
        instruction = try f.string("instruction")
        exit = try f.int("exit", in: 0...1000)
    }
}

struct OSRMLaneDTO {
    var indications: [String]?
    var valid: Bool?
    var active: Bool?
    var validIndication: String?

    init(_ f: JSONFields) throws(RouteParseError) {
        indications = try f.strings("indications")
        valid = try f.bool("valid")
        active = try f.bool("active")
        validIndication = try f.string("valid_indication")
    }
}

struct OSRMIntersectionDTO {
    var lanes: [OSRMLaneDTO]?
    /// `[lon, lat]`.
    var location: [Double]?
    var classes: [String]?
    var tunnelName: String?
    var tollCollection: String?
    var restStopType: String?
    var restStopName: String?
    /// Index into the leg's `admins`.
    var adminIndex: Int?

    init(_ f: JSONFields) throws(RouteParseError) {
        lanes = try f.objects("lanes", OSRMLaneDTO.init)
        location = try f.doubles("location")
        classes = try f.strings("classes")
        tunnelName = try f.string("tunnel_name")
        tollCollection = try f.object("toll_collection").flatMap { (t: JSONFields) throws(RouteParseError) in try t.string("type") }
        if let stop = try f.object("rest_stop") {
            restStopType = try stop.string("type")
            restStopName = try stop.string("name")
        }
        adminIndex = try f.int("admin_index", in: 0...10_000)
    }
}

struct OSRMStepDTO {
    var distance: Double?
    var duration: Double?
    var geometry: GeometryDTO?
    var name: String?
    var ref: String?
    var destinations: String?
    var exits: String?
    var rotaryName: String?
    var drivingSide: String?
    var maneuver: OSRMManeuverDTO?
    var intersections: [OSRMIntersectionDTO]?
    var bannerInstructions: [OSRMBannerDTO]?
    var voiceInstructions: [OSRMVoiceDTO]?

    init(_ f: JSONFields) throws(RouteParseError) {
        distance = try f.double("distance", in: PhysicalRange.routeDistance)
        duration = try f.double("duration", in: PhysicalRange.routeDuration)
        geometry = try GeometryDTO(f, key: "geometry")
        name = try f.string("name")
        ref = try f.string("ref")
        destinations = try f.string("destinations")
        exits = try f.string("exits")
        rotaryName = try f.string("rotary_name")
        drivingSide = try f.string("driving_side")
        maneuver = try f.object("maneuver").map { (m: JSONFields) throws(RouteParseError) in try OSRMManeuverDTO(m) }
        intersections = try f.objects("intersections", OSRMIntersectionDTO.init)
        bannerInstructions = try f.objects("bannerInstructions", OSRMBannerDTO.init)
        voiceInstructions = try f.objects("voiceInstructions", OSRMVoiceDTO.init)
    }
}

struct OSRMBannerComponentDTO {
    var text: String?
    var type: String?
    var active: Bool?
    var directions: [String]?
    var activeDirection: String?

    init(_ f: JSONFields) throws(RouteParseError) {
        text = try f.string("text")
        type = try f.string("type")
        active = try f.bool("active")
        directions = try f.strings("directions")
        activeDirection = try f.string("active_direction")
    }
}

struct OSRMBannerContentDTO {
    var text: String?
    var type: String?
    var modifier: String?
    var degrees: Double?
    var components: [OSRMBannerComponentDTO]?

    init(_ f: JSONFields) throws(RouteParseError) {
        text = try f.string("text")
        type = try f.string("type")
        modifier = try f.string("modifier")
        degrees = try f.double("degrees", in: -360...360)
        components = try f.objects("components", OSRMBannerComponentDTO.init)
    }
}

struct OSRMBannerDTO {
    var distanceAlongGeometry: Double?
    var primary: OSRMBannerContentDTO?
    var secondary: OSRMBannerContentDTO?
    var sub: OSRMBannerContentDTO?

    init(_ f: JSONFields) throws(RouteParseError) {
        distanceAlongGeometry = try f.double("distanceAlongGeometry", in: PhysicalRange.routeDistance)
        primary = try f.object("primary").map { (c: JSONFields) throws(RouteParseError) in try OSRMBannerContentDTO(c) }
        secondary = try f.object("secondary").map { (c: JSONFields) throws(RouteParseError) in try OSRMBannerContentDTO(c) }
        sub = try f.object("sub").map { (c: JSONFields) throws(RouteParseError) in try OSRMBannerContentDTO(c) }
    }
}

struct OSRMVoiceDTO {
    var distanceAlongGeometry: Double?
    var announcement: String?
    var ssmlAnnouncement: String?

    init(_ f: JSONFields) throws(RouteParseError) {
        distanceAlongGeometry = try f.double("distanceAlongGeometry", in: PhysicalRange.routeDistance)
        announcement = try f.string("announcement")
        ssmlAnnouncement = try f.string("ssmlAnnouncement")
    }
}
