import FoundationEssentials
import Glibc
import NavigationCore
import NavigationProtocol

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
        /// The speed alert's level on this state (`minor`, `major`), nil without one.
        public var speedAlert: String?
        /// navd's arrival estimate on this state (at the driver's pace), seconds since 2001-01-01 UTC.
        public var arrivalTime: Double?
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
    /// Every change of the speed alert (raised, lowered, cleared; the slow-down warning), in order.
    public var speedAlerts: [Event] = []
    public var sessions: [Session] = []
    /// The arrival, when the trip arrived.
    public var arrival: ArrivedEvent?
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
                    // A recording's numbers pass CheckedNumber: one out of its range is skipped, never drawn.
                    if let t = CheckedNumber.measure(object["t"], in: PhysicalRange.recordedDuration) { lastT = max(lastT, t) }
                    if let value = CheckedNumber.measure(object["now"], in: PhysicalRange.referenceTime) {
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
                        var check = RangeCheck()
                        guard let fix = object["fix"], let lat = check.measure(fix["lat"], in: -90...90), let lon = check.measure(fix["lon"], in: -180...180)
                        else { continue }
                        let time = check.measure(fix["time"], in: PhysicalRange.referenceTime)
                        let accuracy = check.measure(fix["accuracy"], in: PhysicalRange.accuracy)
                        let speed = check.measure(fix["speed"], in: PhysicalRange.speed)
                        guard !check.failed else { continue }
                        fixes.append(
                            Fix(at: now, time: time ?? now, coordinate: GeographicCoordinate(latitude: lat, longitude: lon), accuracy: accuracy ?? 0,
                                speed: speed))
                    case "no_fix":
                        noFixEpochs += 1
                    default:
                        break
                    }
                    continue
                }
                guard case .event(let message) = try? ServerLine(line: Array(line.utf8)) else { continue }
                let routeId = message.routeId
                switch message.event {
                case .tripState(let record):
                    let state = Self.state(record, routeId: routeId, at: now)
                    if let raw = state.raw ?? state.snapped { lastLocation = raw }
                    if state.navigating, let step = state.stepIndex {
                        if let previous = previousStep, previous.routeId == routeId, step > previous.step, let place = state.snapped {
                            let road = state.roadName.map { " onto \($0)" } ?? ""
                            stepAdvances.append(Event(at: now, type: "step", text: "step \(step)\(road)", location: place))
                        }
                        previousStep = (routeId, step)
                    }
                    states.append(state)
                case .route(let route):
                    routes.append(
                        RouteShown(
                            at: now, routeId: routeId ?? "?", reason: route.reason.rawValue, geometry: route.route.geometry,
                            waypoints: route.route.waypoints.map(\.coordinate), distance: route.distance, duration: route.duration))
                    timeline.append(
                        Event(
                            at: now, type: "route",
                            text: "route \(routeId ?? "?") (\(route.reason.rawValue)): \(HumanReadable.distance(route.distance)), \(HumanReadable.duration(route.duration))",
                            location: lastLocation))
                case .deviation(let deviation):
                    let text = deviation.offRoute
                        ? "off route by \(CheckedNumber.clampedWhole(deviation.distance, rounding: .towardZero)) m; reroute \(deviation.reroute?.rawValue ?? "?")"
                        : "back on the route"
                    let event = Event(at: now, type: "deviation", text: text, location: lastLocation)
                    if deviation.offRoute { deviations.append(event) }
                    timeline.append(event)
                case .instruction(let instruction):
                    let words = instruction.visual?.primary.text ?? instruction.spoken?.text ?? ""
                    timeline.append(Event(at: now, type: "instruction", text: "\(instruction.kind == .visual ? "banner" : "voice"): \(words)", location: lastLocation))
                case .routeRefreshed(let refreshed):
                    timeline.append(Event(at: now, type: "route_refreshed", text: refreshed.summary, location: lastLocation))
                case .routeAlternatives(let alternatives):
                    timeline.append(Event(at: now, type: "route_alternatives", text: alternatives.summary, location: lastLocation))
                case .fasterRoute(let faster):
                    timeline.append(Event(at: now, type: "faster_route", text: faster.summary, location: lastLocation))
                case .announcement(let announcement):
                    timeline.append(Event(at: now, type: "announcement", text: "navd: \(announcement.text)", location: lastLocation))
                case .voice(let voice):
                    timeline.append(Event(at: now, type: "voice", text: voice.summary, location: lastLocation))
                case .instructionRetracted(let retracted):
                    timeline.append(
                        Event(
                            at: now, type: "instruction_retracted",
                            text: "\(retracted.instructions.count) instruction(s) retracted (\(retracted.reason.rawValue))", location: lastLocation))
                case .routeCalculation(let calculation):
                    if sessionIndex[calculation.session] == nil {
                        sessionIndex[calculation.session] = sessions.count
                        sessions.append(
                            Session(session: calculation.session, purpose: calculation.purpose.rawValue, startedAt: now, outcome: "in_progress", attempts: 0))
                    }
                    let index = sessionIndex[calculation.session]!
                    if let attempts = calculation.attempts { sessions[index].attempts = attempts }
                    if let engine = calculation.engine?.name { sessions[index].engine = engine }
                    if let error = calculation.error { sessions[index].detail = error.message }
                    if calculation.status != .inProgress {
                        sessions[index].outcome = calculation.status.rawValue
                        sessions[index].endedAt = now
                    }
                    let detail = calculation.error.map { ", \($0.code)" } ?? ""
                    timeline.append(
                        Event(
                            at: now, type: "route_calculation",
                            text: "calculation \(calculation.session) (\(calculation.purpose.rawValue)): \(calculation.status.rawValue)\(detail)", location: nil))
                case .waypointReached(let waypoint):
                    let event = Event(
                        at: now, type: "waypoint_reached", text: "stop \(waypoint.index + 1) reached",
                        location: GeographicCoordinate(latitude: waypoint.lat, longitude: waypoint.lon))
                    waypointsReached.append(event)
                    timeline.append(event)
                case .arrived(let event):
                    arrival = event
                    timeline.append(Event(at: now, type: "arrived", text: "arrived after \(HumanReadable.distance(event.distanceTravelled))", location: lastLocation))
                case .gnss(let gnss):
                    timeline.append(Event(at: now, type: "gnss", text: "GNSS \(gnss.status.rawValue): \(gnss.detail)", location: nil))
                case .speedAlert(let alert):
                    let event = Event(at: now, type: "speed_alert", text: alert.summary, location: lastLocation)
                    speedAlerts.append(event)
                    timeline.append(event)
                }
            }
        }
        guard sawHeader else { throw NotARecording(description: "not a navd recording: it has no header (docs/recording.md)") }
        span = max(lastT, now)
    }

    static func state(_ record: TripStateRecord, routeId: String?, at now: Double) -> State {
        let deviation = record.deviation?.kind
        return State(
            at: now, fixTime: ISO8601Timestamp.parse(record.time)?.timeIntervalSinceReferenceDate, routeId: routeId,
            snapped: record.snappedLocation.map(coordinate), raw: record.rawLocation.map(coordinate), navigating: record.state == "navigating",
            offRoute: deviation == "off_route" || deviation == "offRoute", predicted: record.predicted == true, stepIndex: record.stepIndex,
            distanceRemaining: record.progress?.distanceRemaining, durationRemaining: record.progress?.durationRemaining,
            distanceTravelled: record.distanceTravelled, speedLimit: record.speedLimit.map { "\(CheckedNumber.clampedWhole($0.value, rounding: .towardZero)) \($0.unit)" },
            roadName: record.roadName, speedAlert: record.speedAlert.flatMap { $0.level == .none ? nil : $0.level.rawValue },
            arrivalTime: record.arrival.flatMap { ISO8601Timestamp.parse($0.time)?.timeIntervalSinceReferenceDate })
    }


    static func coordinate(_ point: TripStateRecord.Point) -> GeographicCoordinate {
        GeographicCoordinate(latitude: point.lat, longitude: point.lon)
    }

}
