import Foundation
import LocationSources
import NavigationCore
import NavigationDaemon

/// The navigation loop's cost per fix as the daemon runs it: `TripCoordinator.handle` (controller update,
/// instruction ledger, event building), then every event serialized once and queued for each client, with
/// one task per client draining its queue as a socket writer would. Target: under 50 µs per fix with 100
/// clients (a fix arrives every 100–1000 ms).
struct DaemonBenchmark {
    func run() async -> [Figure] {
        var figures: [Figure] = []
        let route = ControllerBenchmark.route(length: 20_000)
        let fixes = LocationSimulator(speed: 25, sampleRate: 1, noise: 4, seed: 3).simulate(along: route.geometry)
        for clientCount in [1, 20, 100] {
            let hub = EventHub()
            let clients = (0..<clientCount).map {
                ClientConnection(id: $0, peer: PeerCredentials(pid: 0, uid: 0, gid: 0), mayControl: true, queueLimit: 1 << 20)
            }
            for client in clients { hub.add(client) }
            let drained = await withTaskGroup(of: Int.self) { group in
                for client in clients {
                    group.addTask {
                        var bytes = 0
                        while true {
                            switch await client.outbox.next() {
                            case .lines(let lines): bytes += lines.reduce(0) { $0 + $1.count }
                            case .closing(let lines): return bytes + lines.reduce(0) { $0 + $1.count }
                            }
                        }
                    }
                }
                var coordinator = TripCoordinator(settings: TripCoordinator.Settings(config: NavdConfig()), idPrefix: "bench")
                coordinator.handle(.fix(GNSSFix(location: fixes[0], quality: GNSSQuality(mode: .threeDimensional))), now: fixes[0].timestamp)
                _ = try? coordinator.navigate(.init(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: fixes[0].timestamp)
                _ = coordinator.takeEffects()
                coordinator.calculationFinished(session: 1, result: .success([route]), attempts: 1, now: fixes[0].timestamp)
                _ = coordinator.takeEffects()
                let clock = ContinuousClock()
                var perFix: [Double] = []
                var events = 0
                for fix in fixes.dropFirst() {
                    let start = clock.now
                    coordinator.handle(.fix(GNSSFix(location: fix, quality: GNSSQuality(mode: .threeDimensional))), now: fix.timestamp)
                    for effect in coordinator.takeEffects() {
                        if case .publish(let event, let routeId) = effect {
                            hub.publish(event, routeId: routeId)
                            events += 1
                        }
                    }
                    perFix.append(ControllerBenchmark.microseconds(start.duration(to: clock.now)))
                }
                hub.closeAll(reason: "done")
                let sample = Percentiles(perFix)
                progress("daemon-loop: \(clientCount) clients: \(perFix.count) fixes, \(events) events")
                figures.append(
                    Figure(
                        "daemon loop per fix, \(clientCount) client\(clientCount == 1 ? "" : "s"), median", sample.median, "µs",
                        target: clientCount == 100 ? "< 50 µs" : nil, met: clientCount == 100 ? sample.median < 50 : nil))
                var total = 0
                for await bytes in group { total += bytes }
                return total
            }
            progress("daemon-loop: \(clientCount) clients: \(drained / max(1, clientCount)) bytes delivered per client")
        }
        return figures
    }
}
