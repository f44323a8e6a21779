import NavigationCore

// The wire shapes of the OSRM family of responses (OSRM, Valhalla's OSRM format, Mapbox, GraphHopper's
// navigate endpoint). Every field is optional: the parser decides what is required and says what is missing.

struct OSRMResponseDTO: Decodable {
    var code: String?
    var message: String?
    var routes: [OSRMRouteDTO]?
    var matchings: [OSRMRouteDTO]?
    var waypoints: [OSRMWaypointDTO]?
    // Valhalla's own error shape.
    var error_code: Int?
    var error: String?
}

struct OSRMWaypointDTO: Decodable {
    var location: [Double]?
    var name: String?
}

/// A route geometry: an encoded polyline, or GeoJSON when a client asked for `geometries=geojson`.
enum GeometryDTO: Decodable {
    case polyline(String)
    case coordinates([[Double]])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self) {
            self = .polyline(text)
        } else {
            struct GeoJSON: Decodable { var coordinates: [[Double]] }
            self = .coordinates(try c.decode(GeoJSON.self).coordinates)
        }
    }
}

struct OSRMRouteDTO: Decodable {
    var distance: Double?
    var duration: Double?
    var geometry: GeometryDTO?
    var legs: [OSRMLegDTO]?
}

struct OSRMViaWaypointDTO: Decodable {
    var geometry_index: Int?
    var waypoint_index: Int?
}

struct OSRMLegDTO: Decodable {
    var distance: Double?
    var duration: Double?
    var steps: [OSRMStepDTO]?
    var annotation: [String: AnnotationColumn]?
    var incidents: [OSRMIncidentDTO]?
    var via_waypoints: [OSRMViaWaypointDTO]?
}

/// One annotation key's values along a leg. Numeric columns (the common case) decode on a fast path.
enum AnnotationColumn: Decodable {
    case numbers([Double])
    case values([JSONValue])
    case other(JSONValue)

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let numbers = try? c.decode([Double].self) {
            self = .numbers(numbers)
        } else if let values = try? c.decode([JSONValue].self) {
            self = .values(values)
        } else {
            self = .other(try c.decode(JSONValue.self))
        }
    }

    var count: Int {
        switch self {
        case .numbers(let n): n.count
        case .values(let v): v.count
        case .other: 0
        }
    }

    subscript(index: Int) -> JSONValue? {
        switch self {
        case .numbers(let n): index < n.count ? .number(n[index]) : nil
        case .values(let v): index < v.count ? v[index] : nil
        case .other: nil
        }
    }
}

struct OSRMIncidentDTO: Decodable {
    var id: String?
    var type: String?
    var description: String?
    var impact: String?
    var geometry_index_start: Int?
    var geometry_index_end: Int?
    var properties: [String: JSONValue] = [:]

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        for key in c.allKeys {
            let value = try c.decode(JSONValue.self, forKey: key)
            switch key.stringValue {
            case "id": id = value.stringValue ?? value.doubleValue.map { String(Int64($0)) }
            case "type": type = value.stringValue
            case "description": description = value.stringValue
            case "impact": impact = value.stringValue
            case "geometry_index_start": geometry_index_start = value.doubleValue.map { Int($0) }
            case "geometry_index_end": geometry_index_end = value.doubleValue.map { Int($0) }
            default: properties[key.stringValue] = value
            }
        }
    }
}

struct OSRMManeuverDTO: Decodable {
    var type: String?
    var modifier: String?
    var location: [Double]?
    var bearing_before: Double?
    var bearing_after: Double?
    var instruction: String?
    var exit: Int?
}

struct OSRMLaneDTO: Decodable {
    var indications: [String]?
    var valid: Bool?
    var active: Bool?
    var valid_indication: String?
}

struct OSRMIntersectionDTO: Decodable {
    var lanes: [OSRMLaneDTO]?
}

struct OSRMStepDTO: Decodable {
    var distance: Double?
    var duration: Double?
    var geometry: GeometryDTO?
    var name: String?
    var ref: String?
    var destinations: String?
    var exits: String?
    var rotary_name: String?
    var driving_side: String?
    var maneuver: OSRMManeuverDTO?
    var intersections: [OSRMIntersectionDTO]?
    var bannerInstructions: [OSRMBannerDTO]?
    var voiceInstructions: [OSRMVoiceDTO]?
}

struct OSRMBannerComponentDTO: Decodable {
    var text: String?
    var type: String?
    var active: Bool?
    var directions: [String]?
    var active_direction: String?
}

struct OSRMBannerContentDTO: Decodable {
    var text: String?
    var type: String?
    var modifier: String?
    var degrees: Double?
    var components: [OSRMBannerComponentDTO]?
}

struct OSRMBannerDTO: Decodable {
    var distanceAlongGeometry: Double?
    var primary: OSRMBannerContentDTO?
    var secondary: OSRMBannerContentDTO?
    var sub: OSRMBannerContentDTO?
}

struct OSRMVoiceDTO: Decodable {
    var distanceAlongGeometry: Double?
    var announcement: String?
    var ssmlAnnouncement: String?
}
