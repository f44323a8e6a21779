// Commands that change the trip on the way: its stops, its route.
import NavigationCore

/// `add_stop`: a stop on the way. `index` counts among the waypoints still ahead (0: before the next one; their
/// count: after the destination, which makes it the new destination); without it, just before the destination.
public struct AddStopCommand: NavigationCommand, Hashable {
    public typealias Result = StopsReply
    public static let type = "add_stop"
    public static let requiresControl = true

    public var waypoint: Waypoint
    public var index: Int?

    public init(waypoint: Waypoint, index: Int? = nil) {
        self.waypoint = waypoint
        self.index = index
    }

    public init(fields: CommandFields) throws(ProtocolError) {
        guard let value = fields.optional("waypoint") else { throw ProtocolError(.missingField, "'waypoint' is required ({lat, lon})") }
        waypoint = try NavigateCommand.waypoint(value, path: "waypoint")
        index = try fields.whole("index", in: 0...StopsReply.waypointLimit)
    }

    public var fields: [String: JSONValue] {
        var object: [String: JSONValue] = ["waypoint": NavigateCommand.fields(of: waypoint)]
        if let index { object["index"] = .number(Double(index)) }
        return object
    }
}

/// `remove_stop`: the waypoint at `index` among those still ahead (0: the next one).
public struct RemoveStopCommand: NavigationCommand, Hashable {
    public typealias Result = StopsReply
    public static let type = "remove_stop"
    public static let requiresControl = true

    public var index: Int

    public init(index: Int) { self.index = index }

    public init(fields: CommandFields) throws(ProtocolError) {
        guard let index = try fields.whole("index", in: 0...StopsReply.waypointLimit) else {
            throw ProtocolError(.missingField, "'index' is required (0: the next waypoint)")
        }
        self.index = index
    }

    public var fields: [String: JSONValue] { ["index": .number(Double(index))] }
}

/// `skip_waypoint`: go on to the waypoint after the next one, as if the next had been reached.
public struct SkipWaypointCommand: NavigationCommand, Hashable {
    public typealias Result = StopsReply
    public static let type = "skip_waypoint"
    public static let requiresControl = true
    public init() {}
    public init(fields: CommandFields) throws(ProtocolError) {}
}

/// `choose_route`: take route `index` of the open offer: one of `navigate`'s alternatives (`route_alternatives`),
/// or the faster way (`faster_route`, index 0).
public struct ChooseRouteCommand: NavigationCommand, Hashable {
    public typealias Result = ChooseRouteReply
    public static let type = "choose_route"
    public static let requiresControl = true

    public var index: Int

    public init(index: Int) { self.index = index }

    public init(fields: CommandFields) throws(ProtocolError) {
        guard let index = try fields.whole("index", in: 0...NavigateCommand.alternativesLimit) else {
            throw ProtocolError(.missingField, "'index' is required (the route's index in the offer)")
        }
        self.index = index
    }

    public var fields: [String: JSONValue] { ["index": .number(Double(index))] }
}

/// `repeat`: say the next maneuver again, at the distance it is now (a steering-wheel button). Published as an
/// `announcement` (`repeat_maneuver`) for every voice client; the reply carries the text.
public struct RepeatCommand: NavigationCommand, Hashable {
    public typealias Result = RepeatReply
    public static let type = "repeat"
    public static let requiresControl = true
    public init() {}
    public init(fields: CommandFields) throws(ProtocolError) {}
}

/// `voice`: set how voice clients speak (`mode`), kept across restarts; without `mode`, only reports it. Every
/// client gets a `voice` event when it changes.
public struct VoiceCommand: NavigationCommand, Hashable {
    public typealias Result = VoiceEvent
    public static let type = "voice"
    public static let requiresControl = true

    public var mode: VoiceMode?

    public init(mode: VoiceMode? = nil) { self.mode = mode }

    public init(fields: CommandFields) throws(ProtocolError) {
        guard let value = fields.optional("mode") else { return }
        guard case .string(let text) = value, let mode = VoiceMode(rawValue: text) else {
            throw ProtocolError(.invalidField, "'mode' must be one of \(VoiceMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.mode = mode
    }

    public var fields: [String: JSONValue] { mode.map { ["mode": .string($0.rawValue)] } ?? [:] }
}
