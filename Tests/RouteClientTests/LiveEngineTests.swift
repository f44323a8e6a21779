import Foundation
import NavigationCore
import RouteAdapters
import RouteClient
import Testing

/// Routes from real OSRM and Valhalla servers on 127.0.0.1, built from the Helsinki OSM extract
/// (started by `scripts/engines start`; `scripts/test` does it).
@Suite("Live routing engines on the Helsinki map")
struct LiveEngineTests {
    struct Trip: Sendable, CustomTestStringConvertible {
        var name: String
        var from: GeographicCoordinate
        var to: GeographicCoordinate
        var testDescription: String { name }
    }

    static let trips = [
        Trip(name: "Kaivokatu to Fabianinkatu", from: .init(latitude: 60.1699, longitude: 24.9384), to: .init(latitude: 60.1686, longitude: 24.9500)),
        Trip(name: "Bulevardi to Pitkänsillanranta", from: .init(latitude: 60.1660, longitude: 24.9400), to: .init(latitude: 60.1770, longitude: 24.9480)),
        Trip(name: "Mikonkatu to Lönnrotinkatu", from: .init(latitude: 60.1711, longitude: 24.9446), to: .init(latitude: 60.1668, longitude: 24.9390)),
        Trip(name: "Esplanadi to Kaisaniemi", from: .init(latitude: 60.1680, longitude: 24.9480), to: .init(latitude: 60.1720, longitude: 24.9370)),
        Trip(name: "Kluuvi to Kaartinkaupunki", from: .init(latitude: 60.17466, longitude: 24.94248), to: .init(latitude: 60.1660, longitude: 24.9500)),
    ]

    static let cases: [(LiveEngine, Trip)] = LiveEngine.allCases.flatMap { engine in trips.map { (engine, $0) } }

    static func adapter(_ engine: LiveEngine, url: String) -> RouteAdapter {
        engine == .valhalla ? .valhalla(baseURL: url) : .osrm(baseURL: url)
    }

    static func origin(_ c: GeographicCoordinate) -> UserLocation {
        UserLocation(coordinate: c, horizontalAccuracy: 5, timestamp: Date(timeIntervalSince1970: 1_795_241_290))
    }

    func fetch(_ engine: LiveEngine, waypoints: [GeographicCoordinate], from: GeographicCoordinate) async throws -> Route {
        let executor = RouteHTTPExecutor()
        defer { Task { try? await executor.shutdown() } }
        let routes = try await RouteFetcher(source: .http(Self.adapter(engine, url: try engine.url())), executor: executor)
            .routes(for: RouteQuery(origin: Self.origin(from), waypoints: waypoints.map { Waypoint(coordinate: $0) }))
        return try #require(routes.first)
    }

    @Test(arguments: cases)
    func routesHoldTheirInvariants(engine: LiveEngine, trip: Trip) async throws {
        let route = try await fetch(engine, waypoints: [trip.to], from: trip.from)
        #expect(route.steps.count >= 2)
        // Geometry starts and ends near the requested points (engines snap them to the nearest road).
        #expect(Geodesy.distance(route.geometry.first!, trip.from) < 60)
        #expect(Geodesy.distance(route.geometry.last!, trip.to) < 60)
        // Step distances add up to the route distance within 1%.
        let sum = route.steps.reduce(0) { $0 + $1.distance }
        #expect(abs(sum - route.distance) <= route.distance * 0.01)
        // Step geometries are contiguous and follow the route geometry.
        for (a, b) in zip(route.steps, route.steps.dropFirst()) {
            #expect(Geodesy.distance(a.geometry.last!, b.geometry.first!) < 1)
        }
        #expect(abs(Geodesy.length(of: route.geometry) - route.distance) <= route.distance * 0.05)
        // Every step has instruction text and at least one spoken instruction; the route ends with an arrival.
        for (index, step) in route.steps.enumerated() {
            #expect(!step.instruction.isEmpty, "step \(index)")
            #expect(!step.spokenInstructions.isEmpty, "step \(index) has no spoken instruction")
        }
        #expect(route.steps.first?.maneuver.type == .depart)
        #expect(route.steps.last?.maneuver.type == .arrive)
        // Annotations cover every segment of every step that has length.
        for step in route.steps where step.distance > 0 {
            #expect(step.annotations.count == step.geometry.count - 1)
        }
    }

    @Test(arguments: LiveEngine.allCases)
    func anIntermediateStopMakesTwoLegs(engine: LiveEngine) async throws {
        let trip = Self.trips[1]
        let stop = GeographicCoordinate(latitude: 60.1711, longitude: 24.9446)
        let route = try await fetch(engine, waypoints: [stop, trip.to], from: trip.from)
        #expect(route.legCount == 2)
        #expect(route.steps.filter { $0.maneuver.type == .arrive }.count == 2)
        #expect(route.waypoints.filter { $0.kind == .break }.count == 3)
        #expect(Geodesy.distance(route.waypoints[1].coordinate, stop) < 60)
    }

