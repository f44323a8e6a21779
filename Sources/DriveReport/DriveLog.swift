import Foundation
import NavigationCore

/// What a recording says about a drive, gathered for the report: the receiver's fixes, the trip states navd
/// published, every route (initial and rerouted), deviations, step advances, instructions, calculation sessions
/// and GNSS health. Times are seconds since the recording's first loop input (`now`, navd's wall clock).
/// Pure: the recording's text in, values out.
public struct DriveLog: Sendable {
    public struct Fix: Sendable {
        public var at: Double
        /// The receiver's time of the fix, seconds since 2001-01-01 UTC.
        public var time: Double
        public var coordinate: GeographicCoordinate
        /// Metres, 68%.
        public var accuracy: Double
        /// Metres per second, when the receiver said.
        public var speed: Double?
    }

    public struct State: Sendable {
        public var at: Double
        /// The fix's time (receiver clock), seconds since 2001-01-01 UTC, when the state says.
        public var fixTime: Double?
        public var routeId: String?
        public var snapped: GeographicCoordinate?
        public var raw: GeographicCoordinate?
        public var navigating: Bool
        public var offRoute: Bool
        public var predicted: Bool
        public var stepIndex: Int?
        /// Metres.
        public var distanceRemaining: Double?
        /// Seconds.
        public var durationRemaining: Double?
        /// Metres.
        public var distanceTravelled: Double?
        /// km/h or mph, as the route said.
        public var speedLimit: String?
        public var roadName: String?
    }

    public struct RouteShown: Sendable {
        public var at: Double
        public var routeId: String
        /// `initial`, `reroute`, `snap` or `resumed`.
        public var reason: String
        public var geometry: [GeographicCoordinate]
        public var waypoints: [GeographicCoordinate]
        /// Metres, seconds.
        public var distance: Double
        public var duration: Double
    }

    public struct Event: Sendable {
        public var at: Double
        /// The event's `type`.
        public var type: String
        /// One line for a person.
        public var text: String
        /// Where the vehicle was, when known.
        public var location: GeographicCoordinate?
    }

    public struct Session: Sendable {
        public var session: Int
        public var purpose: String
        public var startedAt: Double
        public var endedAt: Double?
        /// `succeeded`, `failed`, `cancelled`, or `in_progress` when the recording ended first.
        public var outcome: String
        public var attempts: Int
        public var engine: String?
        public var detail: String?
    }

    public var created = ""
    public var reason = ""
    public var navdVersion = ""
    /// The recorded configuration (secrets already redacted by navd).
    public var configuration = ""
    public var fixes: [Fix] = []
    public var noFixEpochs = 0
    public var states: [State] = []
    public var routes: [RouteShown] = []
    /// Everything worth a line in the timeline, in order.
    public var timeline: [Event] = []
    public var deviations: [Event] = []
    /// Where a step was advanced (its new index in the text).
    public var stepAdvances: [Event] = []
    public var waypointsReached: [Event] = []
    public var sessions: [Session] = []
    /// `arrived`'s fields when the trip arrived.
    public var arrival: JSONValue?
    /// Seconds from the first to the last record.
    public var span: Double = 0

