import NavigationCore

/// Every event navd publishes, typed: what the coordinator emits, what ``EventSequencer`` encodes, and what
/// clients (NavdClient, navctl, the tests) decode.
public enum NavigationEvent: Hashable, Sendable {
    case tripState(TripStateRecord)
    case instruction(InstructionEvent)
    case instructionRetracted(InstructionRetractedEvent)
    case deviation(DeviationEvent)
    case route(RouteEvent)
    case routeCalculation(RouteCalculationEvent)
    case waypointReached(WaypointReachedEvent)
    case arrived(ArrivedEvent)
    case gnss(GNSSEvent)

    public var type: EventType {
        switch self {
        case .tripState: .tripState
        case .instruction: .instruction
        case .instructionRetracted: .instructionRetracted
        case .deviation: .deviation
        case .route: .route
        case .routeCalculation: .routeCalculation
        case .waypointReached: .waypointReached
        case .arrived: .arrived
        case .gnss: .gnss
        }
    }

    /// The payload's fields (everything but `type`, `seq` and `routeId`).
    public var fields: [String: JSONValue] {
        let encoder = JSONValueEncoder()
        let value: JSONValue?
        switch self {
        case .tripState(let payload): value = try? encoder.encode(payload)
        case .instruction(let payload): value = try? encoder.encode(payload)
        case .instructionRetracted(let payload): value = try? encoder.encode(payload)
        case .deviation(let payload): value = try? encoder.encode(payload)
        case .route(let payload): value = try? encoder.encode(payload)
        case .routeCalculation(let payload): value = try? encoder.encode(payload)
        case .waypointReached(let payload): value = try? encoder.encode(payload)
        case .arrived(let payload): value = try? encoder.encode(payload)
        case .gnss(let payload): value = try? encoder.encode(payload)
        }
        return value?.objectValue ?? [:]
    }

    /// The event of `type` from a line's fields; throws a decoding error naming the field that does not fit.
    public init(type: EventType, fields: [String: JSONValue]) throws {
        let decoder = JSONValueDecoder()
        let value = JSONValue.object(fields)
        switch type {
        case .tripState: self = .tripState(try decoder.decode(TripStateRecord.self, from: value))
        case .instruction: self = .instruction(try decoder.decode(InstructionEvent.self, from: value))
        case .instructionRetracted: self = .instructionRetracted(try decoder.decode(InstructionRetractedEvent.self, from: value))
        case .deviation: self = .deviation(try decoder.decode(DeviationEvent.self, from: value))
        case .route: self = .route(try decoder.decode(RouteEvent.self, from: value))
        case .routeCalculation: self = .routeCalculation(try decoder.decode(RouteCalculationEvent.self, from: value))
        case .waypointReached: self = .waypointReached(try decoder.decode(WaypointReachedEvent.self, from: value))
        case .arrived: self = .arrived(try decoder.decode(ArrivedEvent.self, from: value))
        case .gnss: self = .gnss(try decoder.decode(GNSSEvent.self, from: value))
        }
    }
}

/// One published event: its sequence number, the route it belongs to, and the event.
public struct EventMessage: Hashable, Sendable {
    /// One counter for all events, increasing by one per event navd publishes.
    public var seq: UInt64
    /// The active route's id (nil without one).
    public var routeId: String?
    public var event: NavigationEvent

    public init(seq: UInt64, routeId: String?, event: NavigationEvent) {
        self.seq = seq
        self.routeId = routeId
        self.event = event
    }

    /// The line navd sends, newline included.
    public var line: [UInt8] { ServerMessage.event(event.type, seq: seq, routeId: routeId, fields: event.fields).line }
}
