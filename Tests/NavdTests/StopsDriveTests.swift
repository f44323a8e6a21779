import Foundation
import NavigationCore
import Testing
import TestSupport

/// Stops changed on the way, against the real navd (its simulated receiver drives whatever route is active) and
/// the real Valhalla and OSRM on the Helsinki extract: a stop added (with `navctl add-stop`, and with navd killed
/// and restarted after it), a stop removed and a waypoint skipped, each driven to the arrival. What a client sees,
/// in order: the calculation, the route with its reason, the stop reached or not, the arrival.
@Suite(.serialized)
struct StopsDriveTests {
    /// Where the simulated car stands (Bulevardi) and where it goes (Kaisaniemi): 2.4 km by OSRM.
    static let start = NavdInstance.bulevardi
    static let destination = NavdInstance.kaisaniemi
    /// A stop west of the direct way (OSRM's nearest road point): about 660 m more through it by either engine.
    static let stop = GeographicCoordinate(latitude: 60.174264, longitude: 24.942834)

    enum Edit: String, Sendable { case add, addWithRestart, remove, skip }

    struct Case: Sendable, CustomTestStringConvertible {
        var edit: Edit
        var engine: String
        var testDescription: String { "\(edit.rawValue), \(engine)" }
        /// The trip as navigated first: through the stop when the edit takes it away.
        var initialWaypoints: [GeographicCoordinate] { edit == .remove || edit == .skip ? [stop, destination] : [destination] }
        var reason: String {
            switch edit {
            case .add, .addWithRestart: "stop_added"
            case .remove: "stop_removed"
            case .skip: "waypoint_skipped"
            }
        }
    }

    static let cases = [
        Case(edit: .add, engine: "osrm"), Case(edit: .addWithRestart, engine: "valhalla"), Case(edit: .remove, engine: "osrm"),
        Case(edit: .skip, engine: "valhalla"),
    ]

    /// `recordings`: a directory for the flight recorder (nil: off).
    static func navd(engine: String, recordings: String?) throws -> NavdInstance {
        try NavdInstance.simulatedDrive(engine: engine, url: engine == "osrm" ? try Engines.osrmURL() : try Engines.valhallaURL(), recordings: recordings)
    }

