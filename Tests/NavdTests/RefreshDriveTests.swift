import Foundation
import NavigationCore
import Testing
import TestSupport

/// Route refresh against the real navd (its simulated receiver drives the route) and the real Valhalla and OSRM
/// on the Helsinki extract, with the suite's misbehaving server in front of the engine: after the route is found
/// the server's answers carry heavy traffic (everything 1.5 times slower, a lane closed), then fail. What a client
/// sees, in order: the refresh applied on the same route (same id, nothing retracted, no prompt twice, the new
/// time left and traffic), the failing refreshes non-fatal, the old traffic dropped after three intervals, the
/// arrival; and the flight recording replayed byte for byte.
@Suite(.serialized)
struct RefreshDriveTests {
    static let start = StopsDriveTests.start
    static let destination = StopsDriveTests.destination
    /// Seconds of fix time between refreshes: the simulated car drives 2.4 km in about 170 s.
    static let interval = 10.0

    @Test(arguments: ["valhalla", "osrm"])
    func aRefreshOnTheSameRouteBringsTrafficAndOldTrafficIsDropped(engine: String) throws {
        let upstream = engine == "osrm" ? try Engines.osrmURL() : try Engines.valhallaURL()
        let server = try FaultyEngine(upstream: upstream)
        defer { server.stop() }
        let recordings = "/tmp/navd-rec-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: recordings) }
        let navd = try NavdInstance.simulatedDrive(
            engine: engine, url: server.url,
            routing: """
                max_attempts = 1
                refresh_interval = \(Self.interval)
                """, recordings: recordings)
        try navd.start()
        let client = try navd.connect()
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        let navigate = #"{"type":"navigate","id":"go","waypoints":[{"lat":\#(Self.destination.latitude),"lon":\#(Self.destination.longitude)}]}"#
        #expect(client.command(navigate, id: "go")?.type == "reply")
        let route = try #require(client.waitFor(timeout: 20) { $0.type == "route" }, "no route:\n\(navd.log.suffix(2000))")
        let routeId = try #require(route["routeId"]?.stringValue)

        // Traffic from now on.
        server.behaviour = .heavyTraffic
        let refreshed = try #require(
            client.waitFor(timeout: 30) { $0.type == "route_refreshed" }, "no refresh:\n\(navd.log.suffix(3000))")
        let stateBefore = client.received.last { $0.type == "trip_state" && $0["state"]?.stringValue == "navigating" }
        #expect(refreshed["routeId"]?.stringValue == routeId && refreshed["expired"]?.boolValue == false)
        #expect(try #require(refreshed["change"]?.doubleValue) > 0, "\(refreshed)")
        #expect(refreshed["congestion"]?.arrayValue?.first?["level"]?.stringValue == "heavy", "\(refreshed)")
        #expect(refreshed["incidents"]?.arrayValue?.first?["type"]?.stringValue == "construction", "\(refreshed)")
        #expect(refreshed["engine"]?["name"]?.stringValue == engine)
        // The engine's time ahead is 1.5 times what it was (the time already shown was the engine's, too).
        let remaining = try #require(refreshed["durationRemaining"]?.doubleValue)
        let change = try #require(refreshed["change"]?.doubleValue)
        let before = remaining - change
        #expect(abs(remaining / before - 1.5) < 0.08, "refreshed \(remaining) s from \(before) s")
        // Valhalla re-costs the route's own edges; OSRM is asked for the route again.
        let paths = server.requestLines
        #expect(engine == "valhalla" ? paths.contains { $0.hasPrefix("POST /trace_route ") } : paths.filter { $0.hasPrefix("GET /route/v1") }.count >= 2, "\(paths)")
        let afterRefresh = try #require(client.waitFor(timeout: 10) { $0.type == "trip_state" && $0["congestion"]?.stringValue == "heavy" })
        if let shown = stateBefore?["progress"]?["durationRemaining"]?.doubleValue, let now = afterRefresh["progress"]?["durationRemaining"]?.doubleValue {
            #expect(now > shown, "the time left did not grow: \(shown) s before, \(now) s after")
        }

        // The server fails from now on: refreshes fail without harm, and the traffic goes after three intervals.
        server.behaviour = .internalError
        let expired = try #require(
            client.waitFor(timeout: 60) { $0.type == "route_refreshed" && $0["expired"]?.boolValue == true }, "old traffic never dropped:\n\(navd.log.suffix(3000))")
        #expect(expired["congestion"]?.arrayValue?.isEmpty == true)
        let failedRefreshes = client.received.filter { $0.type == "route_calculation" && $0["purpose"]?.stringValue == "refresh" && $0["status"]?.stringValue == "failed" }
        #expect(!failedRefreshes.isEmpty, "no refresh failed while the server failed")
        server.behaviour = .forward
        let arrived = client.waitFor(timeout: 90) { $0.type == "arrived" }
        #expect(arrived != nil, "no arrival:\n\(navd.log.suffix(3000))")

        // One route all along: no other route, nothing retracted, every prompt once.
        #expect(client.received.filter { $0.type == "route" }.count == 1)
        #expect(!client.received.contains { $0.type == "instruction_retracted" })
        #expect(client.received.filter { $0["routeId"]?.stringValue != nil }.allSatisfy { $0["routeId"]?.stringValue == routeId })
        // A step has several prompts (at different distances): each is told apart by its whole content.
        let sent = client.received.filter { $0.type == "instruction" }.map { "\($0["stepIndex"]?.doubleValue ?? -1) \(String(describing: $0["instruction"]))" }
        #expect(Set(sent).count == sent.count, "a prompt was sent twice: \(sent)")
        let (invalid, summary) = try ProtocolSchema.invalid(client.receivedLines)
        #expect(invalid.isEmpty, "\(summary)\n\(invalid.joined(separator: "\n"))")

        // The recording replays to the same lines, refreshes and all.
        client.drain(for: 0.5)
        navd.process?.stop(signal: SIGTERM)
        #expect(navd.process?.waitForExit(timeout: 10) == 0)
        let files = RecordingDaemonTests.recordingFiles(recordings)
        try #require(files.count == 1, "recordings: \(files)")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        print("refresh \(engine): \(before.rounded()) s ahead became \(remaining.rounded()) s; \(failedRefreshes.count) refresh(es) failed; traffic dropped; arrived")
    }
}
