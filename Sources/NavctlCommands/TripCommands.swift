import ArgumentParser
import Foundation
import NavigationCore
import NavigationProtocol

/// `navctl status`: what navd is doing, in a few lines (or its snapshot as JSON).
struct StatusSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what navd is doing: trip, GNSS, calculations.")

    @OptionGroup var connection: SocketOptions

    @Flag(help: "Print navd's reply as JSON.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let reply = try connection.request(["type": "status"])
            if json { return writeLine(String(decoding: JSONLine.serialize(reply).dropLast(), as: UTF8.self)) }
            for line in Self.describe(reply["result"] ?? .null) { writeLine(line) }
        }
    }

    static func describe(_ s: JSONValue) -> [String] {
        let gnss = s["gnss"]
        var gnssLine = "gnss:    \(gnss?["status"]?.stringValue ?? "?") (\(gnss?["detail"]?.stringValue ?? ""))"
        if let age = gnss?["lastFixAge"]?.doubleValue { gnssLine += ", last fix \(age) s ago" }
        let rejected = ["backwardsInTime", "repeatedTime", "impossibleSpeed"].compactMap { gnss?["rejectedFixes"]?[$0]?.doubleValue }.reduce(0, +)
        if rejected > 0 { gnssLine += ", \(Int(rejected)) fixes rejected" }
        var lines = ["navd:    \(s["phase"]?.stringValue ?? "?")\(s["routeId"]?.stringValue.map { ", trip \($0)" } ?? "")\(s["control"]?.boolValue == false ? " (read only)" : "")", gnssLine]
        if let route = s["route"] {
            var text = "route:   \(HumanReadable.distance(route["distance"]?.doubleValue ?? 0)), \(HumanReadable.duration(route["duration"]?.doubleValue ?? 0)), \(Int(route["steps"]?.doubleValue ?? 0)) steps, \(Int(route["reroutes"]?.doubleValue ?? 0)) reroute(s)"
            if let state = s["tripState"], let left = state["progress"]?["distanceRemaining"]?.doubleValue {
                text += "; \(HumanReadable.distance(left)) left on \(state["roadName"]?.stringValue ?? "an unnamed road")"
            }
            lines.append(text)
        }
        for calculation in s["calculations"]?.arrayValue ?? [] {
            lines.append("calc:    session \(Int(calculation["session"]?.doubleValue ?? 0)) (\(calculation["purpose"]?.stringValue ?? "?")), attempt \(Int(calculation["attempts"]?.doubleValue ?? 0))\(calculation["waitingForFix"]?.boolValue == true ? ", waiting for a fix" : "")")
        }
        if let reroute = s["reroute"] {
            lines.append("reroute: \(reroute["policy"]?.stringValue ?? "?")\(reroute["resumesAt"]?.stringValue.map { ", paused until \($0)" } ?? "")")
        }
        return lines
    }
}

/// `navctl navigate --to LAT,LON [--via LAT,LON ...] [--avoid tolls,...]`: start a trip and say how its
/// calculation ended.
struct NavigateSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navigate", abstract: "Ask navd to navigate from the vehicle's position, through --via stops, to --to.")

    @OptionGroup var connection: SocketOptions

    @Option(help: "The destination, LAT,LON in degrees.")
    var to: GeographicCoordinate

    @Option(help: "A stop on the way, LAT,LON (repeat, in order).")
    var via: [GeographicCoordinate] = []

    @Option(help: "Comma-separated: tolls, highways, ferries.")
    var avoid: String?

    @Option(help: "A routing costing or profile (Valhalla costing, GraphHopper profile).")
    var costing: String?

    @Flag(help: "Return once navd accepted the command, without waiting for the route.")
    var noWait = false

    @Flag(help: "Print navd's messages as JSON Lines.")
    var json = false

    @Option(help: "Seconds to wait for the route.")
    var timeout: Double = 60

    func run() async throws {
        try await reportingErrors {
            var options: [String: JSONValue] = [:]
            if let avoid {
                options["avoid"] = .array(avoid.split(separator: ",").map { .string(String($0).trimmingCharacters(in: .whitespaces)) })
            }
            if let costing { options["costing"] = .string(costing) }
            let waypoints = (via + [to]).map { point -> JSONValue in ["lat": .number(point.latitude), "lon": .number(point.longitude)] }
            var command: [String: JSONValue] = ["type": "navigate", "waypoints": .array(waypoints)]
            if !options.isEmpty { command["options"] = .object(options) }
            let line = try LineConnection(path: connection.socket)
            let reply = try connection.request(command, on: line, timeout: timeout)
            if json { writeLine(String(decoding: JSONLine.serialize(reply).dropLast(), as: UTF8.self)) }
            let session = Int(reply["result"]?["session"]?.doubleValue ?? 0)
            if !json { writeLine("calculation \(session) started" + (reply["result"]?["waitingForFix"]?.boolValue == true ? " (waiting for a GNSS fix)" : "")) }
            guard !noWait else { return }
            let deadline = Date().addingTimeInterval(timeout)
            while let text = try line.readLine(deadline: deadline) {
                guard let message = try? JSONParser.parse(Array(text.utf8)) else { continue }
                let type = message["type"]?.stringValue
                if json, type == "route_calculation" || type == "route" { writeLine(text) }
                if type == "route_calculation", Int(message["session"]?.doubleValue ?? -1) == session {
                    switch message["status"]?.stringValue {
                    case "failed":
                        throw CommandFailure("route calculation \(session) failed: \(message["error"]?["message"]?.stringValue ?? "?")")
                    case "cancelled":
                        throw CommandFailure("route calculation \(session) was cancelled")
                    default: break
                    }
                }
                if type == "route", Int(message["session"]?.doubleValue ?? -1) == session {
                    if !json {
                        writeLine("navigating \(message["routeId"]?.stringValue ?? "?"): \(HumanReadable.distance(message["distance"]?.doubleValue ?? 0)), \(HumanReadable.duration(message["duration"]?.doubleValue ?? 0)), \(Int(message["steps"]?.doubleValue ?? 0)) steps")
                    }
                    return
                }
            }
            throw CommandFailure("no route within \(Int(timeout)) s (navctl watch shows what navd is doing)")
        }
    }
}

/// `navctl cancel`: end the trip and any calculation.
struct CancelSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "End the trip and any route calculation.")

    @OptionGroup var connection: SocketOptions

    @Flag(help: "Print navd's reply as JSON.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let reply = try connection.request(["type": "cancel"])
            if json { return writeLine(String(decoding: JSONLine.serialize(reply).dropLast(), as: UTF8.self)) }
            writeLine(reply["result"]?["cancelledTrip"]?.boolValue == true ? "trip cancelled" : "no trip to cancel")
        }
    }
}
