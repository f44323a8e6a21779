/// Everything navd says or shows on its own (not the engine's instructions), each a key in every language's data
/// file (`Languages/<language>.json`). Placeholders in braces are filled by ``GuidanceCatalog/text(_:_:)``.
public enum MessageKey: String, Sendable, CaseIterable {
    case offRoute = "off_route"
    case rerouting
    case backOnRoute = "back_on_route"
    case gnssLost = "gnss_lost"
    case gnssBack = "gnss_back"
    /// `{index}`: the stop's number, from 1.
    case waypointReached = "waypoint_reached"
    case arrived
    /// `{limit}`: the posted limit with its unit.
    case speedOver = "speed_over"
    case speedFarOver = "speed_far_over"
    /// `{distance}`, `{limit}`.
    case lowerLimitAhead = "lower_limit_ahead"
    /// `{duration}`: the time saved.
    case fasterRoute = "faster_route"
    /// `{duration}`: the time lost.
    case trafficAhead = "traffic_ahead"
    /// `repeat`: `{distance}` to the next maneuver, `{instruction}` (the engine's, in the same language).
    case repeatManeuver = "repeat_maneuver"

    /// The placeholders every language's text for this key must have, no more and no fewer.
    public var placeholders: Set<String> {
        switch self {
        case .waypointReached: ["index"]
        case .speedOver, .speedFarOver: ["limit"]
        case .lowerLimitAhead: ["distance", "limit"]
        case .fasterRoute, .trafficAhead: ["duration"]
        case .repeatManeuver: ["distance", "instruction"]
        default: []
        }
    }
}

/// Units with a singular and a plural in every language.
public enum UnitKey: String, Sendable, CaseIterable {
    case metres, kilometres, feet, yards, miles, minutes
}
