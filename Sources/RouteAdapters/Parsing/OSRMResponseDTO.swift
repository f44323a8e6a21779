import NavigationCore

// The wire shapes of the OSRM family of responses (OSRM, Valhalla's OSRM format, Mapbox, GraphHopper's
// navigate endpoint), read from the answer's bytes in one pass (``JSONReader``): each object's members in the order
// they come, the ones navd uses into typed fields, the rest skipped (still checked as JSON). Every field is
// optional: the parser decides what is required and says what is missing. A field of the wrong type is an error
// naming its path. A key that repeats: the last one counts.

struct OSRMResponseDTO {
    var code: String?
    var message: String?
    var routes: [OSRMRouteDTO]?
    var matchings: [OSRMRouteDTO]?
    var waypoints: [OSRMWaypointDTO]?
    // Valhalla's own error shape.
    var errorCode: Int?
    var error: String?

    /// An engine's error answer: it is reported as such, whatever else it holds.
    var isEngineError: Bool { (code.map { $0.lowercased() != "ok" } ?? false) || errorCode != nil }

    /// `envelopeOnly`: read only the code and error fields, skipping the routes.
    init(_ r: inout JSONReader, envelopeOnly: Bool = false) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "code": code = try r.string("code")
            case "message": message = try r.string("message")
            case "error_code": errorCode = try r.int("error_code", in: Int(Int32.min)...Int(Int32.max))
            case "error": error = try r.string("error")
            case "routes" where !envelopeOnly && !isEngineError: routes = try r.objects("routes", OSRMRouteDTO.init)
            case "matchings" where !envelopeOnly && !isEngineError: matchings = try r.objects("matchings", OSRMRouteDTO.init)
            case "waypoints" where !envelopeOnly && !isEngineError: waypoints = try r.objects("waypoints", OSRMWaypointDTO.init)
            default: try r.skipValue()
            }
        }
        if isEngineError {
            routes = nil
            matchings = nil
            waypoints = nil
        }
    }
}

/// A position as an answer writes it, `[lon, lat]`, read without an array on the heap: an answer has one for every
/// intersection, and the array was most of the cost of reading one. Numbers after the first two (an altitude) are
/// kept only for an error's message.
struct PositionDTO {
    private var first: Double?
    private var second: Double?
    private var more: [Double] = []
    /// How many numbers it had.
    private(set) var count = 0

    mutating func append(_ number: Double) {
        switch count {
        case 0: first = number
        case 1: second = number
        default: more.append(number)
        }
        count += 1
    }

    /// The position's coordinate, when it has at least two numbers (longitude first, as GeoJSON has it); not
    /// checked against the globe.
    var coordinate: GeographicCoordinate? {
        guard let first, let second else { return nil }
        return GeographicCoordinate(latitude: second, longitude: first)
    }

    /// Its numbers as they came, for an error's message.
    var numbers: [Double] { [first, second].compactMap { $0 } + more }
}

struct OSRMWaypointDTO {
    var location: PositionDTO?
    var name: String?
    /// Metres between the location asked for and `location`, where the engine snapped it to the road.
    var distance: Double?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "location": location = try r.position("location")
            case "name": name = try r.string("name")
            case "distance": distance = try r.double("distance", in: PhysicalRange.routeDistance)
            default: try r.skipValue()
            }
        }
    }
}

/// A geometry: an encoded polyline, or GeoJSON when a client asked for `geometries=geojson`.
enum GeometryDTO {
    case polyline(String)
    case coordinates([[Double]])

