import FoundationEssentials
import Glibc
import NavigationCore
import Guidance
import RouteAdapters

/// A command a client sends: a value decoded from the line's fields. The daemon registers one handler per
/// command type (see `CommandRouter`), so adding a command means adding a type and a handler.
public protocol NavigationCommand: Sendable {
    /// The reply's `result`.
    associatedtype Result: Codable & Sendable
    /// The `type` field that selects this command.
    static var type: String { get }
    /// Whether the command changes navigation (needs control rights) or only reads.
    static var requiresControl: Bool { get }
    init(fields: CommandFields) throws(ProtocolError)
    /// The command's fields as a client sends them (without `type` and `id`): `init(fields:)` reads them back.
    var fields: [String: JSONValue] { get }
}

extension NavigationCommand {
    public var fields: [String: JSONValue] { [:] }

    /// The line a client sends, newline included.
    public func line(id: JSONValue?) -> [UInt8] {
        var object = fields
        object["type"] = .string(Self.type)
        if let id { object["id"] = id }
        return JSONLine.serialize(object)
    }
}

/// `navigate`: route from the current position through `waypoints` (the last is the destination).
public struct NavigateCommand: NavigationCommand, Hashable {
    public typealias Result = NavigateReply
    public static let type = "navigate"
    public static let requiresControl = true

    public var waypoints: [Waypoint]
    public var options: RouteOptions
    /// Further routes to ask for and offer (`route_alternatives`, `choose_route`); 0: none.
    public var alternatives: Int

    /// Most alternatives a client may ask for.
    public static let alternativesLimit = 3

    public init(waypoints: [Waypoint], options: RouteOptions = RouteOptions(), alternatives: Int = 0) {
        self.waypoints = waypoints
        self.options = options
        self.alternatives = alternatives
    }

    public init(fields: CommandFields) throws(ProtocolError) {
        guard let list = try fields.array("waypoints") else { throw ProtocolError(.missingField, "'waypoints' is required (an array of {lat, lon})") }
        guard !list.isEmpty else { throw ProtocolError(.invalidField, "'waypoints' must have at least one waypoint") }
        guard list.count <= 50 else { throw ProtocolError(.invalidField, "'waypoints' has \(list.count) entries; at most 50") }
        var waypoints: [Waypoint] = []
        for (i, value) in list.enumerated() { waypoints.append(try Self.waypoint(value, path: "waypoints[\(i)]")) }
        self.waypoints = waypoints
        self.options = try RouteOptions(fields: CommandFields(try fields.objectField("options") ?? [:]))
        alternatives = try fields.whole("alternatives", in: 0...Self.alternativesLimit) ?? 0
    }

    public var fields: [String: JSONValue] {
        var object: [String: JSONValue] = [
            "waypoints": .array(waypoints.map(Self.fields(of:)))
        ]
        var options: [String: JSONValue] = [:]
        if let costing = self.options.costing { options["costing"] = .string(costing) }
        if !self.options.avoid.isEmpty { options["avoid"] = .array(self.options.avoid.map(\.rawValue).sorted().map(JSONValue.string)) }
        if !self.options.engine.isEmpty { options["engine"] = .object(self.options.engine) }
        if let language = self.options.language { options["language"] = .string(language) }
        if let imperial = self.options.imperial { options["units"] = .string(imperial ? "imperial" : "metric") }
        if !options.isEmpty { object["options"] = .object(options) }
        if alternatives > 0 { object["alternatives"] = .number(Double(alternatives)) }
        return object
    }
}

extension NavigateCommand {
    /// One waypoint as a client writes it: `{lat, lon, kind?, properties?}`; `path` names it in errors.
    public static func waypoint(_ value: JSONValue, path: String) throws(ProtocolError) -> Waypoint {
        let coordinate = try CommandFields.coordinate(value, path: path)
        let object = value.objectValue ?? [:]
        var kind = Waypoint.Kind.break
        if let text = object["kind"]?.stringValue {
            guard let parsed = Waypoint.Kind(rawValue: text) else {
                throw ProtocolError(.invalidField, "\(path).kind must be 'break' or 'via', not '\(text)'")
            }
            kind = parsed
        }
        var properties: [String: JSONValue] = [:]
        if let value = object["properties"], value != .null {
            guard let object = value.objectValue else { throw ProtocolError(.invalidField, "\(path).properties must be an object") }
            properties = object
            try checkNumericProperties(properties, path: "\(path).properties")
        }
        return Waypoint(coordinate: coordinate, kind: kind, properties: properties)
    }

