import Foundation
import NavigationCore
import NavigationProtocol
import Testing
import TestSupport

/// A long route through the real navd: Mutkatie on the test network (12 km of bends, a shape point every 5 m),
/// routed by each real engine, driven by navd's simulator at 10 Hz. Its answer has thousands of points, so navd
/// makes the route's controller and its `route` text on Swift's pool, not on the loop that serves the fixes
/// (docs/daemon.md, *A long route made ready off the loop*). What a client gets must be what the loop itself would
/// have written, and the trip must go on along it; the flight recording, replayed (where the loop makes the route
/// ready itself), gives the same bytes.
@Suite(.serialized)
struct LongRouteDriveTests {
    @Test(arguments: TestNetwork.Engine.allCases)
    func aLongRouteIsMadeReadyOffTheLoopAndSentAsTheLoopWritesIt(_ engine: TestNetwork.Engine) throws {
        let network = try TestNetwork.load()
        let start = try network.place("mutkatieWest"), end = try network.place("mutkatieEast")
        let recordings = "/tmp/navd-long-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: recordings) }
        let navd = try network.simulatedNavd(from: start, speed: 20, rate: 10, engine: engine, recordings: recordings)
        let process = try navd.start()
        let client = try navd.connect()
        #expect(client.waitFor(timeout: 10) { $0.type == "trip_state" } != nil, "no fix from the simulator:\n\(navd.log.suffix(2000))")
        let command = #"{"type":"navigate","id":"go","waypoints":[{"lat":\#(end.latitude),"lon":\#(end.longitude)}]}"#
        #expect(client.command(command, id: "go")?.type == "reply")
        let event = try #require(client.waitFor(timeout: 30) { $0.type == "route" }, "no route:\n\(navd.log.suffix(2000))")
        let routeId = try #require(event["routeId"]?.stringValue)
        let session = try #require(event["session"]?.doubleValue).map { Int($0) }!
        let points = try #require(event["route"]?["geometry"]?.arrayValue?.count)

        // Made ready off the loop: navd says so, for this session and this route's points.
        let said = navd.log.split(separator: "\n").filter { $0.contains("long route made ready off the loop") }
        #expect(said.contains { $0.hasSuffix("points=\(points) session=\(session)") }, "\(said)\n\(navd.log.suffix(2000))")

        // The line as sent is the line navd's writer makes from the route it carries, byte for byte.
        let line = try #require(client.receivedLines.first { $0.hasPrefix(#"{"type":"route","#) })
        let decoded = try JSONDecoder().decode(RouteEvent.self, from: Data(line.utf8))
        let seq = try #require(event["seq"]?.doubleValue).map { UInt64($0) }!
        let written = EventMessage(seq: seq, routeId: routeId, event: .route(decoded)).line
        #expect(String(decoding: written, as: UTF8.self) == line + "\n", "the route event differs from the one written on the loop")

        // The trip goes on along it: navigating states on this route, the distance remaining going down.
        var remaining: [Double] = []
        while remaining.count < 20, let state = client.waitFor(timeout: 10, { $0.type == "trip_state" && $0["routeId"]?.stringValue == routeId }) {
            if state["state"]?.stringValue == "navigating", let left = state["progress"]?["distanceRemaining"]?.doubleValue { remaining.append(left) }
        }
        #expect(remaining.count == 20, "navigating states on \(routeId): \(remaining)\n\(navd.log.suffix(2000))")
        #expect(remaining.last! < remaining.first!, "\(remaining)")
        #expect(try #require(event["distance"]?.doubleValue) > 11_000, "Mutkatie is 12 km")

        process.stop(signal: SIGTERM)
        #expect(process.waitForExit(timeout: 10) == 0, "navd did not stop cleanly:\n\(navd.log.suffix(2000))")
        let files = RecordingDaemonTests.recordingFiles(recordings)
        try #require(files.count == 1, "recordings: \(files)")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        print("long route: \(engine.rawValue): \(points) points, \(line.utf8.count / 1024) KiB event, made ready off the loop")
    }
}