    /// The geometry at `key`, or nil for `null`.
    init?(_ r: inout JSONReader, _ key: String) throws {
        switch try r.kind() {
        case .null:
            _ = try r.readNull()
            return nil
        case .string:
            self = .polyline(try r.readString())
        case .object:
            var coordinates: [[Double]]?
            var members = try r.beginObject()
            while let member = try r.nextKey(&members) {
                guard case "coordinates" = member else {
                    try r.skipValue()
                    continue
                }
                coordinates = try r.array("\(key).coordinates") { reader, _ in
                    guard try reader.kind() == .array else { throw RouteParseError.typeMismatch(path: "", expected: "[lon, lat]") }
                    var numbers: [Double] = []
                    var items = try reader.beginArray()
                    while try reader.nextItem(&items) {
                        // Anything but a number in a position is left out (a position needs two numbers).
                        if try reader.kind() == .number { numbers.append(try reader.readNumber()) } else { try reader.skipValue() }
                    }
                    return numbers
                }
            }
            guard let coordinates else {
                throw RouteParseError.typeMismatch(path: key, expected: "an encoded polyline or a GeoJSON LineString")
            }
            self = .coordinates(coordinates)
        default:
            throw RouteParseError.typeMismatch(path: key, expected: "an encoded polyline or a GeoJSON LineString")
        }
    }
}

struct OSRMRouteDTO {
    var distance: Double?
    var duration: Double?
    var geometry: GeometryDTO?
    var legs: [OSRMLegDTO]?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "distance": distance = try r.double("distance", in: PhysicalRange.routeDistance)
            case "duration": duration = try r.double("duration", in: PhysicalRange.routeDuration)
            case "geometry": geometry = try GeometryDTO(&r, "geometry")
            case "legs": legs = try r.objects("legs", OSRMLegDTO.init)
            default: try r.skipValue()
            }
        }
    }
}

struct OSRMViaWaypointDTO {
    /// An index into a route's geometry: far more points than any answer of the size navd accepts holds.
    static let geometryIndexRange = 0...(1 << 31)
    var geometryIndex: Int?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "geometry_index": geometryIndex = try r.int("geometry_index", in: Self.geometryIndexRange)
            default: try r.skipValue()
            }
        }
    }
}

struct OSRMLegDTO {
    var distance: Double?
    var duration: Double?
    var steps: [OSRMStepDTO]?
    /// Annotation columns: every key whose value is an array (per-segment values). Others (OSRM's `metadata`) are skipped.
    var annotation: [String: [JSONValue]] = [:]
    var incidents: [OSRMIncidentDTO]?
    var viaWaypoints: [OSRMViaWaypointDTO]?
    /// The countries the leg crosses (ISO 3166-1 codes), indexed by the intersections' `admin_index`.
    var admins: [String]?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "distance": distance = try r.double("distance", in: PhysicalRange.routeDistance)
            case "duration": duration = try r.double("duration", in: PhysicalRange.routeDuration)
            case "steps": steps = try r.objects("steps", OSRMStepDTO.init)
            case "annotation":
                annotation = [:]
                guard var columns = try r.optionalMembers("annotation") else { continue }
                // A leg's columns have a value per segment each: room for the last column's count saves growing
                // each one from empty (doubling about eight times for a city route).
                var expectedCount = 0
                while let column = try r.nextKey(&columns) {
                    guard try r.kind() == .array else {
                        try r.skipValue()
                        continue
                    }
                    var items = try r.beginArray()
                    let name = column.string
                    var values: [JSONValue] = []
                    values.reserveCapacity(expectedCount)
                    var repeated = JSONReader.RepeatedValue()
                    while try r.nextItem(&items) { values.append(try r.readValue(repeating: &repeated)) }
                    expectedCount = values.count
                    annotation[name] = values
                }
            case "incidents": incidents = try r.objects("incidents", OSRMIncidentDTO.init)
            case "via_waypoints": viaWaypoints = try r.objects("via_waypoints", OSRMViaWaypointDTO.init)
            case "admins":
                admins = try r.objects("admins") { reader in
                    var alpha2: String?
                    var alpha3: String?
                    var members = try reader.members()
                    while let key = try reader.nextKey(&members) {
                        switch key {
                        case "iso_3166_1": alpha2 = try reader.string("iso_3166_1")
                        case "iso_3166_1_alpha3": alpha3 = try reader.string("iso_3166_1_alpha3")
                        default: try reader.skipValue()
                        }
                    }
                    return alpha2 ?? alpha3 ?? ""
                }
            default: try r.skipValue()
            }
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
    /// Every other member, as the server sent it.
    var properties: [String: JSONValue] = [:]

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "id":
                // A text or a whole number.
                id = try r.kind() == .number ? try r.int("id", in: PhysicalRange.identifier).map(String.init) : try r.string("id")
            case "type": type = try r.string("type")
            case "description": description = try r.string("description")
            case "impact": impact = try r.string("impact")
            case "geometry_index_start": geometryIndexStart = try r.int("geometry_index_start", in: OSRMViaWaypointDTO.geometryIndexRange)
            case "geometry_index_end": geometryIndexEnd = try r.int("geometry_index_end", in: OSRMViaWaypointDTO.geometryIndexRange)
            default: properties[key.string] = try r.readValue()
            }
        }
    }
}

