import ArgumentParser
import FoundationEssentials
import Glibc
import NavdClient
import NavigationCore
import NavigationProtocol
import RouteAdapters

/// Prints a typed value as one JSON line.
func writeJSON<Value: Encodable>(_ value: Value) throws {
    writeLine(String(decoding: JSONLine.serialize(try JSONValueEncoder().encode(value).objectValue ?? [:]).dropLast(), as: UTF8.self))
}

/// `navctl status`: what navd is doing, in a few lines (or its snapshot as JSON).
struct StatusSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what navd is doing: trip, GNSS, calculations.")

    @OptionGroup var connection: SocketOptions

    @Flag(help: "Print navd's snapshot as JSON.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let snapshot = try await connection.send(StatusCommand())
            if json { return try writeJSON(snapshot) }
            for line in Self.describe(snapshot) { writeLine(line) }
        }
    }

    static func describe(_ s: Snapshot) -> [String] {
        var gnss = "gnss:    \(s.gnss.status.rawValue) (\(s.gnss.detail))"
        if let age = s.gnss.lastFixAge { gnss += ", last fix \(age) s ago" }
        let rejected = s.gnss.rejectedFixes.total
        if rejected > 0 { gnss += ", \(rejected) fixes rejected" }
        var lines = ["navd:    \(s.phase.rawValue)\(s.routeId.map { ", trip \($0)" } ?? "")\(s.control == false ? " (read only)" : "")", gnss]
        if let route = s.route {
            var text = "route:   \(HumanReadable.distance(route.distance)), \(HumanReadable.duration(route.duration)), \(route.steps) steps, \(route.reroutes) reroute(s)"
            if let state = s.tripState, let left = state.progress?.distanceRemaining {
                text += "; \(HumanReadable.distance(left)) left on \(state.roadName ?? "an unnamed road")"
            }
            if let arrival = s.tripState?.arrival {
                text += "; arriving \(arrival.time) (pace \(arrival.pace))"
            }
            lines.append(text)
        }
        if let stops = Self.describeStops(s) { lines.append(stops) }
        if s.route == nil, let state = s.tripState, let freeDrive = state.freeDrive { lines.append(Self.describeFreeDrive(state, freeDrive)) }
        if let alert = s.tripState?.speedAlert, alert.level != .none, let limit = alert.limit {
            lines.append("speed:   \(alert.level.rawValue) alert, \(alert.speed.map { CheckedNumber.clampedWhole($0) } ?? 0) in a \(CheckedNumber.clampedWhole(limit, rounding: .towardZero)) \(alert.unit) limit")
        }
        for calculation in s.calculations {
            lines.append("calc:    session \(calculation.session) (\(calculation.purpose.rawValue)), attempt \(calculation.attempts)\(calculation.waitingForFix ? ", waiting for a fix" : "")")
        }
        lines.append("reroute: \(s.reroute.policy)\(s.reroute.resumesAt.map { ", paused until \($0)" } ?? "")")
        return lines
    }

    /// The waypoints still ahead, each with the number `add-stop --index` and `remove-stop --index` give it (0:
    /// the next one), the destination last; nil without a navigating trip.
    static func describeStops(_ s: Snapshot) -> String? {
        guard let destinations = s.destinations, let remaining = s.tripState?.remainingWaypoints, (1...destinations.count).contains(remaining)
        else { return nil }
        let ahead = destinations.suffix(remaining).enumerated().map { "[\($0.offset)] \($0.element.lat),\($0.element.lon)" }
        return "stops:   \(remaining) ahead: " + ahead.joined(separator: " · ") + " (destination)"
    }

    /// Without a trip: the road free drive matched the car to, or that it is still finding it, or why it cannot.
    static func describeFreeDrive(_ state: TripStateRecord, _ freeDrive: TripStateRecord.FreeDrive) -> String {
        switch freeDrive.status {
        case "matched":
            let limit = state.speedLimit.map { ", limit \(CheckedNumber.clampedWhole($0.value, rounding: .towardZero)) \($0.unit)" } ?? ""
            return "free:    matched, on \(state.roadName ?? "an unnamed road")\(limit)"
        case "unavailable":
            return "free:    unavailable (\(freeDrive.detail ?? "no reason given"))"
        default:
            return "free:    finding the road"
        }
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

    @Option(help: "Also ask for up to N other routes (0-3) and list them; `navctl choose INDEX` takes one.")
    var alternatives: Int = 0

    @Option(help: "This trip's language, a BCP 47 tag (default: [guidance] language).")
    var language: String?

    @Option(help: "This trip's units: metric, imperial or auto (default: those of --language, else [guidance] units).")
    var units: String?

    @OptionGroup var waiting: CalculationWaitOptions

    func run() async throws {
        try await reportingErrors {
            var avoided: Set<RouteOptions.Avoid> = []
            for item in (avoid ?? "").split(separator: ",").map({ $0.trimmingWhitespace }) where !item.isEmpty {
                guard let parsed = RouteOptions.Avoid(rawValue: item) else {
                    throw CommandFailure("--avoid: '\(item)' is not one of \(RouteOptions.Avoid.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                avoided.insert(parsed)
            }
            guard (0...NavigateCommand.alternativesLimit).contains(alternatives) else {
                throw CommandFailure("--alternatives: \(alternatives) is outside 0...\(NavigateCommand.alternativesLimit)")
            }
            var options = RouteOptions(costing: costing, avoid: avoided)
            // Checked as navd checks them, so that a typo is reported here with the same words.
            var localeFields: [String: JSONValue] = [:]
            if let language { localeFields["language"] = .string(language) }
            if let units { localeFields["units"] = .string(units) }
            do throws(ProtocolError) {
                let locale = try RouteOptions(fields: CommandFields(localeFields))
                options.language = locale.language
                options.imperial = locale.imperial
            } catch {
                throw CommandFailure(error.message.replacing("options.", with: "--"))
            }
            let command = NavigateCommand(waypoints: (via + [to]).map { Waypoint(coordinate: $0) }, options: options, alternatives: alternatives)
            let navd = try await connection.connect()
            defer { navd.close() }
            let reply: NavigateReply
            do throws(NavdClientError) {
                reply = try await navd.send(command, timeout: waiting.timeout)
            } catch {
                throw CommandFailure(error.description)
            }
            if waiting.json { try writeJSON(reply) } else {
                writeLine("calculation \(reply.session) started" + (reply.waitingForFix ? " (waiting for a GNSS fix)" : ""))
            }
            try await waiting.waitForRoute(navd, session: reply.session, listingAlternatives: alternatives > 0)
        }
    }
}

/// How a command that starts a calculation waits for its route (`navigate`, `add-stop`, ...).
struct CalculationWaitOptions: ParsableArguments {
    @Flag(help: "Return once navd accepted the command, without waiting for the route.")
    var noWait = false

    @Flag(help: "Print navd's reply and the calculation's events as JSON Lines.")
    var json = false

    @Option(help: "Seconds to wait for the route.")
    var timeout: Double = 60

    /// Follows calculation `session` to its route (printed) or its failure (thrown), unless `--no-wait`.
    /// `listingAlternatives`: then prints the alternatives navd offers (they follow the route at once), or that
    /// the engine found none.
    func waitForRoute(_ navd: NavdConnection, session: Int, listingAlternatives: Bool = false) async throws {
        guard !noWait else { return }
        let timeout = self.timeout
        Task {
            try? await Task.sleep(for: .seconds(timeout))
            navd.close()
        }
        var waitingForAlternatives = false
        for await message in navd.events {
            switch message.event {
            case .routeCalculation(let calculation) where calculation.session == session:
                if json { writeLine(String(decoding: message.line.dropLast(), as: UTF8.self)) }
                if calculation.status == .failed { throw CommandFailure("route calculation \(session) failed: \(calculation.error?.message ?? "?")") }
                if calculation.status == .cancelled { throw CommandFailure("route calculation \(session) was cancelled: \(calculation.reason ?? "?")") }
                if calculation.status == .succeeded, calculation.applied == false {
                    throw CommandFailure("route calculation \(session) was not applied: \(calculation.reason ?? "?")")
                }
            case .route(let route) where route.session == session:
                if json {
                    writeLine(String(decoding: message.line.dropLast(), as: UTF8.self))
                } else {
                    writeLine("navigating \(message.routeId ?? "?") (\(route.reason.rawValue)): \(HumanReadable.distance(route.distance)), \(HumanReadable.duration(route.duration)), \(route.steps) steps")
                }
                guard listingAlternatives else { return }
                waitingForAlternatives = true
            case .routeAlternatives(let offer) where offer.session == session && offer.status == .offered:
                if json { writeLine(String(decoding: message.line.dropLast(), as: UTF8.self)) } else {
                    for option in offer.routes { writeLine("  [\(option.index)] \(option.summary)") }
                    writeLine("navctl choose INDEX before \(offer.chooseBefore ?? "?") takes another; [0] is navigated meanwhile")
                }
                return
            case _ where waitingForAlternatives:
                // The offer comes right after the route, or not at all.
                if !json { writeLine("the engine found no other route") }
                return
            default:
                break
            }
        }
        throw CommandFailure("no route within \(CheckedNumber.clampedWhole(timeout, rounding: .towardZero)) s (navctl watch shows what navd is doing)")
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
            let reply = try await connection.send(CancelCommand())
            if json { return try writeJSON(reply) }
            writeLine(reply.cancelledTrip ? "trip cancelled" : "no trip to cancel")
        }
    }
}