    /// A waypoint as `waypoint(_:path:)` reads it back.
    public static func fields(of waypoint: Waypoint) -> JSONValue {
        var point: [String: JSONValue] = [
            "lat": .number(waypoint.coordinate.latitude), "lon": .number(waypoint.coordinate.longitude), "kind": .string(waypoint.kind.rawValue),
        ]
        if !waypoint.properties.isEmpty { point["properties"] = .object(waypoint.properties) }
        return .object(point)
    }

    /// Waypoint properties that engines read as numbers, with their ranges: a client's `radius: 1e300` is
    /// `invalid_field` here, not a number a request generator has to turn into text.
    static let numericProperties: [String: (range: ClosedRange<Double>, unit: String)] = [
        "radius": (PhysicalRange.radius, "metres"), "heading": (PhysicalRange.course, "degrees"),
        "heading_tolerance": (0...180, "degrees"), "bearing": (PhysicalRange.course, "degrees"),
        "minimum_reachability": (0...1_000_000, "nodes"), "search_cutoff": (0...1_000_000, "metres"),
        "node_snap_tolerance": (0...10_000, "metres"), "street_side_tolerance": (0...10_000, "metres"),
    ]

    static func checkNumericProperties(_ properties: [String: JSONValue], path: String) throws(ProtocolError) {
        for (key, rule) in numericProperties {
            switch properties[key] {
            case .number?: _ = try CommandFields.measure(properties[key]!, path: "\(path).\(key)", in: rule.range, unit: rule.unit)
            case .array(let items)?:
                // OSRM's bearing as [degrees, range].
                for (index, item) in items.enumerated() {
                    _ = try CommandFields.measure(item, path: "\(path).\(key)[\(index)]", in: rule.range, unit: rule.unit)
                }
            default: continue
            }
        }
    }
}