struct OSRMManeuverDTO {
    var type: String?
    var modifier: String?
    var location: PositionDTO?
    var bearingBefore: Double?
    var bearingAfter: Double?
    var instruction: String?
    var exit: Int?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "type": type = try r.string("type")
            case "modifier": modifier = try r.string("modifier")
            case "location": location = try r.position("location")
            case "bearing_before": bearingBefore = try r.double("bearing_before", in: PhysicalRange.course)
            case "bearing_after": bearingAfter = try r.double("bearing_after", in: PhysicalRange.course)
            case "instruction": instruction = try r.string("instruction")
            case "exit": exit = try r.int("exit", in: 0...1000)
            default: try r.skipValue()
            }
        }
    }
}

struct OSRMLaneDTO {
    var indications: [String]?
    var valid: Bool?
    var active: Bool?
    var validIndication: String?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "indications": indications = try r.strings("indications")
            case "valid": valid = try r.bool("valid")
            case "active": active = try r.bool("active")
            case "valid_indication": validIndication = try r.string("valid_indication")
            default: try r.skipValue()
            }
        }
    }
}

struct OSRMIntersectionDTO {
    /// Read for a step's first intersection only, where navd takes a step's lanes from (the others' are skipped).
    let lanes: [OSRMLaneDTO]?
    /// From `[lon, lat]`; nil when absent or with fewer than two numbers. Not checked against the globe.
    let location: GeographicCoordinate?
    let classes: KnownRoadClasses
    let tunnelName: String?
    let tollCollection: String?
    let restStopType: String?
    let restStopName: String?
    /// Index into the leg's `admins`.
    let adminIndex: Int?

    /// `readsLanes`: false to skip the lanes (still checked as JSON).
    init(_ r: inout JSONReader, readsLanes: Bool) throws {
        // Read into locals and stored once at the end: members set on `self` one by one had the whole value copied
        // out and the original destroyed when the initializer returned, once per intersection.
        var lanes: [OSRMLaneDTO]?
        var location: GeographicCoordinate?
        var classes = KnownRoadClasses()
        var tunnelName: String?
        var tollCollection: String?
        var restStopType: String?
        var restStopName: String?
        var adminIndex: Int?
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "lanes" where readsLanes: lanes = try r.objects("lanes", OSRMLaneDTO.init)
            case "location": location = try r.position("location")?.coordinate
            case "classes": classes = try r.knownRoadClasses("classes")
            case "tunnel_name": tunnelName = try r.string("tunnel_name")
            case "toll_collection":
                tollCollection = nil
                guard var toll = try r.optionalMembers("toll_collection") else { continue }
                while let member = try r.nextKey(&toll) {
                    if case "type" = member { tollCollection = try r.string("toll_collection.type") } else { try r.skipValue() }
                }
            case "rest_stop":
                (restStopType, restStopName) = (nil, nil)
                guard var stop = try r.optionalMembers("rest_stop") else { continue }
                while let member = try r.nextKey(&stop) {
                    switch member {
                    case "type": restStopType = try r.string("rest_stop.type")
                    case "name": restStopName = try r.string("rest_stop.name")
                    default: try r.skipValue()
                    }
                }
            case "admin_index": adminIndex = try r.int("admin_index", in: 0...10_000)
            default: try r.skipValue()
            }
        }
        self.lanes = lanes
        self.location = location
        self.classes = classes
        self.tunnelName = tunnelName
        self.tollCollection = tollCollection
        self.restStopType = restStopType
        self.restStopName = restStopName
        self.adminIndex = adminIndex
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

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "distance": distance = try r.double("distance", in: PhysicalRange.routeDistance)
            case "duration": duration = try r.double("duration", in: PhysicalRange.routeDuration)
            case "geometry": geometry = try GeometryDTO(&r, "geometry")
            case "name": name = try r.string("name")
            case "ref": ref = try r.string("ref")
            case "destinations": destinations = try r.string("destinations")
            case "exits": exits = try r.string("exits")
            case "rotary_name": rotaryName = try r.string("rotary_name")
            case "driving_side": drivingSide = try r.string("driving_side")
            case "maneuver": maneuver = try r.readNull() ? nil : try r.within("maneuver") { reader in try OSRMManeuverDTO(&reader) }
            case "intersections":
                intersections = try r.array("intersections") { reader, index in try OSRMIntersectionDTO(&reader, readsLanes: index == 0) }
            case "bannerInstructions": bannerInstructions = try r.objects("bannerInstructions", OSRMBannerDTO.init)
            case "voiceInstructions": voiceInstructions = try r.objects("voiceInstructions", OSRMVoiceDTO.init)
            default: try r.skipValue()
            }
        }
    }
}

