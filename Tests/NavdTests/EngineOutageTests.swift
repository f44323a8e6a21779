import Foundation
import NavigationCore
import Testing
import TestSupport

/// A Valhalla of the test's own (scripts/engines with its own run directory and a fixed port), stopped while
/// the vehicle is off the route and started again.
@Suite(.serialized)
struct EngineOutageTests {
    static func engines(_ arguments: [String], runDirectory: String, port: Int) throws {
        let script = NavdInstance.repoRoot.appendingPathComponent("scripts/engines").path
        let process = try ExternalProcess(
            "/bin/bash", [script] + arguments, environment: ["NAVD_RUN_DIR": runDirectory, "NAVD_VALHALLA_PORT": "\(port)"])
        process.leavesChildrenRunning = true
        let status = process.waitForExit(timeout: 60)
        #expect(status == 0, "scripts/engines \(arguments) failed:\n\(process.output)")
    }

    /// A Valhalla of the test's own, started; stopped and removed when the value goes.
    final class OwnValhalla {
        let runDirectory = "/tmp/navd-outage-\(UUID().uuidString.prefix(8))"
        let port = freePort()
        var url: String { "http://127.0.0.1:\(port)" }

        init() throws { try start() }
        func start() throws { try EngineOutageTests.engines(["start", "valhalla"], runDirectory: runDirectory, port: port) }
        func stop() throws { try EngineOutageTests.engines(["stop"], runDirectory: runDirectory, port: port) }

        deinit {
            try? stop()
            try? FileManager.default.removeItem(atPath: runDirectory)
        }
    }

    @Test func reroutePublishesNonFatalErrorsKeepsTheOldRouteAndSucceedsWhenTheEngineIsBack() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 15)
        let valhalla = try OwnValhalla()
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(
            device: pty.devicePath, valhalla: valhalla.url, extraRouting: "max_attempts = 3\nretry_delay = 0.3",
            extra: "[reroute]\ncooldown = 1\nminimum_movement = 0")
        try navd.start()
        let client = try navd.connectAndNavigate(drive, pty: pty)
        let initial = try #require(client.waitFor(timeout: 10) { $0.type == "route" })
        let initialRouteId = try #require(initial["routeId"]?.stringValue)

        try valhalla.stop()
        // Drive on until well off the route; reroutes fail while the engine is down.
        let offRoute = min(drive.fixes.count - 1, drive.firstOffRouteFix + 6)
        for index in 1...offRoute {
            pty.write(drive.nmea(index))
            client.drain(for: 0.15)
        }
        // The session may already have failed while the drive went on.
        func isFailure(_ message: JSONValue) -> Bool { message.type == "route_calculation" && message["status"]?.stringValue == "failed" }
        let failure = client.received.first(where: isFailure) ?? client.waitFor(timeout: 10, isFailure)
        let retries = client.received.filter {
            $0.type == "route_calculation" && $0["status"]?.stringValue == "in_progress" && $0["error"] != nil
        }
        #expect(!retries.isEmpty, "no non-fatal errors published; navd log:\n\(navd.log.suffix(2000))")
        #expect(retries.allSatisfy { $0["error"]?["code"]?.stringValue == "connection_failed" && $0["error"]?["retryable"]?.boolValue == true })
        #expect(failure?["attempts"]?.doubleValue == 3, "session should fail after 3 attempts: \(String(describing: failure))\n\(navd.log.suffix(3000))")
        // Still navigating the old route.
        pty.write(drive.nmea(offRoute + 1))
        let state = client.waitFor(timeout: 5) { $0.type == "trip_state" }
        #expect(state?["state"]?.stringValue == "navigating")
        #expect(state?["routeId"]?.stringValue == initialRouteId)
        #expect(!client.received.contains { $0.type == "route" && $0["reason"]?.stringValue == "reroute" })

        try valhalla.start()
        var rerouted = false
        for index in (offRoute + 2)..<drive.fixes.count {
            pty.write(drive.nmea(index))
            client.drain(for: 0.15)
            if client.received.contains(where: { $0.type == "route" && $0["reason"]?.stringValue == "reroute" }) {
                rerouted = true
                break
            }
        }
        #expect(rerouted, "no reroute after the engine came back; navd log:\n\(navd.log.suffix(3000))")
    }

    /// `[[routing.fallback]]`: the primary Valhalla stops mid-trip, the reroute is answered by the real OSRM
    /// and says so; when Valhalla is back, the next calculation is Valhalla's again.
    @Test func aStoppedPrimaryFallsBackToOSRMAndTheNextCalculationTriesThePrimaryAgain() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 15)
        let osrm = try Engines.osrmURL()
        let valhalla = try OwnValhalla()
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(
            device: pty.devicePath, valhalla: valhalla.url,
            extraRouting: "max_attempts = 2\nretry_delay = 0.2\n[[routing.fallback]]\nengine = \"osrm\"\nurl = \"\(osrm)\"",
            extra: "[reroute]\ncooldown = 1\nminimum_movement = 0")
        try navd.start()
        let client = try navd.connectAndNavigate(drive, pty: pty)
        let initial = try #require(
            client.waitFor(timeout: 15) { $0.type == "route_calculation" && ["succeeded", "failed"].contains($0["status"]?.stringValue ?? "") },
            "no initial calculation:\n\(navd.log.suffix(2000))")
        #expect(initial["status"]?.stringValue == "succeeded")
        #expect(initial["engine"]?["name"]?.stringValue == "valhalla")
        #expect(initial["failedEngines"] == nil)

        try valhalla.stop()
        let before = client.received.count
        var rerouted: JSONValue?
        for index in 1..<drive.fixes.count {
            pty.write(drive.nmea(index))
            client.drain(for: 0.15)
            rerouted = client.received[before...].first { $0.type == "route_calculation" && $0["purpose"]?.stringValue == "reroute" && $0["status"]?.stringValue == "succeeded" }
            if rerouted != nil { break }
        }
        let reroute = try #require(rerouted, "no reroute answered by the fallback; navd log:\n\(navd.log.suffix(3000))")
        #expect(reroute["engine"]?["name"]?.stringValue == "osrm")
        #expect(reroute["engine"]?["server"]?.stringValue == osrm)
        let failedEngine = try #require(reroute["failedEngines"]?.arrayValue?.first)
        #expect(failedEngine["name"]?.stringValue == "valhalla")
        #expect(failedEngine["error"]?["code"]?.stringValue == "connection_failed")
        #expect(reroute["attempts"]?.doubleValue == 3, "two attempts on Valhalla, one on OSRM")
        let moving = client.received[before...].first { $0.type == "route_calculation" && $0["fallbackTo"] != nil }
        #expect(moving?["fallbackTo"]?["name"]?.stringValue == "osrm", "the move to the fallback is published as it happens")
        let route = client.received[before...].first { $0.type == "route" && $0["reason"]?.stringValue == "reroute" }
        #expect(route != nil, "the fallback's route is navigated")
        print("fallback: reroute answered by \(reroute["engine"]?["name"]?.stringValue ?? "?") after \(Int(reroute["attempts"]?.doubleValue ?? 0)) attempts")

        try valhalla.start()
        _ = client.command(DeviatingDrive.navigateCommand(id: "again"), id: "again")
        let again = client.waitFor(timeout: 15) {
            $0.type == "route_calculation" && $0["purpose"]?.stringValue == "initial" && $0["status"]?.stringValue == "succeeded"
        }
        #expect(again?["engine"]?["name"]?.stringValue == "valhalla", "the primary answers again once it is back: \(String(describing: again))")
        #expect(again?["failedEngines"] == nil)
    }
}
