import FoundationEssentials
import Glibc
import Guidance
import NavigationCore
import NavigationProtocol

/// What `navctl watch` shows on a terminal, rebuilt from navd's messages: the next maneuver with an arrow and
/// the distance to it, the road, lanes when known, distance and time left with the ETA and a progress bar,
/// speed and limit, GNSS state and reroute activity, and the latest events. Pure: messages in, lines out.
struct LiveView {
    var navdVersion = "?"
    var control = false
    var phase = "idle"
    var routeId: String?
    var routeReason: String?
    var routeDistance: Double?
    var gnssStatus = "?"
    var gnssDetail = ""
    /// The last trip state.
    var state: TripStateRecord?
    var reroutes = 0
    var calculation: String?
    var offRoute: String?
    var arrived: String?
    var closed: String?
    /// The driver's units (`state.voice.units` of hello, `voice` events): distances and speeds are shown in them.
    var units = DistanceFormatter(units: .metric)
    /// The newest events, oldest first.
    var recent: [String] = []
    let recentLimit = 6

    mutating func connected(_ hello: Hello) {
        navdVersion = hello.navd
        control = hello.control
        phase = hello.state.phase.rawValue
        routeId = hello.state.routeId
        gnssStatus = hello.state.gnss.status.rawValue
        gnssDetail = hello.state.gnss.detail
        state = hello.state.tripState
        if let voice = hello.state.voice { units = DistanceFormatter(units: voice.units) }
    }

    mutating func apply(_ message: EventMessage, clock: String) {
        switch message.event {
        case .tripState(let record):
            state = record
            phase = record.state
            if let id = message.routeId { routeId = id }
        case .route(let route):
            routeId = message.routeId
            routeReason = route.reason.rawValue
            routeDistance = route.distance
            if route.reason == .reroute { reroutes += 1 }
            offRoute = nil
            arrived = nil
            note(clock, "route \(routeId ?? "?") (\(route.reason.rawValue)): \(units.abbreviated(route.distance))")
        case .instruction(let instruction):
            if let spoken = instruction.spoken { note(clock, "voice: \(spoken.text)") }
        case .instructionRetracted(let retracted):
            note(clock, "retracted \(retracted.instructions.count) instruction(s) (\(retracted.reason.rawValue))")
        case .deviation(let deviation):
            if deviation.offRoute {
                offRoute = "OFF ROUTE by \(CheckedNumber.clampedWhole(deviation.distance, rounding: .towardZero)) m; reroute \(deviation.reroute?.rawValue ?? "?")"
                note(clock, offRoute!)
            } else {
                offRoute = nil
                note(clock, "back on the route")
            }
        case .routeCalculation(let calculation):
            var text = "calculation \(calculation.session) (\(calculation.purpose.rawValue)): \(calculation.status.rawValue)"
            if let error = calculation.error { text += ": \(error.message)" }
            self.calculation = text
            note(clock, text)
        case .waypointReached(let waypoint):
            note(clock, "reached stop \(waypoint.index + 1)")
        case .arrived(let event):
            arrived = "ARRIVED after \(units.abbreviated(event.distanceTravelled)) in \(HumanReadable.duration(event.duration))"
            note(clock, arrived!)
        case .gnss(let gnss):
            gnssStatus = gnss.status.rawValue
            gnssDetail = gnss.detail
            note(clock, "GNSS \(gnssStatus): \(gnssDetail)")
        case .speedAlert(let alert):
            note(clock, alert.summary)
        case .routeRefreshed(let refreshed):
            note(clock, refreshed.summary)
        case .routeAlternatives(let alternatives):
            note(clock, alternatives.summary)
        case .fasterRoute(let faster):
            note(clock, faster.summary)
        case .announcement(let announcement):
            note(clock, "navd: \(announcement.text)")
        case .voice(let voice):
            units = DistanceFormatter(units: voice.units)
            note(clock, voice.summary)
        }
    }

    mutating func closed(_ reason: String, clock: String) {
        closed = reason
        note(clock, reason)
    }

    private mutating func note(_ clock: String, _ text: String) {
        recent.append("\(clock) \(text)")
        if recent.count > recentLimit { recent.removeFirst(recent.count - recentLimit) }
    }

