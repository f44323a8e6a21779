/// The kind of maneuver at the start of a step, as named by the OSRM/Mapbox family of APIs.
///
/// Unknown names are kept as ``other(_:)``: a server that invents a new maneuver type never fails a route.
public enum ManeuverType: Hashable, Sendable {
    case turn, newName, depart, arrive, merge, onRamp, offRamp, fork, endOfRoad, `continue`
    case roundabout, rotary, roundaboutTurn, exitRoundabout, exitRotary, notification, useLane
    case other(String)

    /// The named maneuvers, matched by ``name``.
    private static let known: [ManeuverType] = [
        .turn, .newName, .depart, .arrive, .merge, .onRamp, .offRamp, .fork, .endOfRoad, .continue, .roundabout, .rotary,
        .roundaboutTurn, .exitRoundabout, .exitRotary, .notification, .useLane,
    ]

    /// `name` as the API writes it (`"end of road"`), or in capitals or with underscores (`"END_OF_ROAD"`); any
    /// other name is kept as ``other(_:)``. A name as the API writes it is matched as it is, not lowercased first.
    public init(name: String) {
        if let known = Self.known.first(where: { $0.name == name }) {
            self = known
            return
        }
        let normalized = String(name.lowercased().map { $0 == "_" ? " " : $0 })
        self = Self.known.first { $0.name == normalized } ?? .other(name)
    }

    /// The API name, e.g. `"end of road"`.
    public var name: String {
        switch self {
        case .turn: "turn"
        case .newName: "new name"
        case .depart: "depart"
        case .arrive: "arrive"
        case .merge: "merge"
        case .onRamp: "on ramp"
        case .offRamp: "off ramp"
        case .fork: "fork"
        case .endOfRoad: "end of road"
        case .continue: "continue"
        case .roundabout: "roundabout"
        case .rotary: "rotary"
        case .roundaboutTurn: "roundabout turn"
        case .exitRoundabout: "exit roundabout"
        case .exitRotary: "exit rotary"
        case .notification: "notification"
        case .useLane: "use lane"
        case .other(let raw): raw
        }
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

    /// The named directions, matched by ``name``.
    private static let known: [ManeuverModifier] = [.uTurn, .sharpRight, .right, .slightRight, .straight, .slightLeft, .left, .sharpLeft]

    /// `name` as the API writes it (`"slight left"`), or in capitals or with underscores; any other name is kept as
    /// ``other(_:)``.
    public init(name: String) {
        if let known = Self.known.first(where: { $0.name == name }) {
            self = known
            return
        }
        let normalized = String(name.lowercased().map { $0 == "_" ? " " : $0 })
        self = Self.known.first { $0.name == normalized } ?? .other(name)
    }

    /// The API name, e.g. `"slight left"`.
    public var name: String {
        switch self {
        case .uTurn: "uturn"
        case .sharpRight: "sharp right"
        case .right: "right"
        case .slightRight: "slight right"
        case .straight: "straight"
        case .slightLeft: "slight left"
        case .left: "left"
        case .sharpLeft: "sharp left"
        case .other(let raw): raw
        }
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