extension RouteOptions {
    /// Decodes the `navigate` command's `options`.
    public init(fields: CommandFields) throws(ProtocolError) {
        let costing = try fields.string("costing")
        var avoid: Set<Avoid> = []
        for value in try fields.array("avoid") ?? [] {
            guard let text = value.stringValue, let item = Avoid(rawValue: text) else {
                throw ProtocolError(.invalidField, "options.avoid entries must be one of \(Avoid.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            avoid.insert(item)
        }
        let engine = try fields.objectField("engine") ?? [:]
        var language: String?
        if let text = try fields.string("language") {
            guard let tag = LanguageTag(text) else {
                throw ProtocolError(.invalidField, "options.language '\(text.prefix(40))' is not a BCP 47 language tag (e.g. \"de-DE\", \"fi\")")
            }
            language = tag.description
        }
        var imperial: Bool?
        switch try fields.string("units") {
        case nil, "auto"?: imperial = nil
        case "metric"?: imperial = false
        case "imperial"?: imperial = true
        case let other?: throw ProtocolError(.invalidField, "options.units '\(other.prefix(40))' must be metric, imperial or auto")
        }
        self.init(costing: costing, avoid: avoid, engine: engine, language: language, imperial: imperial)
    }
}

/// `cancel`: end the trip and any calculation.
public struct CancelCommand: NavigationCommand, Hashable {
    public typealias Result = CancelReply
    public static let type = "cancel"
    public static let requiresControl = true
    public init() {}
    public init(fields: CommandFields) throws(ProtocolError) {}
}

/// `status`: a full snapshot.
public struct StatusCommand: NavigationCommand, Hashable {
    public typealias Result = Snapshot
    public static let type = "status"
    public static let requiresControl = false
    public init() {}
    public init(fields: CommandFields) throws(ProtocolError) {}
}

/// `route`: the route navigated now, as the `route` event carried it, for a client that connects mid-trip (a
/// dashboard drawing the route after a reload). Read only.
public struct CurrentRouteCommand: NavigationCommand, Hashable {
    public typealias Result = CurrentRouteReply
    public static let type = "route"
    public static let requiresControl = false
    public init() {}
    public init(fields: CommandFields) throws(ProtocolError) {}
}

/// `subscribe`: which event types this client receives (all by default).
public struct SubscribeCommand: NavigationCommand, Hashable {
    public typealias Result = SubscribeReply
    public static let type = "subscribe"
    public static let requiresControl = false
    public var topics: Set<EventType>

    public init(topics: Set<EventType>) { self.topics = topics }

    public init(fields: CommandFields) throws(ProtocolError) {
        guard let list = try fields.array("topics") else { throw ProtocolError(.missingField, "'topics' is required (an array of event types)") }
        var topics: Set<EventType> = []
        for value in list {
            guard let text = value.stringValue, let topic = EventType(rawValue: text) else {
                throw ProtocolError(
                    .invalidField, "unknown topic \(value); topics are \(EventType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            topics.insert(topic)
        }
        self.topics = topics
    }

    public var fields: [String: JSONValue] { ["topics": .array(EventType.allCases.filter(topics.contains).map { .string($0.rawValue) })] }
}

/// `advance`: move to the next step now (a driver's "next" button, or the manual advance condition).
public struct AdvanceCommand: NavigationCommand, Hashable {
    public typealias Result = AdvanceReply
    public static let type = "advance"
    public static let requiresControl = true
    public init() {}
    public init(fields: CommandFields) throws(ProtocolError) {}
}

/// `snap_route`: map-match an external track to the road network and navigate the result.
public struct SnapRouteCommand: NavigationCommand, Hashable {
    public typealias Result = SessionReply
    public static let type = "snap_route"
    public static let requiresControl = true

    /// One trace point: where, optionally when, and optionally how far (metres) the matcher may search.
    public struct Point: Hashable, Sendable {
        public var coordinate: GeographicCoordinate
        public var time: Date?
        public var radius: Double?

        public init(coordinate: GeographicCoordinate, time: Date? = nil, radius: Double? = nil) {
            self.coordinate = coordinate
            self.time = time
            self.radius = radius
        }
    }
    /// Points in driving order.
    public var points: [Point]

    public init(fields: CommandFields) throws(ProtocolError) {
        guard let list = try fields.array("trace") else { throw ProtocolError(.missingField, "'trace' is required (an array of {lat, lon, time?})") }
        guard list.count >= 2 else { throw ProtocolError(.invalidField, "'trace' needs at least 2 points") }
        guard list.count <= 5000 else { throw ProtocolError(.invalidField, "'trace' has \(list.count) points; at most 5000") }
        var points: [Point] = []
        for (i, value) in list.enumerated() {
            let coordinate = try CommandFields.coordinate(value, path: "trace[\(i)]")
            var time: Date?
            if let text = value["time"]?.stringValue {
                guard let parsed = ISO8601Timestamp.parse(text) else { throw ProtocolError(.invalidField, "trace[\(i)].time is not an ISO 8601 time") }
                time = parsed
            }
            var radius: Double?
            if let given = value["radius"], given != .null {
                radius = try CommandFields.measure(given, path: "trace[\(i)].radius", in: PhysicalRange.radius, unit: "metres")
            }
            points.append(Point(coordinate: coordinate, time: time, radius: radius))
        }
        self.points = points
    }

    public init(points: [Point]) { self.points = points }

    public var fields: [String: JSONValue] {
        ["trace": .array(points.map { point in
            var object: [String: JSONValue] = ["lat": .number(point.coordinate.latitude), "lon": .number(point.coordinate.longitude)]
            if let time = point.time { object["time"] = .string(ISO8601Timestamp.format(time)) }
            if let radius = point.radius { object["radius"] = .number(radius) }
            return .object(object)
        })]
    }
}

/// `cancel_calculation`: cancel one calculation session, or the running one when `session` is absent.
public struct CancelCalculationCommand: NavigationCommand, Hashable {
    public typealias Result = CancelCalculationReply
    public static let type = "cancel_calculation"
    public static let requiresControl = true
    public var session: Int?

    public init(session: Int?) { self.session = session }

    public init(fields: CommandFields) throws(ProtocolError) {
        session = try fields.whole("session", in: 1...PhysicalRange.identifier.upperBound)
    }

    public var fields: [String: JSONValue] { session.map { ["session": .number(Double($0))] } ?? [:] }
}

/// `record`: start or stop the flight recorder, or ask whether it runs (docs/recording.md).
public struct RecordCommand: NavigationCommand, Hashable {
    public typealias Result = RecordReply
    public static let type = "record"
    public static let requiresControl = true

    public enum Action: String, Hashable, Sendable, CaseIterable {
        case start, stop, status
    }
    public var action: Action

    public init(action: Action) { self.action = action }

    public init(fields: CommandFields) throws(ProtocolError) {
        let text = try fields.requiredString("action")
        guard let action = Action(rawValue: text) else {
            throw ProtocolError(.invalidField, "'action' must be one of \(Action.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
        }
        self.action = action
    }

    public var fields: [String: JSONValue] { ["action": .string(action.rawValue)] }
}
