import Foundation
import NavigationCore

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
    /// The last trip_state's fields.
    var state: JSONValue?
    var reroutes = 0
    var calculation: String?
    var offRoute: String?
    var arrived: String?
    var closed: String?
    /// The newest events, oldest first.
    var recent: [String] = []
    let recentLimit = 6

    mutating func apply(_ message: JSONValue, clock: String) {
        let type = message["type"]?.stringValue ?? ""
        switch type {
        case "hello":
            navdVersion = message["navd"]?.stringValue ?? "?"
            control = message["control"]?.boolValue == true
            let snapshot = message["state"]
            phase = snapshot?["phase"]?.stringValue ?? phase
            routeId = snapshot?["routeId"]?.stringValue
            gnssStatus = snapshot?["gnss"]?["status"]?.stringValue ?? gnssStatus
            gnssDetail = snapshot?["gnss"]?["detail"]?.stringValue ?? gnssDetail
        case "trip_state":
            state = message
            phase = message["state"]?.stringValue ?? phase
            if let id = message["routeId"]?.stringValue { routeId = id }
        case "route":
            routeId = message["routeId"]?.stringValue
            routeReason = message["reason"]?.stringValue
            routeDistance = message["distance"]?.doubleValue
            if routeReason == "reroute" { reroutes += 1 }
            offRoute = nil
            arrived = nil
            note(clock, "route \(routeId ?? "?") (\(routeReason ?? "?")): \(HumanReadable.distance(routeDistance ?? 0))")
        case "instruction":
            let instruction = message["instruction"]
            if message["kind"]?.stringValue == "spoken" { note(clock, "voice: \(instruction?["text"]?.stringValue ?? "")") }
        case "instruction_retracted":
            note(clock, "retracted \(message["instructions"]?.arrayValue?.count ?? 0) instruction(s) (\(message["reason"]?.stringValue ?? ""))")
        case "deviation":
            if message["offRoute"]?.boolValue == true {
                offRoute = "OFF ROUTE by \(Int(message["distance"]?.doubleValue ?? 0)) m; reroute \(message["reroute"]?.stringValue ?? "?")"
                note(clock, offRoute!)
            } else {
                offRoute = nil
                note(clock, "back on the route")
            }
        case "route_calculation":
            var text = "calculation \(Int(message["session"]?.doubleValue ?? 0)) (\(message["purpose"]?.stringValue ?? "")): \(message["status"]?.stringValue ?? "")"
            if let error = message["error"]?["message"]?.stringValue { text += ": \(error)" }
            calculation = text
            note(clock, text)
        case "waypoint_reached":
            note(clock, "reached stop \(Int(message["index"]?.doubleValue ?? 0) + 1)")
        case "arrived":
            arrived = "ARRIVED after \(HumanReadable.distance(message["distanceTravelled"]?.doubleValue ?? 0)) in \(HumanReadable.duration(message["duration"]?.doubleValue ?? 0))"
            note(clock, arrived!)
        case "gnss":
            gnssStatus = message["status"]?.stringValue ?? gnssStatus
            gnssDetail = message["detail"]?.stringValue ?? ""
            note(clock, "GNSS \(gnssStatus): \(gnssDetail)")
        case "error":
            note(clock, "error \(message["code"]?.stringValue ?? ""): \(message["message"]?.stringValue ?? "")")
        case "bye":
            closed = "navd: \(message["reason"]?.stringValue ?? "bye")"
            note(clock, closed!)
        default:
            break
        }
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
        let navigating = state?["state"]?.stringValue == "navigating"
        if let arrived {
            lines += ["", "  ⚑  \(arrived)", ""]
        } else if navigating, let state {
            let primary = state["visualInstruction"]?["primary"]
            let arrow = Self.arrow(type: primary?["maneuverType"]?.stringValue, modifier: primary?["maneuverModifier"]?.stringValue)
            let toManeuver = state["progress"]?["distanceToNextManeuver"]?.doubleValue
            lines.append("  \(arrow)  in \(toManeuver.map(HumanReadable.distance) ?? "?")" + (state["predicted"]?.boolValue == true ? "  (predicted: no GNSS)" : ""))
            lines.append("     \(primary?["text"]?.stringValue ?? state["roadName"]?.stringValue ?? "")")
            if let lanes = Self.lanes(state["visualInstruction"]) { lines.append("     lanes \(lanes)") }
            lines.append("     on \(state["roadName"]?.stringValue ?? "an unnamed road")")
        } else {
            lines += ["", "  no trip" + (phase == "calculating" ? " (calculating a route)" : ""), ""]
        }
        lines.append(rule)
        if arrived == nil, navigating, let state {
            let progress = state["progress"]
            let left = progress?["distanceRemaining"]?.doubleValue ?? 0
            let seconds = progress?["durationRemaining"]?.doubleValue ?? 0
            var eta = ""
            if let text = state["time"]?.stringValue, let time = ISO8601Timestamp.parse(text) {
                eta = " · ETA " + Self.clockTime(time.addingTimeInterval(seconds))
            }
            let total = max(routeDistance ?? left, left, 1)
            lines.append("  \(HumanReadable.distance(left)) left · \(HumanReadable.duration(seconds))\(eta)")
            lines.append("  " + Self.bar(done: 1 - left / total, width: min(50, width - 10)))
            var speed = "  speed –"
            if let metres = state["rawLocation"]?["speed"]?.doubleValue ?? state["snappedLocation"]?["speed"]?.doubleValue {
                speed = "  speed \(Int((metres * 3.6).rounded())) km/h"
            }
            if let limit = state["speedLimit"]?["value"]?.doubleValue {
                speed += " · limit \(Int(limit)) \(state["speedLimit"]?["unit"]?.stringValue ?? "")"
            }
            lines.append(speed)
        } else {
            lines += ["", "", ""]
        }
        lines.append(rule)
        lines.append("  reroutes \(reroutes)" + (offRoute.map { " · \($0)" } ?? "") + (calculation.map { " · \($0)" } ?? ""))
        lines.append("  recent:")
        lines += recent.map { "   \($0)" }
        return lines.map { Self.fit($0, width: width) }
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
        let filled = Int((fraction * Double(width)).rounded())
        return "[" + String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "] \(Int((fraction * 100).rounded()))%"
    }

    /// "04:55 UTC" (`seconds`: "04:55:12").
    static func clockTime(_ date: Date, seconds: Bool = false) -> String {
        let text = ISO8601Timestamp.format(date)
        guard let t = text.firstIndex(of: "T") else { return text }
        let time = text[text.index(after: t)...]
        return seconds ? String(time.prefix(8)) : String(time.prefix(5)) + " UTC"
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
    static func lanes(_ visual: JSONValue?) -> String? {
        let lanes = (visual?["sub"]?["lanes"]?.arrayValue ?? []) + (visual?["primary"]?["lanes"]?.arrayValue ?? [])
        guard !lanes.isEmpty else { return nil }
        return lanes.map { lane in
            let direction = lane["activeDirection"]?.stringValue ?? lane["directions"]?.arrayValue?.first?.stringValue
            let arrow = arrow(type: nil, modifier: direction == "none" ? "straight" : direction)
            return lane["active"]?.boolValue == true ? "[\(arrow)]" : " \(arrow) "
        }.joined()
    }
}
