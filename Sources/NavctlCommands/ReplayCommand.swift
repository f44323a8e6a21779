import ArgumentParser
import FoundationEssentials
import Glibc
import NavigationCore
import LocationSources
import TrackFormats
import SystemSupport

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a navd recording through the daemon's logic, or run the controller over a track.",
        discussion: """
            navctl replay RECORDING [PART...] [--diff]: runs navd's own navigation loop (trip coordinator, sessions,             reroute gate, journal decisions, controller, event encoding) over a recording with its recorded clock and             routing answers, and prints the lines navd sent: the same bytes it sent while recording, unless its logic             changed since. --diff compares them with the recording and shows the first difference (docs/recording.md).

            navctl replay --route ROUTE --track TRACK: the controller alone over a track. Fixes go through navd's             plausibility gate first (rejected fixes are reported on stderr and change nothing); gaps in the track are             bridged by dead reckoning along the route, one predicted state per second ("predicted": true). The output             format is described in docs/replay-format.md. The same inputs always give the same bytes.
            """)

    @Argument(help: "A recording (navd's flight recorder, docs/recording.md): its first file, then any parts.")
    var recording: [String] = []

    @Flag(help: "With a recording: compare the replay with what navd sent; exit 1 at the first difference.")
    var diff = false

    @Flag(help: "With a recording: write the replayed output lines into it in place of the recorded ones (accepting a change of behaviour; review it with git diff). One file only.")
    var rewrite = false

    @Option(help: "Route file: navctl's route JSON (docs/route-format.md) or a saved OSRM-format answer.")
    var route: String?

    @Option(help: "Which route of the file, from 1.")
    var routeNumber: Int = 1

    @Option(help: "Track: JSON Lines of fixes (navctl simulate), GPX, an NMEA log, or a gpsd JSON log (gpspipe -w).")
    var track: String?

    @Option(help: "Controller configuration, JSON (docs/controller.md). Default: the car defaults.")
    var config: String?

    @Option(help: "Seconds of a gap in the track during which progress is predicted along the route, one state per second (0: none).")
    var deadReckoning: Double = 60

    func run() async throws {
        if !recording.isEmpty {
            guard route == nil, track == nil else { throw ValidationError("give either a recording or --route and --track, not both") }
            return try await reportingErrors { try replayRecording() }
        }
        guard let route, let track else { throw ValidationError("give a recording, or --route ROUTE and --track TRACK") }
        try await reportingErrors {
            let selected = try loadRoute(route, number: routeNumber)
            let configuration = try config.map(loadControllerConfig) ?? NavigationControllerConfig()
            let fixes: [UserLocation]
            do {
                fixes = try ReplaySource.readings(from: try readInput(track)).compactMap(\.fix?.location)
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw CommandFailure("\(track): \(error)")
            }
            guard !fixes.isEmpty else { throw CommandFailure("\(track) has no fixes") }
            let controller = try NavigationController(route: selected, config: configuration)
            var replay = TripReplay(controller: controller, deadReckoning: DeadReckoning(limit: deadReckoning))
            let encoder = makeJSONEncoder(pretty: false)
            var output = ""
            for result in replay.run(fixes) {
                switch result {
                case .state(let state, let time):
                    output += String(decoding: try encoder.encode(TripStateRecord(state, time: time)), as: UTF8.self) + "\n"
                case .rejected(let fix, let reason):
                    // Not a trip state: the fix changed nothing. Said on stderr so stdout stays one state per line.
                    StandardStream.error.write("navctl: rejected the fix at \(ISO8601Timestamp.format(fix.timestamp)): \(reason.explanation)\n")
                }
            }
            StandardStream.output.write(output)
        }
    }
}

/// The route a command works on: a file and which of its routes.
struct RouteFileOptions: ParsableArguments {
    @Option(help: "Route file: navctl's route JSON (docs/route-format.md) or a saved OSRM-format answer.")
    var route: String

    @Option(help: "Which route of the file, from 1.")
    var routeNumber: Int = 1

    func load() throws -> Route { try loadRoute(route, number: routeNumber) }
}

/// Reads a route from navctl's route JSON or from an OSRM-format answer (polyline precision 6).
func loadRoute(_ path: String, number: Int) throws -> Route {
    let data = try readInput(path)
    let routes: [Route]
    if let document = try? JSONDecoder().decode(RouteDocument.self, from: data) {
        routes = document.routes
    } else {
        do {
            routes = try Route.fromOSRMResponse(data, polylinePrecision: 6)
        } catch {
            throw CommandFailure("\(path) is neither navctl route JSON nor an OSRM-format answer: \(error)")
        }
    }
    guard number >= 1, number <= routes.count else {
        throw CommandFailure("\(path) has \(routes.count) route(s); --route-number \(number) is out of range")
    }
    return routes[number - 1]
}

func loadControllerConfig(_ path: String) throws -> NavigationControllerConfig {
    let data = try readInput(path)
    do {
        return try JSONDecoder().decode(NavigationControllerConfig.self, from: data)
    } catch let error as DecodingError {
        throw CommandFailure("\(path): \(describeDecodingError(error))")
    }
}