    static func waypointsJSON(_ list: [GeographicCoordinate]) -> String {
        list.map { #"{"lat":\#($0.latitude),"lon":\#($0.longitude)}"# }.joined(separator: ",")
    }

    /// Metres from `point` to the nearest vertex of the route event's geometry (vertices of a city route are
    /// tens of metres apart at most).
    static func distance(from point: GeographicCoordinate, toRouteOf event: JSONValue) -> Double {
        let geometry = event["route"]?["geometry"]?.arrayValue ?? []
        return geometry.compactMap { vertex -> Double? in
            // GeoJSON order: [lon, lat].
            guard let pair = vertex.arrayValue, pair.count == 2, let lon = pair[0].doubleValue, let lat = pair[1].doubleValue else { return nil }
            return Geodesy.distance(point, GeographicCoordinate(latitude: lat, longitude: lon))
        }.min() ?? .infinity
    }

    @Test(arguments: cases)
    func aStopChangedOnTheWayIsRoutedAndDrivenToTheArrival(_ example: Case) throws {
        // Recorded, but for the drive navd is killed in (its replay is the recorder's own tests' business).
        let recordings = example.edit == .addWithRestart ? nil : "/tmp/navd-rec-\(UUID().uuidString.prefix(8))"
        defer { if let recordings { try? FileManager.default.removeItem(atPath: recordings) } }
        let navd = try Self.navd(engine: example.engine, recordings: recordings)
        try navd.start()
        var client = try navd.connect()
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        let navigate = #"{"type":"navigate","id":"go","waypoints":[\#(Self.waypointsJSON(example.initialWaypoints))]}"#
        #expect(client.command(navigate, id: "go")?.type == "reply")
        let first = try #require(client.waitFor(timeout: 20) { $0.type == "route" }, "no route:\n\(navd.log.suffix(2000))")
        let firstId = try #require(first["routeId"]?.stringValue)
        let firstDistance = try #require(first["distance"]?.doubleValue)

        // The edit, while the car drives the first route.
        let editLine: String
        switch example.edit {
        case .add, .addWithRestart: editLine = #"{"type":"add_stop","id":"e","waypoint":{"lat":\#(Self.stop.latitude),"lon":\#(Self.stop.longitude)}}"#
        case .remove: editLine = #"{"type":"remove_stop","id":"e","index":0}"#
        case .skip: editLine = #"{"type":"skip_waypoint","id":"e"}"#
        }
        var session: Double
        if example.edit == .add {
            // The field tester's way: navctl, which waits for the route and says which it is.
            let navctl = URL(fileURLWithPath: try NavdInstance.binary()).deletingLastPathComponent().appendingPathComponent("navctl").path
            let run = try ExternalProcess(navctl, ["add-stop", "--socket", navd.socketPath, "--at", "\(Self.stop.latitude),\(Self.stop.longitude)"])
            #expect(run.waitForExit(timeout: 30) == 0, "navctl add-stop failed: \(run.output)")
            #expect(run.output.contains("2 waypoint(s) ahead") && run.output.contains("(stop_added)"), "navctl said: \(run.output)")
            let calculation = try #require(client.waitFor(timeout: 10) { $0.type == "route_calculation" && $0["purpose"]?.stringValue == "add_stop" })
            session = try #require(calculation["session"]?.doubleValue)
        } else {
            let reply = try #require(client.command(editLine, id: "e"), "no reply to \(editLine)")
            #expect(reply.type == "reply", "\(reply)")
            session = try #require(reply["result"]?["session"]?.doubleValue)
            let ahead = reply["result"]?["waypoints"]?.arrayValue ?? []
            #expect(ahead.count == (example.edit == .addWithRestart ? 2 : 1), "\(reply)")
        }
        let changed = try #require(
            client.waitFor(timeout: 20) { $0.type == "route" && $0["session"]?.doubleValue == session }, "no new route:\n\(navd.log.suffix(3000))")
        #expect(changed["reason"]?.stringValue == example.reason)
        let changedId = try #require(changed["routeId"]?.stringValue)
        #expect(changedId != firstId)
        let changedDistance = try #require(changed["distance"]?.doubleValue)
        if example.edit == .add || example.edit == .addWithRestart {
            // Through the stop: a longer way that passes it.
            #expect(changedDistance > firstDistance + 400, "with the stop \(changedDistance) m, without \(firstDistance) m")
            #expect(Self.distance(from: Self.stop, toRouteOf: changed) < 40)
        } else {
            // Without the stop: the shorter, direct way.
            #expect(changedDistance < firstDistance - 400, "without the stop \(changedDistance) m, with \(firstDistance) m")
        }

        if example.edit == .addWithRestart {
            // navd dies right after the change: the journal keeps the new list, and the trip resumes with it.
            client.drain(for: 1.5)  // the journal is saved at once, and every second
            _ = navd.process?.signalAndWait(SIGKILL, timeout: 5)
            try navd.start()
            client = try navd.connect()
            let hello = try #require(client.next(timeout: 5))
            #expect(hello["state"]?["routeId"]?.stringValue == changedId, "not resumed: \(hello)")
            let status = try #require(client.command(#"{"type":"status","id":"s"}"#, id: "s"))
            let destinations = status["result"]?["destinations"]?.arrayValue ?? []
            #expect(destinations.count == 2 && destinations.first?["lat"]?.doubleValue == Self.stop.latitude, "\(status)")
        }

        let arrived = client.waitFor(timeout: 90) { $0.type == "arrived" }
        #expect(arrived != nil, "no arrival:\n\(navd.log.suffix(3000))")
        let reached = client.received.filter { $0.type == "waypoint_reached" }
        switch example.edit {
        case .add, .addWithRestart:
            // The stop, as the first of the edited list, then the arrival at the destination.
            #expect(reached.count == 1 && reached.first?["index"]?.doubleValue == 0, "\(reached)")
        case .remove:
            #expect(reached.isEmpty, "a removed stop was reached: \(reached)")
        case .skip:
            #expect(reached.isEmpty, "a skipped stop was reached: \(reached)")
        }
        // No reroute: the edit's route was driven as it came.
        #expect(!client.received.contains { $0.type == "route" && $0["reason"]?.stringValue == "reroute" })
        if let recordings {
            // The flight recorder's replay gives navd's lines again, byte for byte: the edit is an input like a fix.
            client.drain(for: 0.5)
            navd.process?.stop(signal: SIGTERM)
            #expect(navd.process?.waitForExit(timeout: 10) == 0)
            let files = RecordingDaemonTests.recordingFiles(recordings)
            try #require(files.count == 1, "recordings: \(files)")
            #expect(try String(contentsOfFile: files[0], encoding: .utf8).contains(#""type":"\#(editLine.contains("add_stop") ? "add_stop" : example.edit == .remove ? "remove_stop" : "skip_waypoint")""#))
            let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
            #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        }
        // Every line any client saw, against the published schema.
        let (invalid, summary) = try ProtocolSchema.invalid(client.receivedLines)
        #expect(invalid.isEmpty, "\(summary)\n\(invalid.joined(separator: "\n"))")
        print("stops \(example.testDescription): \(Int(firstDistance)) m, then \(example.reason) \(Int(changedDistance)) m; arrived")
    }
}
