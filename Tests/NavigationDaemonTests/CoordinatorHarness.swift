import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import RouteAdapters
import Testing

/// Drives a ``TripCoordinator`` with fixes and canned calculation results; time is given, never read.
struct CoordinatorHarness {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let start = Date(timeIntervalSince1970: 1_795_241_290)

    var coordinator: TripCoordinator
    /// Effects so far, oldest first.
    var effects: [TripCoordinator.Effect] = []
    /// The wall clock the harness passes in (a manual clock).
    var now = start

    init(
        reroute: NavdConfig.Reroute = NavdConfig.Reroute(), resume: TripJournalRecord? = nil, confirmResumeAge: Bool = false,
        config base: NavdConfig = NavdConfig()
    ) {
        var config = base
        config.reroute = reroute
        coordinator = TripCoordinator(
            settings: TripCoordinator.Settings(config: config), idPrefix: "t", resume: resume, confirmAgeOnFirstFix: confirmResumeAge)
    }

    /// A harness whose reroutes are taken whatever they gain (`accept = always`).
    static func acceptingEveryReroute() -> CoordinatorHarness {
        var settings = NavdConfig.Reroute()
        settings.accept = .always
        return CoordinatorHarness(reroute: settings)
    }

    static func route() throws -> Route {
        let data = try Data(contentsOf: repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/helsinki_osrm_plain.json"))
        return try #require(try OSRMResponseParser().parseRoutes(from: data).first)
    }

    /// Fixes along `route` at 10 m/s, 1 Hz, shifted `offset` metres to the right.
    static func fixes(along route: Route, offset: Double = 0, startingAt seconds: Double = 0) -> [UserLocation] {
        LocationSimulator(speed: 10, sampleRate: 1, lateralBias: offset, startTime: start.addingTimeInterval(seconds), reportedAccuracy: 4)
            .simulate(along: route.geometry)
    }

    mutating func take() -> [TripCoordinator.Effect] {
        let new = coordinator.takeEffects()
        effects += new
        return new
    }

    /// `estimated`: the receiver says it dead-reckoned the fix itself.
    mutating func feed(_ location: UserLocation, estimated: Bool = false) -> [TripCoordinator.Effect] {
        now = max(now, location.timestamp)
        coordinator.handle(.fix(GNSSFix(location: location, quality: GNSSQuality(mode: .threeDimensional, estimated: estimated))), now: now)
        return take()
    }

    mutating func feed(_ locations: some Sequence<UserLocation>) -> [TripCoordinator.Effect] {
        locations.flatMap { feed($0) }
    }

    /// A trip on the Helsinki route (fixture), navigating, with fixes `0...drivenTo` of its drive fed.
    static func navigating(drivenTo last: Int) throws -> (harness: CoordinatorHarness, route: Route, fixes: [UserLocation]) {
        var harness = CoordinatorHarness()
        let route = try Self.route()
        let fixes = Self.fixes(along: route)
        _ = harness.feed(fixes[0])
        _ = try harness.navigate(answering: route)
        _ = harness.feed(fixes[1...last])
        return (harness, route, fixes)
    }

    /// A trip on a real two-leg OSRM answer (Helsinki: a stop, then the destination), navigating, with fixes
    /// `0...drivenTo` of its drive fed; `asked`: the waypoints the navigate command gave.
    static func navigatingTwoLegs(drivenTo last: Int) throws -> (harness: CoordinatorHarness, route: Route, fixes: [UserLocation], asked: [Waypoint]) {
        let data = try Data(contentsOf: repoRoot.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/helsinki_osrm_two_legs.json"))
        let route = try #require(try OSRMResponseParser().parseRoutes(from: data).first)
        let fixes = Self.fixes(along: route)
        var harness = CoordinatorHarness()
        _ = harness.feed(fixes[0])
        let asked = route.waypoints.dropFirst().map { Waypoint(coordinate: $0.coordinate) }
        let reply = try harness.coordinator.navigate(NavigateCommand(waypoints: asked), now: harness.now)
        _ = harness.take()
        harness.coordinator.calculationFinished(session: reply.session, result: .success([route]), attempts: 1, now: harness.now)
        _ = harness.take()
        _ = harness.feed(fixes[1...last])
        return (harness, route, fixes, asked)
    }

    /// Navigates to the route's destination and answers the session with `route`.
    mutating func navigate(answering route: Route) throws -> Int {
        let reply = try coordinator.navigate(NavigateCommand(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: now)
        let session = reply.session
        _ = take()
        coordinator.calculationFinished(session: session, result: .success([route]), attempts: 1, now: now)
        _ = take()
        return session
    }
}

extension TripCoordinator.Effect {
    var event: (type: EventType, routeId: String?, fields: [String: JSONValue])? {
        // The wire fields, as clients see them: these tests read events the way a client would.
        if case .publish(let event, let routeId) = self { return (event.type, routeId, event.fields) }
        return nil
    }

    var startedSession: (session: Int, request: TripCoordinator.CalculationRequest)? {
        if case .startCalculation(let session, let request) = self { return (session, request) }
        return nil
    }
}

extension Array where Element == TripCoordinator.Effect {
    func events(_ type: EventType) -> [[String: JSONValue]] { compactMap { $0.event }.filter { $0.type == type }.map(\.fields) }
    var startedSessions: [(session: Int, request: TripCoordinator.CalculationRequest)] { compactMap(\.startedSession) }
}

extension Route {
    /// The route from the start of step `first` on: what an engine would answer for a vehicle standing there.
    /// `startingAside`: metres to the right of the road where the answer starts (an engine starting the new route
    /// where an off-route vehicle is); 0 answers the very route ahead.
    func remainder(fromStep first: Int, startingAside aside: Double = 0) -> Route {
        var steps = Array(steps[first...])
        if aside != 0, steps[0].geometry.count >= 2 {
            let bearing = Geodesy.bearing(from: steps[0].geometry[0], to: steps[0].geometry[1])
            steps[0].geometry[0] = Geodesy.destination(from: steps[0].geometry[0], distance: aside, bearing: bearing + 90)
        }
        var geometry: [GeographicCoordinate] = []
        for step in steps { geometry += geometry.last == step.geometry.first ? Array(step.geometry.dropFirst()) : step.geometry }
        return Route(
            geometry: geometry, distance: steps.map(\.distance).reduce(0, +), duration: steps.map(\.duration).reduce(0, +),
            waypoints: [Waypoint(coordinate: geometry.first!), waypoints.last!], steps: steps)
    }
}
