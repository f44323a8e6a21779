import Foundation
import NavigationCore
import Testing
import TestSupport

/// The road objects ahead through the real navd: Tunnelitie through Kalliotunneli (1500 m), the toll road Maksutie
/// with its booth, and the ferry to Saarentie on the test network, routed by the real Valhalla and driven through
/// navd's serial source on a pty. Each `trip_state.roadAhead` is checked against where the car truly was.
@Suite(.serialized)
struct RoadAheadDriveTests {
    @Test func theTunnelTheTollAndTheFerryAreListedAheadWithTheirDistances() async throws {
        let network = try TestNetwork.load()
        let start = try network.place("tunnelitieWest"), end = try network.place("saarentie")
        let route = try await network.route(.valhalla, from: start, heading: 90, to: end)
        // The ferry stretch is driven at boat speed; the car's own speed elsewhere.
        let samples = FieldTrack(speed: 16, rate: 1, error: .openSky, seed: 7).samples(along: route.geometry)
        let run = try NetworkDriveRun.drive(network, engine: .valhalla, samples: samples, to: end, epochsPerSecond: 20)
        let context = "\(run.eventSummary)\n\(run.log.suffix(1500))"
        #expect(run.arrived, "never arrived: \(context)")

        // Where each object begins along the car's path (the path is the route's geometry).
        func along(_ point: GeographicCoordinate) -> Double {
            let index = RouteIndex(route: route)
            var best = (Double.infinity, 0.0)
            for (i, p) in index.points.enumerated() where Geodesy.distance(p, point) < best.0 { best = (Geodesy.distance(p, point), index.cumulativeDistance[i]) }
            return best.1
        }
        let tunnelStart = along(network.tunnel.start), tunnelEnd = along(network.tunnel.end)
        let booth = along(network.toll.booth), ferryStart = along(network.ferry.start)
        var checked = (tunnel: 0, inside: 0, booth: 0, ferry: 0)
        for (i, message) in run.messages.enumerated() where message.type == "trip_state" && message["state"]?.stringValue == "navigating" {
            guard let sample = run.sampleAt[i], let ahead = message["roadAhead"]?.arrayValue else { continue }
            let at = run.samples[sample].distance
            func object(_ kind: String) -> JSONValue? { ahead.first { $0["kind"]?.stringValue == kind } }
            // Error allowed: the fix's noise (3σ) and where the snapped position stands.
            let slack = 3 * 3 + 5.0
            if at < tunnelStart - 20, tunnelStart - at < 5000 {
                let tunnel = try #require(object("tunnel"), "no tunnel ahead at \(Int(at)) m: \(ahead)")
                #expect(tunnel["name"]?.stringValue == network.tunnel.name)
                #expect(abs((tunnel["distance"]?.doubleValue ?? -1) - (tunnelStart - at)) <= slack, "tunnel \(tunnel) at \(Int(at)) m, truly \(Int(tunnelStart - at)) m ahead")
                #expect(abs((tunnel["length"]?.doubleValue ?? -1) - network.tunnel.length) <= 5, "tunnel length \(tunnel)")
                checked.tunnel += 1
            }
            if at > tunnelStart + 20, at < tunnelEnd - 20 {
                let tunnel = try #require(object("tunnel"), "inside the tunnel at \(Int(at)) m it is not listed: \(ahead)")
                #expect(tunnel["distance"]?.doubleValue == 0)
                #expect(abs((tunnel["length"]?.doubleValue ?? -1) - (tunnelEnd - at)) <= slack, "the tunnel's rest \(tunnel) at \(Int(at)) m")
                checked.inside += 1
            }
            if at > tunnelEnd + 20, at < booth - 20 {
                #expect(object("tunnel") == nil, "a tunnel behind the car is still listed at \(Int(at)) m")
                let boothAhead = try #require(object("toll_booth"), "no toll booth ahead at \(Int(at)) m: \(ahead)")
                #expect(abs((boothAhead["distance"]?.doubleValue ?? -1) - (booth - at)) <= slack)
                #expect(object("toll_road") != nil, "no toll road ahead or around at \(Int(at)) m: \(ahead)")
                checked.booth += 1
            }
            if at < ferryStart - 20, ferryStart - at < 5000 {
                let ferry = try #require(object("ferry"), "no ferry ahead at \(Int(at)) m: \(ahead)")
                #expect(abs((ferry["distance"]?.doubleValue ?? -1) - (ferryStart - at)) <= slack)
                checked.ferry += 1
            }
        }
        #expect(checked.tunnel > 10 && checked.inside > 10 && checked.booth > 3 && checked.ferry > 10, "\(checked)")
        print("road ahead: \(checked.tunnel) states before the tunnel, \(checked.inside) inside it, \(checked.booth) before the booth, \(checked.ferry) before the ferry checked")
    }
}
