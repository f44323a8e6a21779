import Foundation
import NavigationCore
import Testing
import TestSupport

@Suite("navctl route")
struct RouteCommandTests {
    @Test func parsePrintsNumberedInstructions() throws {
        let output = try NavctlProcess.run(["route", "parse", NavctlProcess.fixture("helsinki_osrm_plain")])
        #expect(output.status == 0)
        #expect(output.stderr.isEmpty)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Route 1 of 1: 1.5 km, 7 min, 10 steps")
        #expect(lines.contains("   6. Turn right onto Mikonkatu  (90 m)"))
        #expect(lines.last == "  10. You have arrived at your destination, on the right")
    }

    @Test func parseWithPromptsShowsTriggers() throws {
        let output = try NavctlProcess.run(["route", "parse", "--prompts", NavctlProcess.fixture("valhalla_extended_osrm_response")])
        #expect(output.status == 0)
        #expect(output.stdout.contains("banner at 400 m: Tonnelle Avenue  lanes: straight straight straight [right]"))
        #expect(output.stdout.contains("say at"))
    }

    @Test func parseFromStandardInputAsJSON() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: NavctlProcess.fixture("valhalla_osrm_with_roundabouts")))
        let output = try NavctlProcess.run(["route", "parse", "-", "--json"], stdin: data)
        #expect(output.status == 0)
        let document = try JSONDecoder().decode(RouteDocument.self, from: Data(output.stdout.utf8))
        #expect(document.routes.first?.steps.count == 12)
        #expect(document.routes.first?.steps[2].roundaboutExitNumber == 1)
    }

    @Test func theSameInputGivesTheSameBytes() throws {
        let a = try NavctlProcess.run(["route", "parse", "--json", NavctlProcess.fixture("valhalla_osrm_response")])
        let b = try NavctlProcess.run(["route", "parse", "--json", NavctlProcess.fixture("valhalla_osrm_response")])
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
    }

    /// Every failure is one line on stderr, starting with "navctl: error:", and a non-zero status.
    static func expectOneLineError(_ output: NavctlProcess.Output, containing text: String) {
        #expect(output.status != 0)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(output.stderr)")
        #expect(lines.first?.hasPrefix("navctl: error: ") == true)
        #expect(output.stderr.contains(text), "stderr: \(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test func aMissingFileIsOneClearLine() throws {
        let output = try NavctlProcess.run(["route", "parse", "/nonexistent/route.json"])
        Self.expectOneLineError(output, containing: "cannot read /nonexistent/route.json: no such file")
    }

    @Test func garbageIsOneClearLine() throws {
        let output = try NavctlProcess.run(["route", "parse", "-"], stdin: Data("<html><title>Oops</title></html>".utf8))
        Self.expectOneLineError(output, containing: "HTML page instead of JSON")
    }

    @Test func theWrongPrecisionIsOneClearLine() throws {
        let output = try NavctlProcess.run(["route", "parse", "--precision", "5", NavctlProcess.fixture("helsinki_osrm_plain")])
        Self.expectOneLineError(output, containing: "wrong polyline precision")
    }

    @Test func anUnreachableServerIsOneClearLine() throws {
        let output = try NavctlProcess.run([
            "route", "fetch", "--engine", "osrm", "--url", "http://127.0.0.1:9", "--from", "60.1699,24.9384", "--to", "60.1686,24.95",
        ])
        Self.expectOneLineError(output, containing: "cannot connect to routing server http://127.0.0.1:9")
    }

    /// A user without privileges reaches the engine, as navd does under its unit (no capabilities): a socket
    /// option that needs one (SO_DEBUG, set once by mistake for TCP_NODELAY) made every request fail there with
    /// "Permission denied", while root passed.
    @Test func anUnprivilegedUserGetsARoute() throws {
        let navctl = try NavctlProcess.binary().path
        let output = try ToolRun.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", navctl, "route", "fetch", "--engine", "valhalla", "--url",
                try NavctlProcess.engineURL("valhalla"), "--from", "60.1699,24.9384", "--to", "60.1686,24.95",
            ])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.hasPrefix("Route 1 of"), "\(output.stdout.prefix(300))")
    }

    /// The issue's stalled server: the head, 13 bytes of a 100 000-byte body, then silence. `--timeout 2` bounds
    /// the whole exchange (it hung for 40 s until killed).
    @Test func aStalledServerIsATimeoutWithinTheTimeout() throws {
        let engine = try FaultyEngine(upstream: "http://127.0.0.1:9")
        defer { engine.stop() }
        engine.behaviour = .stalledBody
        let started = Date()
        let output = try NavctlProcess.run([
            "route", "fetch", "--engine", "osrm", "--url", engine.url, "--timeout", "2", "--from", "60.1699,24.9384", "--to", "60.1686,24.95",
        ])
        let elapsed = Date().timeIntervalSince(started)
        Self.expectOneLineError(output, containing: "did not answer in time")
        #expect(elapsed < 8, "navctl took \(elapsed) s with --timeout 2")
    }

    @Test(arguments: ["1e300", "nan", "-1"])
    func anImpossibleTimeoutIsOneClearLine(timeout: String) throws {
        let output = try NavctlProcess.run([
            "route", "fetch", "--engine", "osrm", "--url", "http://127.0.0.1:9", "--timeout=\(timeout)", "--from", "60.1699,24.9384", "--to", "60.1686,24.95",
        ])
        Self.expectOneLineError(output, containing: "--timeout must be from 0.1 to 3600 seconds")
    }

    @Test func badCoordinatesAreRejectedWithUsage() throws {
        let output = try NavctlProcess.run(["route", "fetch", "--engine", "osrm", "--url", "http://127.0.0.1:9", "--from", "north", "--to", "60,24"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("--from"))
    }

    @Test(arguments: ["valhalla", "osrm"])
    func fetchFromALiveEngine(engine: String) throws {
        let url = try NavctlProcess.engineURL(engine)
        let output = try NavctlProcess.run([
            "route", "fetch", "--engine", engine, "--url", url, "--from", "60.1699,24.9384", "--via", "60.1711,24.9446",
            "--to", "60.1686,24.9500", "--heading", "230",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.hasPrefix("Route 1 of 1: "))
        #expect(output.stdout.contains("2 legs"))
        #expect(output.stdout.contains("Mikonkatu"))
    }

    @Test(arguments: ["valhalla", "osrm"])
    func matchAGPXTrack(engine: String) throws {
        let url = try NavctlProcess.engineURL(engine)
        // A route's own geometry as a GPX track: the match returns a route along the same streets.
        let routed = try NavctlProcess.run([
            "route", "fetch", "--engine", "osrm", "--url", try NavctlProcess.engineURL("osrm"), "--from", "60.1660,24.9400",
            "--to", "60.1770,24.9480", "--json",
        ])
        let route = try #require(try JSONDecoder().decode(RouteDocument.self, from: Data(routed.stdout.utf8)).routes.first)
        let points = route.geometry.map { #"<trkpt lat="\#($0.latitude)" lon="\#($0.longitude)"/>"# }.joined()
        let gpx = #"<?xml version="1.0"?><gpx version="1.1"><trk><trkseg>\#(points)</trkseg></trk></gpx>"#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("navctl-match-\(engine)-\(UUID().uuidString).gpx")
        try Data(gpx.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try NavctlProcess.run(["route", "match", "--engine", engine, "--url", url, file.path, "--json"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let matched = try #require(try JSONDecoder().decode(RouteDocument.self, from: Data(output.stdout.utf8)).routes.first)
        #expect(abs(matched.distance - route.distance) < route.distance * 0.1)
        #expect(matched.steps.contains { $0.roadName == "Mannerheimintie" })
    }
}
