import Foundation
import NavigationCore
import Testing
import TestSupport

/// Choosing routes, against the real navd (its simulated receiver drives whatever route is active) and the real
/// Valhalla and OSRM on the Helsinki extract: `navctl navigate --alternatives` lists the engine's routes and
/// `navctl choose` takes another; with the suite's misbehaving server putting a jam on Kaivokatu (the direct way)
/// after the trip began, navd finds the faster way round and takes it (`switch`) or offers it and a client takes
/// it (`notify`), without a second departure prompt and without switching back. Every line against the schema; the
/// flight recording replayed byte for byte.
@Suite(.serialized)
struct RouteChoiceDriveTests {
    static let start = StopsDriveTests.start
    static let destination = StopsDriveTests.destination

    static func navd(engine: String, url: String, routing: String, recordings: String) throws -> NavdInstance {
        try NavdInstance.simulatedDrive(engine: engine, url: url, routing: "refresh_interval = 0\n" + routing, recordings: recordings)
    }

    static func navctl(_ arguments: [String], socket: String) throws -> ToolRun.Output {
        try RecordingDaemonTests.navctl(arguments, socket: socket)
    }

    /// Stops navd and replays its one recording: the same lines, byte for byte.
    static func replayMatches(_ navd: NavdInstance, recordings: String) throws {
        navd.process?.stop(signal: SIGTERM)
        #expect(navd.process?.waitForExit(timeout: 10) == 0)
        let files = RecordingDaemonTests.recordingFiles(recordings)
        try #require(files.count == 1, "recordings: \(files)")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
    }

    @Test(arguments: ["valhalla", "osrm"])
    func alternativesAreListedAndAnotherIsChosen(engine: String) throws {
        let url = engine == "osrm" ? try Engines.osrmURL() : try Engines.valhallaURL()
        let recordings = "/tmp/navd-rec-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: recordings) }
        let navd = try Self.navd(engine: engine, url: url, routing: "choose_timeout = 60", recordings: recordings)
        try navd.start()
        let client = try navd.connect()
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        let navigate = try Self.navctl(
            ["navigate", "--to", "\(Self.destination.latitude),\(Self.destination.longitude)", "--alternatives", "2"], socket: navd.socketPath)
        #expect(navigate.status == 0, "\(navigate.stdout)\(navigate.stderr)")
        #expect(navigate.stdout.contains("  [0] ") && navigate.stdout.contains("  [1] ") && navigate.stdout.contains("navctl choose INDEX"), "\(navigate.stdout)")
        let offer = try #require(client.waitFor(timeout: 10) { $0.type == "route_alternatives" })
        let options = try #require(offer["routes"]?.arrayValue)
        #expect(offer["status"]?.stringValue == "offered" && options.count >= 2)
        let first = try #require(client.received.first { $0.type == "route" })
        #expect(first["reason"]?.stringValue == "initial")
        #expect(options[0]["duration"]?.doubleValue == first["duration"]?.doubleValue)
        #expect(options.allSatisfy { !($0["mainRoads"]?.arrayValue ?? []).isEmpty && ($0["geometry"]?.arrayValue?.count ?? 0) > 1 })

        let chose = try Self.navctl(["choose", "1"], socket: navd.socketPath)
        #expect(chose.status == 0 && chose.stdout.contains("(route 1 of the offer)"), "\(chose.stdout)\(chose.stderr)")
        let chosen = try #require(client.waitFor(timeout: 10) { $0.type == "route" && $0["reason"]?.stringValue == "chosen" })
        // The route chosen is the one offered as 1.
        #expect(chosen["route"]?["geometry"]?.arrayValue?.count == options[1]["geometry"]?.arrayValue?.count)
        #expect(chosen["duration"]?.doubleValue == options[1]["duration"]?.doubleValue)
        // The choice is made: another is refused with a clear error and nothing changes.
        let again = try Self.navctl(["choose", "0"], socket: navd.socketPath)
        #expect(again.status != 0 && (again.stdout + again.stderr).contains("no routes are offered"), "\(again.stdout)\(again.stderr)")
        #expect(client.waitFor(timeout: 90) { $0.type == "arrived" } != nil, "no arrival:\n\(navd.log.suffix(3000))")
        #expect(client.received.filter { $0.type == "route" }.count == 2)
        let (invalid, summary) = try ProtocolSchema.invalid(client.receivedLines)
        #expect(invalid.isEmpty, "\(summary)\n\(invalid.joined(separator: "\n"))")
        client.drain(for: 0.3)
        try Self.replayMatches(navd, recordings: recordings)
    }

