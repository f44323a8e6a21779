import Foundation
import NavigationCore
import Testing
import TestSupport

/// Free drive through the real navd: no trip, the car driven along Koulutie (60 km/h, the school zone at 40 km/h)
/// and through Kalliotunneli on the test network, navd matching its last fixes with the real Valhalla. The idle
/// states carry the road, its limit, the speed alert and the tunnel; with no engine reachable they say so, and
/// every fix is still published.
@Suite(.serialized)
struct FreeDriveTests {
    static func drive(_ network: TestNetwork, url: String? = nil) async throws -> (NetworkDriveRun, zone: (start: Double, end: Double), tunnel: (start: Double, end: Double)) {
        let start = try network.place("koulutieWest"), end = try network.place("satamatie")
        let route = try await network.route(.valhalla, from: start, heading: 90, to: end)
        // 75 km/h: over the 40 zone's major threshold (60), within the 60 road's minor one (70).
        let samples = FieldTrack(speed: 75 / 3.6, rate: 1, error: .openSky, seed: 11).samples(along: route.geometry)
        let run = try NetworkDriveRun.drive(network, engine: .valhalla, samples: samples, to: end, epochsPerSecond: 10, navigate: false, url: url)
        func along(_ point: GeographicCoordinate) -> Double { samples.min { Geodesy.distance($0.fix.coordinate, point) < Geodesy.distance($1.fix.coordinate, point) }!.distance }
        return (run, (along(network.schoolZone.start), along(network.schoolZone.end)), (along(network.tunnel.start), along(network.tunnel.end)))
    }

    @Test func theIdleStateKnowsTheRoadItsLimitTheAlertAndTheTunnel() async throws {
        let network = try TestNetwork.load()
        let (run, zone, tunnel) = try await Self.drive(network)
        let context = "\(run.eventSummary)\n\(run.log.suffix(1500))"
        let idle = run.messages.indices.filter { run.messages[$0].type == "trip_state" && run.messages[$0]["state"]?.stringValue == "idle" }
        #expect(idle.count >= run.samples.count - 2, "\(idle.count) idle states for \(run.samples.count) fixes: every fix is published")
        #expect(!run.messages.contains { $0.type == "route_calculation" }, "free drive's matches are not calculation sessions")
        func states(from: Double, to: Double) -> [JSONValue] {
            // (JSONValue takes `nil` as its null: an explicit filter, not a compactMap returning nil.)
            idle.filter { i in run.sampleAt[i].map { (from...to).contains(run.samples[$0].distance) } ?? false }.map { run.messages[$0] }
        }
        // Once matched (free_drive.interval 10 s, 208 m at 75 km/h, max_age 30 s): the road and its limit.
        let onKoulutie = states(from: 250, to: zone.start - 30)
        #expect(!onKoulutie.isEmpty)
        #expect(onKoulutie.allSatisfy { $0["freeDrive"]?["status"]?.stringValue == "matched" }, "\(onKoulutie.map { $0["freeDrive"] ?? .null })")
        #expect(onKoulutie.allSatisfy { $0["roadName"]?.stringValue == "Koulutie" && $0["speedLimit"]?["value"]?.doubleValue == 60 })
        // In the school zone, after a match inside it: the 40 limit and a major alert (75 > 40 + 20).
        let inZone = states(from: zone.start + 250, to: zone.end - 10)
        #expect(!inZone.isEmpty && inZone.allSatisfy { $0["speedLimit"]?["value"]?.doubleValue == 40 }, "\(inZone.map { $0["speedLimit"] ?? .null })")
        #expect(inZone.contains { $0["speedAlert"]?["level"]?.stringValue == "major" }, "no major alert in the school zone at 75 km/h: \(context)")
        #expect(run.events("speed_alert").contains { $0.message["level"]?.stringValue == "major" && $0.message["limit"]?.doubleValue == 40 })
        // In the tunnel, once matched inside it: the tunnel the car is in.
        let inTunnel = states(from: tunnel.start + 250, to: tunnel.end - 10)
        #expect(!inTunnel.isEmpty)
        #expect(
            inTunnel.allSatisfy { ($0["roadAhead"]?.arrayValue ?? []).contains { $0["kind"]?.stringValue == "tunnel" && $0["name"]?.stringValue == "Kalliotunneli" } },
            "\(inTunnel.map { $0["roadAhead"] ?? .null })")
        print("free drive: \(idle.count) idle states, \(onKoulutie.count) on Koulutie at 60, \(inZone.count) in the school zone at 40, \(inTunnel.count) in the tunnel")
    }

    /// No engine answers (a port nothing listens on): the idle state says free drive is unavailable and why, and
    /// every fix is still published on time.
    @Test func withNoEngineTheIdleStateSaysSoAndFixesFlow() async throws {
        let network = try TestNetwork.load()
        let port = freePort()
        let (run, _, _) = try await Self.drive(network, url: "http://127.0.0.1:\(port)")
        let idle = run.messages.filter { $0.type == "trip_state" && $0["state"]?.stringValue == "idle" }
        #expect(idle.count >= run.samples.count - 2, "\(idle.count) idle states for \(run.samples.count) fixes")
        let unavailable = idle.filter { $0["freeDrive"]?["status"]?.stringValue == "unavailable" }
        #expect(!unavailable.isEmpty, "\(idle.suffix(3))")
        #expect(unavailable.allSatisfy { ($0["freeDrive"]?["detail"]?.stringValue ?? "").contains("127.0.0.1") }, "\(unavailable.first ?? .null)")
        #expect(idle.allSatisfy { $0["roadName"] == nil && $0["speedLimit"] == nil }, "a road from nowhere")
    }
}
