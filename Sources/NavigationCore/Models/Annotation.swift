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

    /// The limit an annotation's `maxspeed` member gives: `{"speed":50,"unit":"km/h"}` (no unit: km/h),
    /// `{"none":true}` or `{"unknown":true}`; a speed outside 0–1000 reads as unknown. Nil when `member` is not
    /// an object.
    public init?(annotation member: JSONValue?) {
        guard case .object(let object)? = member else { return nil }
        // One pass over a member or two, rather than a hashed lookup of each possible key.
        var none = false, unknown = false
        var speed: JSONValue?, unitName: String?
        for (key, value) in object {
            switch key {
            case "none": none = value.boolValue == true
            case "unknown": unknown = value.boolValue == true
            case "speed": speed = value
            case "unit": unitName = value.stringValue
            default: continue
            }
        }
        if none { self = .none; return }
        guard !unknown, let value = CheckedNumber.measure(speed, in: PhysicalRange.routeSpeed) else { self = .unknown; return }
        self = .limit(value: value, unit: unitName.flatMap(SpeedUnit.init(rawValue:)) ?? .kilometersPerHour)
    }

    /// The limit in metres per second, when there is one.
    public var metersPerSecond: Double? {
        if case .limit(let value, let unit) = self { return value * unit.metersPerSecond }
        return nil
    }
}

/// Everything the server says about one segment of the route geometry (between two consecutive points).
///
/// Annotations are open: any member the server sends is kept (``values``, or one by name). Typed accessors cover
/// the common keys of OSRM, Valhalla and Mapbox. A segment of a step is a view of the step's
/// ``SegmentAnnotations`` (the step's columns are shared, not copied).
public struct SegmentAnnotation: Sendable {
    private let table: SegmentAnnotations
    private let segment: Int

    init(table: SegmentAnnotations, segment: Int) {
        self.table = table
        self.segment = segment
    }

    public init(values: [String: JSONValue]) {
        var table = SegmentAnnotations(emptySegments: 1)
        table.setSegment(0, to: values)
        self.init(table: table, segment: 0)
    }

    /// Member `name` as the server sent it, nil when the segment does not have it.
    public subscript(name: String) -> JSONValue? { table.value(name, at: segment) }

    /// Every member, as the server sent them.
    public var values: [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        table.forEachMember(of: segment) { name, value in values[name] = value }
        return values
    }

    // Annotations are kept as the server sent them; each number is checked as it is read, and one outside its
    // range reads as unknown (nil), like a missing one.

    /// Typical travel speed on the segment, metres per second (`speed`), 0 to 1000.
    public var speed: Double? { CheckedNumber.measure(self["speed"], in: PhysicalRange.routeSpeed) }
    /// Travel time along the segment, seconds (`duration`), up to 100 days.
    public var duration: Double? { CheckedNumber.measure(self["duration"], in: PhysicalRange.routeDuration) }
    /// Length of the segment, metres (`distance`), up to 100 000 km.
    public var distance: Double? { CheckedNumber.measure(self["distance"], in: PhysicalRange.routeDistance) }
    /// Traffic level, e.g. `low`, `moderate`, `heavy`, `severe`, `unknown` (`congestion`).
    public var congestion: String? { self["congestion"]?.stringValue }

    /// The posted speed limit (`maxspeed`): `{"speed":50,"unit":"km/h"}`, `{"none":true}` or `{"unknown":true}`.
    public var maxSpeed: MaxSpeed? { MaxSpeed(annotation: self["maxspeed"]) }
}

extension SegmentAnnotation: Hashable {
    /// Equal when the members are: which step a segment was read from does not count.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        SegmentAnnotations.segment(lhs.segment, of: lhs.table, equals: rhs.segment, of: rhs.table)
    }

    public func hash(into hasher: inout Hasher) {
        table.forEachMember(of: segment) { name, value in
            hasher.combine(name)
            hasher.combine(value)
        }
    }
}

extension SegmentAnnotation: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(values: try decoder.singleValueContainer().decode([String: JSONValue].self))
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