struct OSRMBannerComponentDTO {
    var text: String?
    var type: String?
    var active: Bool?
    var directions: [String]?
    var activeDirection: String?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "text": text = try r.string("text")
            case "type": type = try r.string("type")
            case "active": active = try r.bool("active")
            case "directions": directions = try r.strings("directions")
            case "active_direction": activeDirection = try r.string("active_direction")
            default: try r.skipValue()
            }
        }
    }
}

struct OSRMBannerContentDTO {
    var text: String?
    var type: String?
    var modifier: String?
    var degrees: Double?
    var components: [OSRMBannerComponentDTO]?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "text": text = try r.string("text")
            case "type": type = try r.string("type")
            case "modifier": modifier = try r.string("modifier")
            case "degrees": degrees = try r.double("degrees", in: -360...360)
            case "components": components = try r.objects("components", OSRMBannerComponentDTO.init)
            default: try r.skipValue()
            }
        }
    }

    /// The content at `key`, or nil for `null`.
    static func optional(_ r: inout JSONReader, _ key: String) throws -> Self? {
        try r.readNull() ? nil : try r.within(key) { reader in try Self(&reader) }
    }
}

struct OSRMBannerDTO {
    var distanceAlongGeometry: Double?
    var primary: OSRMBannerContentDTO?
    var secondary: OSRMBannerContentDTO?
    var sub: OSRMBannerContentDTO?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "distanceAlongGeometry": distanceAlongGeometry = try r.double("distanceAlongGeometry", in: PhysicalRange.routeDistance)
            case "primary": primary = try OSRMBannerContentDTO.optional(&r, "primary")
            case "secondary": secondary = try OSRMBannerContentDTO.optional(&r, "secondary")
            case "sub": sub = try OSRMBannerContentDTO.optional(&r, "sub")
            default: try r.skipValue()
            }
        }
    }
}

struct OSRMVoiceDTO {
    var distanceAlongGeometry: Double?
    var announcement: String?
    var ssmlAnnouncement: String?

    init(_ r: inout JSONReader) throws {
        var members = try r.members()
        while let key = try r.nextKey(&members) {
            switch key {
            case "distanceAlongGeometry": distanceAlongGeometry = try r.double("distanceAlongGeometry", in: PhysicalRange.routeDistance)
            case "announcement": announcement = try r.string("announcement")
            case "ssmlAnnouncement": ssmlAnnouncement = try r.string("ssmlAnnouncement")
            default: try r.skipValue()
            }
        }
    }
}
