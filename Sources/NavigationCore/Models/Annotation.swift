/// Unit of a posted speed limit.
public enum SpeedUnit: String, Hashable, Sendable, Codable {
    case kilometersPerHour = "km/h"
    case milesPerHour = "mph"
    case knots = "knots"

    /// Metres per second in one of this unit.
    public var metersPerSecond: Double {
        switch self {
        case .kilometersPerHour: 1000.0 / 3600.0
        case .milesPerHour: 1609.344 / 3600.0
        case .knots: 1852.0 / 3600.0
        }
    }
}

/// The posted speed limit on a segment, as OSRM-style `maxspeed` annotations describe it.
public enum MaxSpeed: Hashable, Sendable {
    /// A posted limit in the given unit.
    case limit(value: Double, unit: SpeedUnit)
    /// The server knows there is no limit.
    case none
    /// The server does not know the limit.
    case unknown

    /// The limit in metres per second, when there is one.
    public var metersPerSecond: Double? {
        if case .limit(let value, let unit) = self { return value * unit.metersPerSecond }
        return nil
    }
}

/// Everything the server says about one segment of the route geometry (between two consecutive points).
///
/// Annotations are open: any key the server sends is kept in ``values``. Typed accessors cover the
/// common keys of OSRM, Valhalla and Mapbox.
public struct SegmentAnnotation: Hashable, Sendable, Codable {
    public var values: [String: JSONValue]

    public init(values: [String: JSONValue]) {
        self.values = values
    }

    // Annotations are kept as the server sent them; each number is checked as it is read, and one outside its
    // range reads as unknown (nil), like a missing one.

    /// Typical travel speed on the segment, metres per second (`speed`), 0 to 1000.
    public var speed: Double? { CheckedNumber.measure(values["speed"], in: PhysicalRange.routeSpeed) }
    /// Travel time along the segment, seconds (`duration`), up to 100 days.
    public var duration: Double? { CheckedNumber.measure(values["duration"], in: PhysicalRange.routeDuration) }
    /// Length of the segment, metres (`distance`), up to 100 000 km.
    public var distance: Double? { CheckedNumber.measure(values["distance"], in: PhysicalRange.routeDistance) }
    /// Traffic level, e.g. `low`, `moderate`, `heavy`, `severe`, `unknown` (`congestion`).
    public var congestion: String? { values["congestion"]?.stringValue }

    /// The posted speed limit (`maxspeed`): `{"speed":50,"unit":"km/h"}`, `{"none":true}` or `{"unknown":true}`.
    public var maxSpeed: MaxSpeed? {
        guard let object = values["maxspeed"]?.objectValue else { return nil }
        if object["none"]?.boolValue == true { return MaxSpeed.none }
        if object["unknown"]?.boolValue == true { return .unknown }
        guard let speed = CheckedNumber.measure(object["speed"], in: PhysicalRange.routeSpeed) else { return .unknown }
        let unit = object["unit"]?.stringValue.flatMap(SpeedUnit.init(rawValue:)) ?? .kilometersPerHour
        return .limit(value: speed, unit: unit)
    }

    public init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: JSONValue].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(values)
    }
}

/// A traffic incident on the route (Mapbox-style `incidents`).
public struct Incident: Hashable, Sendable, Codable {
    public var id: String
    /// e.g. `accident`, `congestion`, `construction`, `road_closure`.
    public var type: String
    public var description: String?
    /// e.g. `minor`, `major`, `critical`.
    public var impact: String?
    /// Index of the first point of the incident in the step's geometry (clamped into the step).
    public var geometryIndexStart: Int
    /// Index of the last point of the incident in the step's geometry (clamped into the step).
    public var geometryIndexEnd: Int
    /// Everything else the server sent about the incident.
    public var properties: [String: JSONValue]

    public init(
        id: String, type: String, description: String? = nil, impact: String? = nil, geometryIndexStart: Int,
        geometryIndexEnd: Int, properties: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.type = type
        self.description = description
        self.impact = impact
        self.geometryIndexStart = geometryIndexStart
        self.geometryIndexEnd = geometryIndexEnd
        self.properties = properties
    }
}