    /// The screen, `width` columns wide.
    func render(width: Int) -> [String] {
        let width = max(40, width)
        let rule = String(repeating: "─", count: width)
        var lines: [String] = []
        let gnss = "GNSS \(gnssStatus)" + (gnssDetail.isEmpty ? "" : " (\(gnssDetail))")
        lines.append(Self.spread("navd \(navdVersion) · \(phase)\(routeId.map { " · \($0)" } ?? "")", gnss, width: width))
        lines.append(rule)
        let navigating = state?.state == "navigating"
        if let arrived {
            lines += ["", "  ⚑  \(arrived)", ""]
        } else if navigating, let state, let approach = state.approach {
            // A trip that starts off the road network: where the route is, not a maneuver for a road out of reach.
            let road = approach.roadName.map { "head to \($0)" } ?? "head to the route"
            lines.append("  ⇢  \(road)")
            lines.append("     \(units.abbreviated(approach.distance)) \(Self.compassPoint(approach.bearing))")
            lines.append("     the route starts where the car can join it")
        } else if navigating, let state {
            let primary = state.visualInstruction?.primary
            let arrow = Self.arrow(type: primary?.maneuverType?.name, modifier: primary?.maneuverModifier?.name)
            let toManeuver = state.progress?.distanceToNextManeuver
            lines.append("  \(arrow)  in \(toManeuver.map(units.abbreviated) ?? "?")" + (state.predicted == true ? "  (predicted: no GNSS)" : ""))
            lines.append("     \(primary?.text ?? state.roadName ?? "")")
            if let lanes = Self.lanes(state.visualInstruction) { lines.append("     lanes \(lanes)") }
            lines.append("     on \(state.roadName ?? "an unnamed road")")
            if let next = state.roadAhead?.first { lines.append("     ahead: \(Self.describe(next, units: units))") }
        } else if arrived == nil, phase != "calculating", let state, state.state == "idle", let freeDrive = state.freeDrive {
            // No trip: what free drive knows of the road the car is on.
            lines += freeDriveLines(state, freeDrive)
        } else {
            lines += ["", "  no trip" + (phase == "calculating" ? " (calculating a route)" : ""), ""]
        }
        lines.append(rule)
        let freeDriving = arrived == nil && !navigating && state?.freeDrive?.status == "matched"
        if freeDriving, let state {
            lines += ["", "", speedLine(state)]
        } else if arrived == nil, navigating, let state {
            let left = state.progress?.distanceRemaining ?? 0
            // navd's arrival at the driver's pace; the engine's remaining duration from a navd without it.
            let seconds = state.arrival?.durationRemaining ?? state.progress?.durationRemaining ?? 0
            var eta = ""
            if let arrival = state.arrival.flatMap({ ISO8601Timestamp.parse($0.time) }) {
                eta = " · ETA " + Self.clockTime(arrival)
            } else if let time = ISO8601Timestamp.parse(state.time) {
                eta = " · ETA " + Self.clockTime(time.addingTimeInterval(seconds))
            }
            if let next = state.arrival?.waypoints.first, state.arrival!.waypoints.count > 1, let at = ISO8601Timestamp.parse(next.time) {
                eta += " · next stop " + Self.clockTime(at)
            }
            let total = max(routeDistance ?? left, left, 1)
            lines.append("  \(units.abbreviated(left)) left · \(HumanReadable.duration(seconds))\(eta)")
            lines.append("  " + Self.bar(done: 1 - left / total, width: min(50, width - 10)))
            lines.append(speedLine(state))
        } else {
            lines += ["", "", ""]
        }
        lines.append(rule)
        var deviation = offRoute
        if deviation == nil, navigating, arrived == nil, let state, state.deviation?.kind == "leaving" {
            deviation = "leaving the route? \(CheckedNumber.clampedWhole(state.deviation?.distance ?? 0, rounding: .towardZero)) m from it"
        }
        lines.append("  reroutes \(reroutes)" + (deviation.map { " · \($0)" } ?? "") + (calculation.map { " · \($0)" } ?? ""))
        lines.append("  recent:")
        lines += recent.map { "   \($0)" }
        return lines.map { Self.fit($0, width: width) }
    }

    /// The speed with the limit, the speed alert and the slow-down warning, as a trip or free drive knows them.
    func speedLine(_ state: TripStateRecord) -> String {
        var speed = "  speed –"
        if let metres = state.rawLocation?.speed ?? state.snappedLocation?.speed { speed = "  speed \(units.speed(metres))" }
        if let alert = state.speedAlert, alert.level != .none || alert.lowerLimitAhead != nil {
            // The alert speaks in the limit's unit (mph where the road is posted in mph).
            if let value = alert.speed { speed = "  speed \(CheckedNumber.clampedWhole(value)) \(alert.unit)" }
            if let limit = alert.limit { speed += " · limit \(CheckedNumber.clampedWhole(limit, rounding: .towardZero)) \(alert.unit)" }
            if alert.level != .none { speed += alert.level == .major ? " · OVER THE LIMIT" : " · over the limit" }
            if let ahead = alert.lowerLimitAhead {
                speed += " · slow down: \(CheckedNumber.clampedWhole(ahead.limit)) \(ahead.unit) in \(units.abbreviated(ahead.distance))"
            }
        } else if let limit = state.speedLimit {
            speed += " · limit \(CheckedNumber.clampedWhole(limit.value, rounding: .towardZero)) \(limit.unit)"
        }
        return speed
    }

