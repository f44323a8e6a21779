import ArgumentParser
import FoundationEssentials
import Glibc
import NavigationCore
import RouteAdapters
import RouteClient
import TrackFormats

struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Fetch, parse and map-match routes.",
        subcommands: [Fetch.self, Parse.self, Match.self])
}

extension RoutingEngine: ExpressibleByArgument {}

/// Options shared by commands that talk to a routing server.
struct ServerOptions: ParsableArguments {
    @Option(help: "Routing engine: \(RoutingEngine.allCases.map(\.rawValue).joined(separator: ", ")).")
    var engine: RoutingEngine

    @Option(help: "Base URL of the routing server, e.g. http://127.0.0.1:8002.")
    var url: String

    @Option(help: "Engine profile (valhalla costing, OSRM or GraphHopper profile). Default: auto / driving / car.")
    var profile: String?

    @Option(name: .customLong("option"), help: "Engine option KEY=VALUE (VALUE as JSON or text); repeatable.")
    var options: [EngineOption] = []

    @Option(help: "Seconds to wait for the whole answer.")
    var timeout: Double = 30

    @Option(name: .customLong("ca-file"), help: "PEM file of certificate authorities trusted for https besides the system's (a fleet's own CA).")
    var caFile: String?

    var engineOptions: [String: JSONValue] {
        Dictionary(options.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// Runs `body` with an HTTP executor configured from these options, and shuts the executor down after.
    func withExecutor<T>(_ body: (RouteHTTPExecutor) async throws -> T) async throws -> T {
        guard let seconds = CheckedNumber.measure(timeout, in: 0.1...3600) else {
            throw CommandFailure("--timeout must be from 0.1 to 3600 seconds, not \(timeout)")
        }
        let executor = RouteHTTPExecutor(
            configuration: .init(
                connectTimeout: .milliseconds(Int64(min(seconds, 5) * 1000)), totalTimeout: .milliseconds(Int64(seconds * 1000)),
                trustRootsFile: caFile))
        if caFile != nil, let problem = executor.tlsProblem() {
            try? await executor.shutdown()
            throw CommandFailure("--ca-file \(caFile ?? ""): \(problem)")
        }
        do {
            let result = try await body(executor)
            try? await executor.shutdown()
            return result
        } catch {
            try? await executor.shutdown()
            throw error
        }
    }
}

/// Options for how routes are printed.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the routes as JSON (docs/route-format.md) instead of text.")
    var json = false

    @Flag(help: "Also print each step's banners and voice prompts with their trigger distances.")
    var prompts = false

    func print(_ routes: [Route]) throws {
        if json {
            let data = try makeJSONEncoder(pretty: true).encode(RouteDocument(routes: routes))
            writeLine(String(decoding: data, as: UTF8.self))
        } else {
            writeLine(RouteTextRenderer(showPrompts: prompts).render(routes))
        }
    }
}

extension RouteCommand {
    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch a route from a routing server and print its instructions.")

        @OptionGroup var server: ServerOptions

        @Option(help: "Start, LAT,LON in degrees.")
        var from: GeographicCoordinate

        @Option(help: "Intermediate stop, LAT,LON; repeatable, in order.")
        var via: [GeographicCoordinate] = []

        @Option(help: "Destination, LAT,LON.")
        var to: GeographicCoordinate

        @Option(help: "Direction of travel at the start, degrees clockwise from north.")
        var heading: Double?

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await reportingErrors {
                let origin = UserLocation(
                    coordinate: from, horizontalAccuracy: 5, course: heading.map { CourseOverGround(degrees: $0, accuracy: 20) },
                    timestamp: Date())
                let query = RouteQuery(
                    origin: origin, waypoints: via.map { Waypoint(coordinate: $0) } + [Waypoint(coordinate: to)],
                    options: server.engineOptions)
                let profile = server.engine.profile(server.profile ?? "")
                let adapter = server.engine.adapter(baseURL: server.url, profile: profile)
                let routes = try await server.withExecutor { executor in
                    try await RouteFetcher(source: .http(adapter), executor: executor).routes(for: query)
                }
                try output.print(routes)
            }
        }
    }

    struct Parse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse a saved OSRM-format response (OSRM, Valhalla, GraphHopper) and print its instructions.")

        @Argument(help: "The response file, or - for standard input.")
        var file: String

        @Option(help: "Polyline precision of the geometries: 5 or 6.")
        var precision: Int = 6

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard precision == 5 || precision == 6 else { throw ValidationError("--precision must be 5 or 6") }
        }

        func run() async throws {
            try await reportingErrors {
                let data = try readInput(file)
                try output.print(try OSRMResponseParser(polylinePrecision: precision).parseRoutes(from: data))
            }
        }
    }

    struct Match: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Snap a recorded track to the road network (map matching) and print the matched route.")

        @OptionGroup var server: ServerOptions

        @Argument(help: "The track: GPX, or JSON ([[lon,lat],...], [{\"lat\":..,\"lon\":..}], or a GeoJSON LineString).")
        var track: String

        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard server.engine != .graphhopper else { throw ValidationError("map matching supports --engine valhalla or osrm") }
        }

        func run() async throws {
            try await reportingErrors {
                let points = try TrackReader.read(try readInput(track))
                let trace = points.map { TracePoint(coordinate: $0.coordinate, timestamp: $0.timestamp) }
                let profile = server.engine.profile(server.profile ?? "")
                guard let generator = server.engine.mapMatchingGenerator(baseURL: server.url, profile: profile, options: server.engineOptions) else {
                    throw ValidationError("map matching supports --engine valhalla or osrm")
                }
                let routes = try await server.withExecutor { executor in
                    try await MapMatcher(generator: generator, executor: executor).match(trace)
                }
                try output.print(routes)
            }
        }
    }
}