    public struct NotARecording: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads a recording: its first file, then its parts.
    public init(recording texts: [String]) throws {
        var firstNow: Double?
        var now: Double = 0
        var lastT: Double = 0
        var lastLocation: GeographicCoordinate?
        var previousStep: (routeId: String?, step: Int)?
        var sessionIndex: [Int: Int] = [:]
        var sawHeader = false
        for text in texts {
            for line in text.split(separator: "\n") {
                guard let object = try? JSONParser.parse(Array(line.utf8)).objectValue else { continue }
                if let kind = object["rec"]?.stringValue {
                    if let t = object["t"]?.doubleValue { lastT = max(lastT, t) }
                    if let value = object["now"]?.doubleValue {
                        if firstNow == nil { firstNow = value }
                        now = value - (firstNow ?? value)
                    }
                    switch kind {
                    case "header":
                        sawHeader = true
                        created = object["created"]?.stringValue ?? ""
                        reason = object["reason"]?.stringValue ?? ""
                        navdVersion = object["navd"]?.stringValue ?? ""
                        configuration = object["config"]?["text"]?.stringValue ?? ""
                    case "fix":
                        guard let fix = object["fix"], let lat = fix["lat"]?.doubleValue, let lon = fix["lon"]?.doubleValue else { continue }
                        fixes.append(
                            Fix(at: now, time: fix["time"]?.doubleValue ?? now, coordinate: GeographicCoordinate(latitude: lat, longitude: lon),
                                accuracy: fix["accuracy"]?.doubleValue ?? 0,
                                speed: fix["speed"]?.doubleValue))
                    case "no_fix":
                        noFixEpochs += 1
                    default:
                        break
                    }
                    continue
                }
                guard let type = object["type"]?.stringValue else { continue }
                let routeId = object["routeId"]?.stringValue
                switch type {
                case "trip_state":
                    let state = Self.state(object, at: now)
                    if let raw = state.raw ?? state.snapped { lastLocation = raw }
                    if state.navigating, let step = state.stepIndex {
                        if let previous = previousStep, previous.routeId == routeId, step > previous.step, let place = state.snapped {
                            let road = state.roadName.map { " onto \($0)" } ?? ""
                            stepAdvances.append(Event(at: now, type: "step", text: "step \(step)\(road)", location: place))
                        }
                        previousStep = (routeId, step)
                    }
                    states.append(state)
                case "route":
                    let route = object["route"]
                    routes.append(
                        RouteShown(
                            at: now, routeId: routeId ?? "?", reason: object["reason"]?.stringValue ?? "?",
                            geometry: Self.line(route?["geometry"]),
                            waypoints: (route?["waypoints"]?.arrayValue ?? []).compactMap(Self.coordinate),
                            distance: object["distance"]?.doubleValue ?? 0, duration: object["duration"]?.doubleValue ?? 0))
                    timeline.append(
                        Event(
                            at: now, type: type,
                            text: "route \(routeId ?? "?") (\(object["reason"]?.stringValue ?? "?")): \(HumanReadable.distance(object["distance"]?.doubleValue ?? 0)), \(HumanReadable.duration(object["duration"]?.doubleValue ?? 0))",
                            location: lastLocation))
                case "deviation":
                    let off = object["offRoute"]?.boolValue == true
                    let text = off
                        ? "off route by \(Int(object["distance"]?.doubleValue ?? 0)) m; reroute \(object["reroute"]?.stringValue ?? "?")"
                        : "back on the route"
                    let event = Event(at: now, type: type, text: text, location: lastLocation)
                    if off { deviations.append(event) }
                    timeline.append(event)
                case "instruction":
                    let instruction = object["instruction"]
                    let kind = object["kind"]?.stringValue ?? "?"
                    let words = kind == "visual" ? instruction?["primary"]?["text"]?.stringValue : instruction?["text"]?.stringValue
                    timeline.append(Event(at: now, type: "instruction", text: "\(kind == "visual" ? "banner" : "voice"): \(words ?? "")", location: lastLocation))
                case "instruction_retracted":
                    let count = object["instructions"]?.arrayValue?.count ?? 0
                    timeline.append(Event(at: now, type: type, text: "\(count) instruction(s) retracted (\(object["reason"]?.stringValue ?? "?"))", location: lastLocation))
                case "route_calculation":
                    guard let session = object["session"]?.doubleValue.map({ Int($0) }) else { continue }
                    let status = object["status"]?.stringValue ?? "?"
                    if sessionIndex[session] == nil {
                        sessionIndex[session] = sessions.count
                        sessions.append(
                            Session(session: session, purpose: object["purpose"]?.stringValue ?? "?", startedAt: now, outcome: "in_progress", attempts: 0))
                    }
                    let index = sessionIndex[session]!
                    if let attempts = object["attempts"]?.doubleValue { sessions[index].attempts = Int(attempts) }
                    if let engine = object["engine"]?["name"]?.stringValue ?? object["answeredBy"]?["name"]?.stringValue { sessions[index].engine = engine }
                    if let message = object["error"]?["message"]?.stringValue { sessions[index].detail = message }
                    if status != "in_progress" {
                        sessions[index].outcome = status
                        sessions[index].endedAt = now
                    }
                    let detail = object["error"]?["code"]?.stringValue.map { ", \($0)" } ?? ""
                    timeline.append(Event(at: now, type: type, text: "calculation \(session) (\(sessions[index].purpose)): \(status)\(detail)", location: nil))
                case "waypoint_reached":
                    let event = Event(
                        at: now, type: type, text: "stop \(Int(object["index"]?.doubleValue ?? 0) + 1) reached",
                        location: Self.coordinate(.object(object)))
                    waypointsReached.append(event)
                    timeline.append(event)
                case "arrived":
                    arrival = .object(object)
                    timeline.append(
                        Event(at: now, type: type, text: "arrived after \(HumanReadable.distance(object["distanceTravelled"]?.doubleValue ?? 0))", location: lastLocation))
                case "gnss":
                    timeline.append(
                        Event(at: now, type: type, text: "GNSS \(object["status"]?.stringValue ?? "?"): \(object["detail"]?.stringValue ?? "")", location: nil))
                default:
                    break
                }
            }
        }
        guard sawHeader else { throw NotARecording(description: "not a navd recording: it has no header (docs/recording.md)") }
        span = max(lastT, now)
    }

    static func state(_ object: [String: JSONValue], at now: Double) -> State {
        let deviation = object["deviation"]?["kind"]?.stringValue
        let limit = object["speedLimit"].flatMap { limit -> String? in
            guard let value = limit["value"]?.doubleValue else { return nil }
            return "\(Int(value)) \(limit["unit"]?.stringValue ?? "")"
        }
        return State(
            at: now, fixTime: object["time"]?.stringValue.flatMap(ISO8601Timestamp.parse)?.timeIntervalSinceReferenceDate, routeId: object["routeId"]?.stringValue, snapped: object["snappedLocation"].flatMap(coordinate),
            raw: object["rawLocation"].flatMap(coordinate), navigating: object["state"]?.stringValue == "navigating",
            offRoute: deviation == "offRoute" || deviation == "off_route", predicted: object["predicted"]?.boolValue == true,
            stepIndex: object["stepIndex"]?.doubleValue.map { Int($0) },
            distanceRemaining: object["progress"]?["distanceRemaining"]?.doubleValue,
            durationRemaining: object["progress"]?["durationRemaining"]?.doubleValue,
            distanceTravelled: object["distanceTravelled"]?.doubleValue, speedLimit: limit, roadName: object["roadName"]?.stringValue)
    }

    static func coordinate(_ value: JSONValue) -> GeographicCoordinate? {
        guard let lat = value["lat"]?.doubleValue, let lon = value["lon"]?.doubleValue else { return nil }
        return GeographicCoordinate(latitude: lat, longitude: lon)
    }

    /// A `[[lon, lat], …]` line.
    static func line(_ value: JSONValue?) -> [GeographicCoordinate] {
        (value?.arrayValue ?? []).compactMap { pair in
            guard let items = pair.arrayValue, items.count >= 2, let lon = items[0].doubleValue, let lat = items[1].doubleValue else { return nil }
            return GeographicCoordinate(latitude: lat, longitude: lon)
        }
    }
}
