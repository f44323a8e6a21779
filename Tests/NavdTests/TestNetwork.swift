import Foundation
import NavigationCore
import NMEA
import RouteAdapters
import RouteClient
import Testing
import TestSupport

/// navd's own road network, for what Helsinki has no roads for: a motorway whose exits part at 4° and 3°, a Y fork
/// at 3° to each side, a roundabout, and a parking lot 45 m from Päätie that only a service road to Sivukatu leaves.
/// Fixtures/TestNetwork/make_network.py writes it; scripts/setup builds it with the engines' own tools and
/// scripts/engines serves it (OSRM and Valhalla on 127.0.0.1). A test that needs it fails loudly without it.
struct TestNetwork: Sendable {
    enum Engine: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case valhalla, osrm
        var testDescription: String { rawValue }
    }

    /// Where two roadways part: the gore (or fork point), the ramp's angle to the carriageway, degrees, and how
    /// long the ramp runs straight at that angle, metres.
    struct Parting: Sendable {
        var point: GeographicCoordinate
        var angle: Double
        var straightLength: Double
    }

    let valhallaURL: String
    let osrmURL: String
    let places: [String: GeographicCoordinate]
    let exits: [Parting]
    let fork: Parting
    let lotDistanceToRoad: Double
    /// Kalliotunneli on Tunnelitie: its portals and length (metres); Maksutie's toll stretch and booth; the ferry.
    let tunnel: (name: String, start: GeographicCoordinate, end: GeographicCoordinate, length: Double)
    let toll: (start: GeographicCoordinate, end: GeographicCoordinate, booth: GeographicCoordinate)
    let ferry: (start: GeographicCoordinate, end: GeographicCoordinate)
    /// Koulutie's school zone: where its lower limit begins and ends, the limit there and around it (km/h).
    let schoolZone: (start: GeographicCoordinate, end: GeographicCoordinate, limit: Double, around: Double)

    static func load() throws -> TestNetwork {
        let environment = ProcessInfo.processInfo.environment
        guard let map = environment["NAVD_TESTNET_MAP"], let valhalla = environment["NAVD_TESTNET_VALHALLA_URL"],
            let osrm = environment["NAVD_TESTNET_OSRM_URL"]
        else {
            Issue.record("NAVD_TESTNET_MAP, NAVD_TESTNET_VALHALLA_URL or NAVD_TESTNET_OSRM_URL is not set: run the suite with scripts/test (it serves the test network on 127.0.0.1)")
            throw CancellationError()
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: map))) as? [String: Any])
        func coordinate(_ value: Any?) throws -> GeographicCoordinate {
            let pair = try #require(value as? [Double], "not a [lat, lon] pair: \(String(describing: value))")
            return GeographicCoordinate(latitude: pair[0], longitude: pair[1])
        }
        let placeTable = try #require(object["places"] as? [String: Any])
        var places: [String: GeographicCoordinate] = [:]
        for (name, value) in placeTable { places[name] = try coordinate(value) }
        let facts = try #require(object["facts"] as? [String: Any])
        func parting(_ value: Any?, at key: String) throws -> Parting {
            let table = try #require(value as? [String: Any])
            return Parting(
                point: try coordinate(table[key]), angle: try #require(table["angle"] as? Double),
                straightLength: try #require(table["straightLength"] as? Double))
        }
        let exits = try #require(facts["exits"] as? [Any]).map { try parting($0, at: "gore") }
        return TestNetwork(
            valhallaURL: valhalla, osrmURL: osrm, places: places, exits: exits, fork: try parting(facts["fork"], at: "point"),
            lotDistanceToRoad: try #require(facts["lotDistanceToPaatie"] as? Double),
            tunnel: try {
                let t = try #require(facts["tunnel"] as? [String: Any], "the test network has no tunnel: rebuild it (scripts/setup)")
                return (try #require(t["name"] as? String), try coordinate(t["start"]), try coordinate(t["end"]), try #require(t["length"] as? Double))
            }(),
            toll: try {
                let t = try #require(facts["toll"] as? [String: Any])
                return (try coordinate(t["start"]), try coordinate(t["end"]), try coordinate(t["booth"]))
            }(),
            ferry: try {
                let f = try #require(facts["ferry"] as? [String: Any])
                return (try coordinate(f["start"]), try coordinate(f["end"]))
            }(),
            schoolZone: try {
                let zone = try #require(facts["schoolZone"] as? [String: Any], "the test network has no school zone: rebuild it (scripts/setup)")
                return (
                    try coordinate(zone["start"]), try coordinate(zone["end"]), try #require(zone["limit"] as? Double),
                    try #require(zone["around"] as? Double)
                )
            }())
    }

    func place(_ name: String) throws -> GeographicCoordinate { try #require(places[name], "no place \(name) in the test network") }

    func url(_ engine: Engine) -> String { engine == .valhalla ? valhallaURL : osrmURL }

    /// A navd (not started) driven by its own simulator from `start` at `speed` m/s, `rate` fixes a second and
    /// `timeScale` times real time, routing with `engine` on this network, its flight recorder writing into
    /// `recordings`.
    func simulatedNavd(from start: GeographicCoordinate, speed: Double, rate: Double, timeScale: Double = 1, engine: Engine, recordings: String) throws
        -> NavdInstance
    {
        try NavdInstance(sections: """
            [gnss]
            source = "simulate"
            [gnss.simulate]
            start = { lat = \(start.latitude), lon = \(start.longitude) }
            speed = \(speed)
            rate = \(rate)
            time_scale = \(timeScale)
            [routing]
            engine = "\(engine.rawValue)"
            url = "\(url(engine))"
            [recording]
            enabled = true
            directory = "\(recordings)"
            """)
    }

    /// The engine's route from `origin` (driving at `heading`°) to `destination`: the road a driver follows.
    func route(_ engine: Engine, from origin: GeographicCoordinate, heading: Double?, to destination: GeographicCoordinate) async throws -> Route {
        let executor = RouteHTTPExecutor()
        defer { Task { try? await executor.shutdown() } }
        let adapter: RouteAdapter = engine == .valhalla ? .valhalla(baseURL: valhallaURL) : .osrm(baseURL: osrmURL)
        let fetcher = RouteFetcher(source: .http(adapter), executor: executor)
        let fix = UserLocation(
            coordinate: origin, horizontalAccuracy: 5, course: heading.map { CourseOverGround(degrees: $0) }, speed: nil,
            timestamp: Date(timeIntervalSince1970: 1_795_241_290))
        return try #require(try await fetcher.routes(for: RouteQuery(origin: fix, waypoints: [Waypoint(coordinate: destination)])).first)
    }
}

/// What a client saw during one drive through the real navd on the test network, and where the car truly was.
struct NetworkDriveRun {
    let samples: [FieldTrack.Sample]
    let messages: [JSONValue]
    let lines: [String]
    let log: String
    /// For each message, the sample of the latest `trip_state` at or before it (nil before the first).
    let sampleAt: [Int?]

    /// The error model of a drive: open sky, or city error (a 12-20 m bias in a random direction and 4 m noise).
    enum Sky: String, Sendable, CustomTestStringConvertible {
        case open, city
        var testDescription: String { "\(rawValue) sky" }

        func errorModel(seed: UInt64) -> FieldTrack.ErrorModel {
            switch self {
            case .open: return .openSky
            case .city:
                var random = SeededRandomNumberGenerator(seed: seed * 7919)
                return FieldTrack.ErrorModel(bias: 12 + 8 * random.nextUniform(), biasBearing: 360 * random.nextUniform(), sigma: 4)
            }
        }
    }

    /// Drives `samples` through a real navd: its serial source on a socat pty, routing with `engine` on the test
    /// network. The first fix goes in until navd has it, then `navigate` to `destination`; once the first route
    /// came, the rest at `epochsPerSecond` a wall-clock second (the fixes' own times are what navd goes by).
    /// `recordingDirectory`: navd records the drive there (its flight recorder) and is stopped at the end, so that
    /// the recording is complete.
    static func drive(
        _ network: TestNetwork, engine: TestNetwork.Engine, samples: [FieldTrack.Sample], to destination: GeographicCoordinate,
        epochsPerSecond: Double, recordingDirectory: String? = nil, navigate: Bool = true, url: String? = nil
    ) throws -> NetworkDriveRun {
        let pty = try PtyPair()
        let recording = recordingDirectory.map { "[recording]\nenabled = true\ndirectory = \"\($0)\"" } ?? ""
        let navd = try NavdInstance.serial(device: pty.devicePath, engine: engine.rawValue, url: url ?? network.url(engine), extra: recording)
        let process = try navd.start()
        let client = try navd.connect()
        func write(_ sample: FieldTrack.Sample) { pty.write(NMEAWriter.sentences(for: sample.fix).map { $0 + "\r\n" }.joined()) }
        // What is written before navd has opened the pty is lost: fixes in their order until navd has a position.
        var next = 0
        while next < min(50, samples.count - 1), !client.received.contains(where: { $0.type == "trip_state" }) {
            write(samples[next])
            next += 1
            client.drain(for: 0.2)
        }
        #expect(client.received.contains { $0.type == "trip_state" }, "no fix reached navd:\n\(navd.log.suffix(2000))")
        if navigate {
            let command = #"{"type":"navigate","id":"go","waypoints":[{"lat":\#(destination.latitude),"lon":\#(destination.longitude)}]}"#
            let reply = client.command(command, id: "go")
            #expect(reply?.type == "reply", "navigate: \(String(describing: reply))")
            #expect(client.waitFor(timeout: 10) { $0.type == "route" } != nil, "no first route:\n\(navd.log.suffix(2000))")
        }
        for sample in samples[next...] {
            write(sample)
            client.drain(for: 1 / epochsPerSecond)
        }
        if navigate {
            _ = client.receivedOrWaitFor(timeout: 10) { $0.type == "arrived" }
            _ = client.receivedOrWaitFor(timeout: 3) { $0.type == "trip_state" && $0["state"]?.stringValue == "complete" }
        } else {
            client.drain(for: 0.5)
        }
        if recordingDirectory != nil {
            process.stop(signal: SIGTERM)
            #expect(process.waitForExit(timeout: 10) == 0, "navd did not stop cleanly:\n\(navd.log.suffix(2000))")
        }
        // Each fix's time, in tenths of a second, to its sample (fixes are at most 10 a second).
        var sampleByTime: [Int: Int] = [:]
        for (index, sample) in samples.enumerated() { sampleByTime[Int((sample.fix.timestamp.timeIntervalSince1970 * 10).rounded())] = index }
        var latest: Int?
        let sampleAt = client.received.map { message -> Int? in
            if message.type == "trip_state", let text = message["time"]?.stringValue, let time = ISO8601Timestamp.parse(text) {
                latest = sampleByTime[Int((time.timeIntervalSince1970 * 10).rounded())] ?? latest
            }
            return latest
        }
        return NetworkDriveRun(samples: samples, messages: client.received, lines: client.receivedLines, log: navd.log, sampleAt: sampleAt)
    }

    func events(_ type: String) -> [(index: Int, message: JSONValue)] {
        messages.enumerated().filter { $0.element.type == type }.map { ($0.offset, $0.element) }
    }

    /// The first trip_state that says off the route, with the sample (the car's true position) of its fix.
    var firstOffRoute: (index: Int, sample: FieldTrack.Sample)? {
        guard let index = messages.firstIndex(where: { $0.type == "trip_state" && $0["deviation"]?["kind"]?.stringValue == "off_route" }),
            let sample = sampleAt[index]
        else { return nil }
        return (index, samples[sample])
    }

    var reroutes: [JSONValue] { events("route").map(\.message).filter { $0["reason"]?.stringValue == "reroute" } }
    var arrived: Bool { messages.contains { $0.type == "arrived" } }
    /// Times the vehicle was reported leaving the route: `deviation` events with `offRoute: true` after none or after
    /// one back on the route. navd sends one more while off the route whenever what the policy does about it
    /// changes (`requested`, then `in_flight` when a fix comes before the engine's answer): the same departure.
    var offRouteCount: Int {
        var count = 0, off = false
        for message in messages where message.type == "deviation" {
            let isOff = message["offRoute"]?.boolValue == true
            if isOff && !off { count += 1 }
            off = isOff
        }
        return count
    }

    /// Banners (visual instructions) of each route in the order sent: (route id, step index, text).
    var banners: [(routeId: String, step: Int, text: String, index: Int)] {
        events("instruction").compactMap { index, message in
            guard message["kind"]?.stringValue == "visual", let routeId = message["routeId"]?.stringValue,
                let step = message["stepIndex"]?.doubleValue
            else { return nil }
            return (routeId, Int(step), message["instruction"]?["primary"]?["text"]?.stringValue ?? "", index)
        }
    }

    /// For a failure message: the events (not trip states) in order.
    var eventSummary: String {
        messages.filter { $0.type != "trip_state" && $0.type != "gnss" }.map { message in
            var text = message.type ?? "?"
            for key in ["reason", "status", "offRoute", "reroute", "stepIndex", "kind", "applied"] {
                if let value = message[key], value != .null { text += " \(key)=\(value)" }
            }
            return text
        }.joined(separator: "\n")
    }
}
