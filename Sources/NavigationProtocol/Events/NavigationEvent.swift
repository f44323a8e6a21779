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
    case speedAlert(SpeedAlert)
    case routeRefreshed(RouteRefreshedEvent)
    case routeAlternatives(RouteAlternativesEvent)
    case fasterRoute(FasterRouteEvent)
    case announcement(AnnouncementEvent)
    case voice(VoiceEvent)

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
        case .speedAlert: .speedAlert
        case .routeRefreshed: .routeRefreshed
        case .routeAlternatives: .routeAlternatives
        case .fasterRoute: .fasterRoute
        case .announcement: .announcement
        case .voice: .voice
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
        case .speedAlert(let payload): value = try? encoder.encode(payload)
        case .routeRefreshed(let payload): value = try? encoder.encode(payload)
        case .routeAlternatives(let payload): value = try? encoder.encode(payload)
        case .fasterRoute(let payload): value = try? encoder.encode(payload)
        case .announcement(let payload): value = try? encoder.encode(payload)
        case .voice(let payload): value = try? encoder.encode(payload)
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
        case .speedAlert: self = .speedAlert(try decoder.decode(SpeedAlert.self, from: value))
        case .routeRefreshed: self = .routeRefreshed(try decoder.decode(RouteRefreshedEvent.self, from: value))
        case .routeAlternatives: self = .routeAlternatives(try decoder.decode(RouteAlternativesEvent.self, from: value))
        case .fasterRoute: self = .fasterRoute(try decoder.decode(FasterRouteEvent.self, from: value))
        case .announcement: self = .announcement(try decoder.decode(AnnouncementEvent.self, from: value))
        case .voice: self = .voice(try decoder.decode(VoiceEvent.self, from: value))
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

    /// The line navd sends, newline included: `type`, `seq`, `routeId`, then the payload's fields sorted
    /// (``JSONLine``'s order), written straight from the typed payload.
    public var line: [UInt8] { Self.line(seq: seq, routeId: routeId, event: event) }

    /// The line of `event` numbered `seq`, as ``line`` writes it, without a message made for it (the hub made one
    /// to ask for its line, and copied it whole, every reference in a `trip_state`, on every fix).
    public static func line(seq: UInt64, routeId: String?, event: NavigationEvent) -> [UInt8] {
        let envelope = Envelope(type: event.type, seq: seq, routeId: routeId)
        switch event {
        case .tripState(let record): return envelope.tripStateLine(record)
        case .route(let payload):
            // Room for the whole line at once, not copied as it grows.
            let estimate = 1024 + (payload.routeText?.bytes.count ?? payload.route.estimatedTextBytes)
            if let line = envelope.handWrittenLine(payload, capacity: estimate) { return line }
        case .routeCalculation(let payload): if let line = envelope.handWrittenLine(payload) { return line }
        case .routeAlternatives(let payload):
            let estimate = 1024 + payload.routes.reduce(0) { $0 + $1.estimatedTextBytes }
            if let line = envelope.handWrittenLine(payload, capacity: estimate) { return line }
        case .fasterRoute(let payload):
            if let line = envelope.handWrittenLine(payload, capacity: 1024 + (payload.route?.estimatedTextBytes ?? 0)) { return line }
        case .instruction(let payload): if let line = envelope.handWrittenLine(payload) { return line }
        case .instructionRetracted(let payload): if let line = envelope.handWrittenLine(payload) { return line }
        default: break
        }
        guard let members = try? event.payloadMembers() else {
            return ServerMessage.event(event.type, seq: seq, routeId: routeId, fields: event.fields).line
        }
        let keys = members.keys
        var out = JSONOutput(capacity: keys.count * 24 + 96)
        envelope.append(into: &out, id: keys.firstIndex(of: "id").map { id in { members.appendValue(at: id, into: &$0) } })
        for (index, key) in keys.enumerated() where !envelopeKeys.contains(key) {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            members.appendValue(at: index, into: &out)
        }
        out.append("}\n")
        return out.bytes
    }

    /// What every line begins with: `{"type":…,"seq":…,"routeId":…`.
    private struct Envelope {
        var type: EventType
        var seq: UInt64
        var routeId: String?

        /// The line of a `trip_state`, the event of every fix: the payload written by hand
        /// (``TripStateRecord``'s `JSONTextWritable`), the same bytes as the generic path. It has none of the
        /// envelope's keys.
        func tripStateLine(_ record: TripStateRecord) -> [UInt8] {
            var out = JSONOutput(capacity: 1536)
            append(into: &out)
            JSONObjectWriter.continueObject(in: &out) { record.writeMembers(into: &$0) }
            out.append(UInt8(ascii: "\n"))
            return out.bytes
        }

        /// The line of a payload written by hand (``EventPayloadWritable``: the events a route brings), the same
        /// bytes as the generic path; nil when that payload is left to the generic path. None of them has an
        /// envelope key.
        func handWrittenLine<Payload: EventPayloadWritable>(_ payload: Payload, capacity: Int = 512) -> [UInt8]? {
            var out = JSONOutput(capacity: capacity)
            append(into: &out)
            var written = false
            JSONObjectWriter.continueObject(in: &out) { written = payload.writeMembers(into: &$0) }
            guard written else { return nil }
            out.append(UInt8(ascii: "\n"))
            return out.bytes
        }

        /// `{"type":…,"id":…,"seq":…,"routeId":…`, the object left open; `id` writes the payload's `id` value,
        /// when it has one.
        func append(into out: inout JSONOutput, id: ((inout JSONOutput) -> Void)? = nil) {
            out.append(#"{"type":"#)
            JSONText.appendString(type.rawValue, into: &out)
            if let id {
                out.append(#","id":"#)
                id(&out)
            }
            out.append(#","seq":"#)
            JSONText.appendNumber(Double(seq), into: &out)
            out.append(#","routeId":"#)
            if let routeId { JSONText.appendString(routeId, into: &out) } else { JSONText.appendNull(into: &out) }
        }
    }

    /// Keys the envelope writes (a payload field of the same name is replaced, or moved first for `id`).
    private static let envelopeKeys: Set<String> = ["type", "id", "seq", "routeId"]
}

extension NavigationEvent {
    /// The payload's members as JSON text, straight from the typed payload.
    func payloadMembers() throws -> JSONTextEncoder.ObjectMembers {
        let encoder = JSONTextEncoder()
        switch self {
        case .tripState(let payload): return try encoder.encodeMembers(payload)
        case .instruction(let payload): return try encoder.encodeMembers(payload)
        case .instructionRetracted(let payload): return try encoder.encodeMembers(payload)
        case .deviation(let payload): return try encoder.encodeMembers(payload)
        case .route(let payload): return try encoder.encodeMembers(payload)
        case .routeCalculation(let payload): return try encoder.encodeMembers(payload)
        case .waypointReached(let payload): return try encoder.encodeMembers(payload)
        case .arrived(let payload): return try encoder.encodeMembers(payload)
        case .gnss(let payload): return try encoder.encodeMembers(payload)
        case .speedAlert(let payload): return try encoder.encodeMembers(payload)
        case .routeRefreshed(let payload): return try encoder.encodeMembers(payload)
        case .routeAlternatives(let payload): return try encoder.encodeMembers(payload)
        case .fasterRoute(let payload): return try encoder.encodeMembers(payload)
        case .announcement(let payload): return try encoder.encodeMembers(payload)
        case .voice(let payload): return try encoder.encodeMembers(payload)
        }
    }
}