    /// Three lines for a state without a trip: the road free drive matched and the stretch the car is in, or
    /// that it is still finding the road, or why it cannot (no engine).
    func freeDriveLines(_ state: TripStateRecord, _ freeDrive: TripStateRecord.FreeDrive) -> [String] {
        switch freeDrive.status {
        case "matched":
            return [
                "  ⌁  free drive (no trip)", "     on \(state.roadName ?? "an unnamed road")",
                state.roadAhead?.first.map { "     \(Self.describe($0, units: units))" } ?? "",
            ]
        case "unavailable":
            return ["", "  no trip · free drive unavailable", "     \(freeDrive.detail ?? "")"]
        default:
            return ["", "  no trip · free drive: finding the road", ""]
        }
    }

    static func spread(_ left: String, _ right: String, width: Int) -> String {
        let gap = width - left.count - right.count
        return gap >= 1 ? left + String(repeating: " ", count: gap) + right : left + " " + right
    }

    static func fit(_ line: String, width: Int) -> String {
        line.count <= width ? line : String(line.prefix(width - 1)) + "…"
    }

    static func bar(done: Double, width: Int) -> String {
        let fraction = min(1, max(0, done.isFinite ? done : 0))
        let filled = CheckedNumber.clampedWhole(fraction * Double(width), in: 0...max(0, width))
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "] \(CheckedNumber.clampedWhole(fraction * 100))%"
    }

    /// "04:55 UTC" (`seconds`: "04:55:12").
    static func clockTime(_ date: Date, seconds: Bool = false) -> String {
        let text = ISO8601Timestamp.format(date)
        guard let t = text.firstIndex(of: "T") else { return text }
        let time = text[text.index(after: t)...]
        return seconds ? String(time.prefix(8)) : String(time.prefix(5)) + " UTC"
    }

    /// "tunnel Kalliotunneli in 250 m (1.5 km)", "toll booth in 80 m", "in tunnel Kalliotunneli, 900 m left".
    static func describe(_ object: RoadObjectAhead, units: DistanceFormatter = DistanceFormatter(units: .metric)) -> String {
        let kind = String(object.kind.map { $0 == "_" ? " " : $0 })
        let what = [kind, object.name, object.detail].compactMap { $0 }.joined(separator: " ")
        if object.distance == 0, let length = object.length { return "in \(what), \(units.abbreviated(length)) left" }
        // Free drive knows the stretch the car is in, not how much of it is left.
        if object.distance == 0 { return "in \(what)" }
        return "\(what) in \(units.abbreviated(object.distance))" + (object.length.map { " (\(units.abbreviated($0)))" } ?? "")
    }

    /// "north-east" for 45°: the eight points of the compass, for a bearing in degrees.
    static func compassPoint(_ bearing: Double) -> String {
        let points = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"]
        let sector = CheckedNumber.clampedWhole((bearing.isFinite ? bearing : 0) / 45, in: -1_000...1_000)
        return points[((sector % 8) + 8) % 8]
    }

    /// An arrow for a maneuver (OSRM's types and modifiers).
    static func arrow(type: String?, modifier: String?) -> String {
        switch type {
        case "arrive": return "⚑"
        case "roundabout", "rotary", "roundabout turn", "exit roundabout", "exit rotary": return "↻"
        default: break
        }
        switch modifier {
        case "uturn": return "↶"
        case "sharp right": return "↘"
        case "right": return "↱"
        case "slight right": return "↗"
        case "straight": return "↑"
        case "slight left": return "↖"
        case "left": return "↰"
        case "sharp left": return "↙"
        default: return "↑"
        }
    }

    /// Lanes as arrows, the ones to use in brackets; nil when the instruction has none.
    static func lanes(_ visual: VisualInstruction?) -> String? {
        let lanes = (visual?.sub?.lanes ?? []) + (visual?.primary.lanes ?? [])
        guard !lanes.isEmpty else { return nil }
        return lanes.map { lane in
            let direction = lane.activeDirection ?? lane.directions.first
            let arrow = arrow(type: nil, modifier: direction == "none" ? "straight" : direction)
            return lane.active ? "[\(arrow)]" : " \(arrow) "
        }.joined()
    }
}
