import ArgumentParser
import NavdClient
import NavigationCore
import NavigationProtocol

/// `navctl add-stop --at LAT,LON [--index N] [--via]`: a stop on the way, routed from where the vehicle is.
struct AddStopSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-stop",
        abstract: "Add a stop to the trip: navd routes from the vehicle through the new list of waypoints.",
        discussion: "--index counts among the waypoints still ahead: 0 puts the stop before the next one, their count after the destination (a new destination). Without --index the stop comes just before the destination.")

    @OptionGroup var connection: SocketOptions

    @Option(help: "The stop, LAT,LON in degrees.")
    var at: GeographicCoordinate

    @Option(help: "Where among the waypoints still ahead (0: before the next one).")
    var index: Int?

    @Flag(help: "A shaping point the route passes through, without a stop or an announcement.")
    var via = false

    @OptionGroup var waiting: CalculationWaitOptions

    func run() async throws {
        try await editStops(AddStopCommand(waypoint: Waypoint(coordinate: at, kind: via ? .via : .break), index: index), connection: connection, waiting: waiting)
    }
}

/// `navctl remove-stop --index N`: a waypoint ahead taken off the trip.
struct RemoveStopSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-stop", abstract: "Remove a waypoint still ahead from the trip (navd routes through the rest).")

    @OptionGroup var connection: SocketOptions

    @Option(help: "Which of the waypoints still ahead (0: the next one).")
    var index: Int

    @OptionGroup var waiting: CalculationWaitOptions

    func run() async throws {
        try await editStops(RemoveStopCommand(index: index), connection: connection, waiting: waiting)
    }
}

/// `navctl skip-waypoint`: on to the waypoint after the next, as if the next had been reached.
struct SkipWaypointSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "skip-waypoint", abstract: "Skip the next waypoint: navd routes on to the one after it.")

    @OptionGroup var connection: SocketOptions

    @OptionGroup var waiting: CalculationWaitOptions

    func run() async throws {
        try await editStops(SkipWaypointCommand(), connection: connection, waiting: waiting)
    }
}

/// Sends a change of stops, says which list navd routes through, and follows the calculation to its route.
private func editStops<Command: NavigationCommand>(
    _ command: Command, connection: SocketOptions, waiting: CalculationWaitOptions
) async throws where Command.Result == StopsReply {
    try await reportingErrors {
        let navd = try await connection.connect()
        defer { navd.close() }
        let reply: StopsReply
        do throws(NavdClientError) {
            reply = try await navd.send(command, timeout: waiting.timeout)
        } catch {
            throw CommandFailure(error.description)
        }
        if waiting.json {
            try writeJSON(reply)
        } else {
            let list = reply.waypoints.enumerated().map { "\($0.offset): \(formatCoordinate($0.element))" }.joined(separator: ", ")
            writeLine("calculation \(reply.session) started: \(reply.waypoints.count) waypoint(s) ahead (\(list)), the last the destination")
        }
        try await waiting.waitForRoute(navd, session: reply.session)
    }
}

private func formatCoordinate(_ point: LatLon) -> String {
    "\(point.lat),\(point.lon)"
}

/// `navctl choose INDEX`: take a route of navd's open offer (`navigate --alternatives`, or a faster way).
struct ChooseSubcommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "choose", abstract: "Take route INDEX of the routes navd offers (navigate --alternatives, or a faster way: 0).")

    @OptionGroup var connection: SocketOptions

    @Argument(help: "The route's index in the offer.")
    var index: Int

    @Flag(help: "Print navd's reply as JSON.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let reply = try await connection.send(ChooseRouteCommand(index: index))
            if json { return try writeJSON(reply) }
            writeLine("navigating \(reply.routeId) (route \(reply.index) of the offer)")
        }
    }
}