    @Test(arguments: ["switch", "notify"])
    func aJamOnTheWayAheadMakesNavdTakeTheFasterWayRound(mode: String) throws {
        let server = try FaultyEngine(upstream: try Engines.valhallaURL())
        defer { server.stop() }
        let recordings = "/tmp/navd-rec-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: recordings) }
        let navd = try Self.navd(
            engine: "valhalla", url: server.url,
            routing: """
                faster_route = "\(mode)"
                faster_route_interval = 10
                choose_timeout = 60
                """, recordings: recordings)
        try navd.start()
        let client = try navd.connect()
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        let navigate = #"{"type":"navigate","id":"go","waypoints":[{"lat":\#(Self.destination.latitude),"lon":\#(Self.destination.longitude)}]}"#
        #expect(client.command(navigate, id: "go")?.type == "reply")
        let first = try #require(client.waitFor(timeout: 20) { $0.type == "route" }, "no route:\n\(navd.log.suffix(2000))")
        let steps = first["route"]?["steps"]?.arrayValue ?? []
        #expect(steps.contains { $0["roadName"]?.stringValue == "Kaivokatu" }, "the direct way is expected through Kaivokatu")
        // A jam on Kaivokatu from now on.
        server.jamRoad = "Kaivokatu"
        server.behaviour = .jam
        let faster = try #require(client.waitFor(timeout: 30) { $0.type == "faster_route" }, "no faster route:\n\(navd.log.suffix(3000))")
        #expect(try #require(faster["saving"]?.doubleValue) > 60, "\(faster)")
        #expect(faster["route"]?["mainRoads"]?.arrayValue?.contains { $0.stringValue == "Kaivokatu" } == false, "\(faster)")
        if mode == "notify" {
            #expect(faster["status"]?.stringValue == "offered")
            let chose = try Self.navctl(["choose", "0"], socket: navd.socketPath)
            #expect(chose.status == 0, "\(chose.stdout)\(chose.stderr)")
        } else {
            #expect(faster["status"]?.stringValue == "taken")
        }
        let taken = try #require(client.waitFor(timeout: 10) { $0.type == "route" && $0["reason"]?.stringValue == "faster" })
        let newSteps = taken["route"]?["steps"]?.arrayValue ?? []
        #expect(!newSteps.contains { $0["roadName"]?.stringValue == "Kaivokatu" }, "the faster way goes through the jam")
        #expect(client.waitFor(timeout: 90) { $0.type == "arrived" } != nil, "no arrival:\n\(navd.log.suffix(3000))")

        // Once: never back to the jammed way; no reroute.
        let routes = client.received.filter { $0.type == "route" }.map { $0["reason"]?.stringValue ?? "" }
        #expect(routes == ["initial", "faster"], "\(routes)")
        // No second departure: the new route's prompts at its very start, when its first step has others, are not said.
        let newRouteId = taken["routeId"]?.stringValue
        let firstStep = newSteps.first
        let length = firstStep?["distance"]?.doubleValue ?? 0
        let prompts = firstStep?["spokenInstructions"]?.arrayValue ?? []
        let departures = prompts.filter { ($0["triggerDistanceBeforeManeuver"]?.doubleValue ?? 0) >= length - 1 }.compactMap { $0["utteranceId"]?.stringValue }
        let spoken = client.received.filter { $0.type == "instruction" && $0["routeId"]?.stringValue == newRouteId }.compactMap { $0["utteranceId"]?.stringValue }
        if departures.count < prompts.count { #expect(Set(departures).isDisjoint(with: spoken), "a departure was said again: \(departures)") }
        let (invalid, summary) = try ProtocolSchema.invalid(client.receivedLines)
        #expect(invalid.isEmpty, "\(summary)\n\(invalid.joined(separator: "\n"))")
        client.drain(for: 0.3)
        try Self.replayMatches(navd, recordings: recordings)
        print("faster route (\(mode)): \(faster["saving"]?.doubleValue ?? 0) s saved; routes \(routes)")
    }
}