    @Test(arguments: LiveEngine.allCases)
    func aNoisyTraceIsMatchedBackOntoTheRoad(engine: LiveEngine) async throws {
        let trip = Self.trips[1]
        let original = try await fetch(.osrm, waypoints: [trip.to], from: trip.from)
        // A drive along the route: a point every 20 m (about 1.4 s at 50 km/h), 5 m of GPS noise.
        var random = SeededRandom(seed: 42)
        let trace = resample(original.geometry, every: 20).enumerated().map { i, c in
            let noisy = Geodesy.destination(
                from: c, distance: abs(random.gaussian(sigma: 5)), bearing: random.uniform() * 360)
            return TracePoint(coordinate: noisy, timestamp: Date(timeIntervalSince1970: 1_795_241_290 + Double(i) * 1.4), radius: 15)
        }
        let url = try engine.url()
        let generator: any MapMatchingRequestGenerator =
            engine == .valhalla ? ValhallaMapMatchingRequestGenerator(baseURL: url) : OSRMMapMatchingRequestGenerator(baseURL: url)
        let executor = RouteHTTPExecutor()
        let matched = try await MapMatcher(generator: generator, executor: executor).match(trace)
        try await executor.shutdown()
        let route = try #require(matched.first)
        // The match follows the original road: every point of the original route is near it, and so is the
        // matched route to the original; the lengths agree.
        for point in resample(original.geometry, every: 50) {
            #expect(distance(from: point, to: route.geometry) < 15)
        }
        for point in resample(route.geometry, every: 50) {
            #expect(distance(from: point, to: original.geometry) < 15)
        }
        #expect(abs(route.distance - original.distance) < original.distance * 0.1)
        #expect(route.steps.allSatisfy { !$0.instruction.isEmpty && !$0.spokenInstructions.isEmpty })
    }

    /// Requests each engine refuses: Valhalla finds no road within its search radius of a point in the sea;
    /// OSRM snaps any point to some road, but this start lies on a fragment with no way out.
    static let unroutable: [(LiveEngine, GeographicCoordinate, GeographicCoordinate)] = [
        (.valhalla, .init(latitude: 59.5, longitude: 24.5), .init(latitude: 59.51, longitude: 24.51)),
        (.osrm, .init(latitude: 60.1745, longitude: 24.9372), .init(latitude: 60.1665, longitude: 24.9510)),
    ]

    @Test(arguments: unroutable)
    func anUnroutableRequestIsAClearEngineError(engine: LiveEngine, from: GeographicCoordinate, to: GeographicCoordinate) async throws {
        let url = try engine.url()
        let executor = RouteHTTPExecutor()
        await #expect {
            _ = try await RouteFetcher(source: .http(Self.adapter(engine, url: url)), executor: executor)
                .routes(for: RouteQuery(origin: Self.origin(from), waypoints: [Waypoint(coordinate: to)]))
        } throws: { error in
            guard let error = error as? RouteFetchError else { return false }
            return error.kind == .engineRefused && !error.isRetryable && !error.detail.isEmpty
        }
        try await executor.shutdown()
    }
}

/// The engine writes its instructions in the driver's language and units (`[guidance]`): a real Valhalla answer
/// for each language navd ships, through navd's request generator and parser.
@Suite("Valhalla's instructions in the driver's language and units")
struct LiveEngineLanguageTests {
    /// A word each language's first maneuver on Bulevardi uses (Valhalla's own narrative), and the units' word.
    @Test(arguments: [
        ("de-DE", false, "fahren"), ("fi-FI", false, "Jatka"), ("fr-FR", false, "Continuez"), ("es-ES", false, "Siga"),
        ("sv-SE", false, "Håll"), ("en-US", true, "mile"), ("en-US", false, "Stay straight"),
    ])
    func theInstructionsAreInTheLanguageAskedFor(language: String, imperial: Bool, word: String) async throws {
        let executor = RouteHTTPExecutor()
        defer { Task { try? await executor.shutdown() } }
        let adapter = RoutingEngine.valhalla.adapter(
            baseURL: try LiveEngine.valhalla.url(), profile: "auto", locale: InstructionLocale(language: language, imperial: imperial))
        let trip = LiveEngineTests.trips[1]
        let routes = try await RouteFetcher(source: .http(adapter), executor: executor)
            .routes(for: RouteQuery(origin: LiveEngineTests.origin(trip.from), waypoints: [Waypoint(coordinate: trip.to)]))
        let route = try #require(routes.first)
        let words = route.steps.flatMap { [$0.instruction] + $0.spokenInstructions.map(\.text) }.joined(separator: " ")
        #expect(words.contains(word), "\(language): \(words.prefix(400))")
        // navd's check recognises the engine's own language and units: the answer is used as it came.
        #expect(route.notices.isEmpty, "\(language): \(route.notices)")
        // Metric answers never speak of miles or feet, imperial ones never of kilometres or metres.
        let spoken = route.steps.flatMap { $0.spokenInstructions.map(\.text) }.joined(separator: " ").lowercased()
        if imperial { #expect(!spoken.contains("kilomet") && !spoken.contains(" meters"), "\(spoken.prefix(300))") }
        if !imperial && language == "en-US" { #expect(!spoken.contains("mile") && !spoken.contains("feet"), "\(spoken.prefix(300))") }
    }
}
