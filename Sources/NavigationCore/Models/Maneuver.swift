/// The kind of maneuver at the start of a step, as named by the OSRM/Mapbox family of APIs.
///
/// Unknown names are kept as ``other(_:)``: a server that invents a new maneuver type never fails a route.
public enum ManeuverType: Hashable, Sendable {
    case turn, newName, depart, arrive, merge, onRamp, offRamp, fork, endOfRoad, `continue`
    case roundabout, rotary, roundaboutTurn, exitRoundabout, exitRotary, notification, useLane
    case other(String)

    private static let names: [(ManeuverType, String)] = [
        (.turn, "turn"), (.newName, "new name"), (.depart, "depart"), (.arrive, "arrive"), (.merge, "merge"),
        (.onRamp, "on ramp"), (.offRamp, "off ramp"), (.fork, "fork"), (.endOfRoad, "end of road"),
        (.continue, "continue"), (.roundabout, "roundabout"), (.rotary, "rotary"),
        (.roundaboutTurn, "roundabout turn"), (.exitRoundabout, "exit roundabout"), (.exitRotary, "exit rotary"),
        (.notification, "notification"), (.useLane, "use lane"),
    ]

    public init(name: String) {
        let normalized = String(name.lowercased().map { $0 == "_" ? " " : $0 })
        self = Self.names.first { $0.1 == normalized }?.0 ?? .other(name)
    }

    /// The API name, e.g. `"end of road"`.
    public var name: String {
        if case .other(let raw) = self { return raw }
        return Self.names.first { $0.0 == self }!.1
    }

    /// True for maneuvers that enter a roundabout or rotary.
    public var entersRoundabout: Bool {
        self == .roundabout || self == .rotary || self == .roundaboutTurn
    }
}

/// The direction of a maneuver relative to the direction of travel.
public enum ManeuverModifier: Hashable, Sendable {
    case uTurn, sharpRight, right, slightRight, straight, slightLeft, left, sharpLeft
    case other(String)

    private static let names: [(ManeuverModifier, String)] = [
        (.uTurn, "uturn"), (.sharpRight, "sharp right"), (.right, "right"), (.slightRight, "slight right"),
        (.straight, "straight"), (.slightLeft, "slight left"), (.left, "left"), (.sharpLeft, "sharp left"),
    ]

    public init(name: String) {
        let normalized = String(name.lowercased().map { $0 == "_" ? " " : $0 })
        self = Self.names.first { $0.1 == normalized }?.0 ?? .other(name)
    }

    public var name: String {
        if case .other(let raw) = self { return raw }
        return Self.names.first { $0.0 == self }!.1
    }
}

extension ManeuverType: Codable {
    public init(from decoder: any Decoder) throws { self.init(name: try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}

extension ManeuverModifier: Codable {
    public init(from decoder: any Decoder) throws { self.init(name: try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}

/// Which side of the road traffic drives on.
public enum DrivingSide: String, Hashable, Sendable, Codable {
    case left, right
}

/// The maneuver that starts a step.
public struct Maneuver: Hashable, Sendable, Codable {
    public var type: ManeuverType
    public var modifier: ManeuverModifier?
    /// Where the maneuver happens.
    public var location: GeographicCoordinate
    /// Travel direction just before the maneuver, degrees clockwise from true north, when known.
    public var bearingBefore: Double?
    /// Travel direction just after the maneuver, degrees clockwise from true north, when known.
    public var bearingAfter: Double?

    public init(
        type: ManeuverType, modifier: ManeuverModifier? = nil, location: GeographicCoordinate,
        bearingBefore: Double? = nil, bearingAfter: Double? = nil
    ) {
        self.type = type
        self.modifier = modifier
        self.location = location
        self.bearingBefore = bearingBefore
        self.bearingAfter = bearingAfter
    }
}
