import NavigationCore

/// The protocol's version, sent in `hello`. Incremented when a message changes incompatibly. 2: deviation kinds
/// are snake_case values (`off_step`, `off_route`), like every other value; `hello` carries `seq`; locations carry
/// `speed`; `too_many_clients` replaces the misused `shutting_down`.
public let navigationProtocolVersion = 2

/// The event types a client can subscribe to. Every event line carries `type`, `seq` (one counter for all events,
/// increasing by one per event the daemon publishes) and `routeId` (null when there is no route).
public enum EventType: String, Hashable, Sendable, CaseIterable, Codable {
    /// On every accepted fix (`state: idle` without a trip, with the raw location), and once a second while
    /// progress is predicted through an outage: the fields of `navctl replay` (docs/replay-format.md).
    case tripState = "trip_state"
    /// A banner (`kind: visual`) or a voice prompt (`kind: spoken`), each exactly once per route.
    case instruction
    /// Instructions already sent that no longer apply (reroute, cancel).
    case instructionRetracted = "instruction_retracted"
    /// The vehicle left the route or came back, and what the reroute policy did about it.
    case deviation
    /// A new active route (initial, reroute, snap, or resumed after a restart).
    case route
    /// Progress of a route calculation session.
    case routeCalculation = "route_calculation"
    /// An intermediate stop was passed.
    case waypointReached = "waypoint_reached"
    /// The destination was reached.
    case arrived
    /// GNSS health: ok / degraded / lost.
    case gnss
    /// The speed alert changed: its level (`none`, `minor`, `major`), the limit it is judged on, or the slow-down
    /// warning before a lower limit.
    case speedAlert = "speed_alert"
    /// The route ahead re-costed on the same way (new times, traffic, limits, incidents), or old traffic dropped.
    case routeRefreshed = "route_refreshed"
    /// The routes `navigate` asked for with `alternatives`, to choose from (`choose_route`), and how the choice ended.
    case routeAlternatives = "route_alternatives"
    /// A faster way from the vehicle than the route, offered or taken (`routing.faster_route`), and how an offer ended.
    case fasterRoute = "faster_route"
    /// Something navd itself tells the driver, in the driver's language (off route, rerouting, GNSS lost, ...).
    case announcement
    /// How voice clients should speak: the voice mode (`voice` command) and the language.
    case voice

    /// Events that a slow client may miss when a newer one of the same type replaces it.
    public var isReplaceable: Bool { self == .tripState }
}

/// One message from the server: its JSON object and, for events, its type (for topic filtering and buffering).
public struct ServerMessage: Sendable {
    public var object: [String: JSONValue]
    /// The event type, or nil for `hello`, `reply`, `error` and `bye`, which are never filtered or dropped.
    public var eventType: EventType?

    public init(object: [String: JSONValue], eventType: EventType? = nil) {
        self.object = object
        self.eventType = eventType
    }

    /// The serialized line, newline included.
    public var line: [UInt8] { JSONLine.serialize(object) }

    public static func event(_ type: EventType, seq: UInt64, routeId: String?, fields: [String: JSONValue]) -> ServerMessage {
        var object = fields
        object["type"] = .string(type.rawValue)
        object["seq"] = .number(Double(seq))
        object["routeId"] = routeId.map(JSONValue.string) ?? .null
        return ServerMessage(object: object, eventType: type)
    }

    public static func reply(id: JSONValue?, command: String, result: [String: JSONValue]) -> ServerMessage {
        var object: [String: JSONValue] = ["type": "reply", "command": .string(command), "result": .object(result)]
        object["id"] = id ?? .null
        return ServerMessage(object: object)
    }

    public static func error(id: JSONValue?, _ error: ProtocolError) -> ServerMessage {
        var object: [String: JSONValue] = ["type": "error", "code": .string(error.code.rawValue), "message": .string(error.message)]
        object["id"] = id ?? .null
        return ServerMessage(object: object)
    }

    /// `seq`: the last event's sequence number: the first event this client gets is `seq + 1`.
    public static func hello(navdVersion: String, control: Bool, seq: UInt64, state: Snapshot) -> ServerMessage {
        ServerMessage(object: [
            "type": "hello", "protocol": .number(Double(navigationProtocolVersion)), "navd": .string(navdVersion),
            "control": .bool(control), "seq": .number(Double(seq)), "state": (try? JSONValueEncoder().encode(state)) ?? .object([:]),
        ])
    }

    /// The last line before the server closes the connection on shutdown.
    public static func bye(reason: String) -> ServerMessage {
        ServerMessage(object: ["type": "bye", "reason": .string(reason)])
    }
}
