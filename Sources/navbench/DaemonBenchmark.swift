import Foundation
import LocationSources
import NIOCore
import NIOPosix
import NavigationCore
import NavigationDaemon
import SystemSupport

/// The navigation loop's cost per fix as the daemon runs it: `TripCoordinator.handle` (controller update,
/// instruction ledger, event building), then every event serialized once and queued for each client, whose
/// writer (the daemon's ``ChannelWriter``) writes it into a real Unix socket on NIO's event loops; one reader
/// thread drains the other ends. Target: under 50 µs per fix with 100 clients (a fix arrives every 100–1000 ms).
struct DaemonBenchmark {
    func run() async -> [Figure] {
        // Two descriptors per client (both ends of its socket pair).
        guard DescriptorLimit.raise(toAtLeast: 2100) >= 2100 else { fail("navbench cannot open the 2000 descriptors of 1000 clients") }
        var figures: [Figure] = []
        let route = ControllerBenchmark.route(length: 20_000)
        let fixes = LocationSimulator(speed: 25, sampleRate: 1, noise: 4, seed: 3).simulate(along: route.geometry)
        for clientCount in [1, 20, 100, 1000] {
            let hub = EventHub()
            var peers: [Int32] = []
            for id in 0..<clientCount {
                var pair: [Int32] = [0, 0]
                guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fail("socketpair: \(String(cString: strerror(errno)))") }
                let channel: any Channel
                do {
                    channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .takingOwnershipOfDescriptor(inputOutput: pair[0]).get()
                } catch {
                    fail("NIO did not take the socket: \(error)")
                }
                let client = ClientConnection(id: id, peer: PeerCredentials(pid: 0, uid: 0, gid: 0), mayControl: true, queueLimit: 1 << 20)
                // As navd does for its Unix socket's clients: lines sent to the socket itself, NIO handed the rest.
                ChannelWriter(channel: channel, outbox: client.outbox, descriptor: pair[0]).start(scheduler: hub.writers)
                hub.add(client)
                peers.append(pair[1])
            }
            let reader = SocketDrain(descriptors: peers)
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
            let delivered = reader.finish()
            let sample = Percentiles(perFix)
            progress("daemon-loop: \(clientCount) clients: \(perFix.count) fixes, \(events) events, \(delivered / clientCount) bytes read per client")
            figures.append(
                Figure(
                    "daemon loop per fix, \(clientCount) client\(clientCount == 1 ? "" : "s"), median", sample.median, "µs",
                    target: clientCount == 100 ? "< 50 µs" : nil, met: clientCount == 100 ? sample.median < 50 : nil))
        }
        return figures
    }
}

/// One thread reading the clients' ends of the socket pairs until each is closed (after navd's `bye`).
final class SocketDrain: @unchecked Sendable {
    private final class Count: @unchecked Sendable { var bytes = 0 }
    private let thread: Thread
    private let done = DispatchSemaphore(value: 0)
    private let total = Count()

    init(descriptors: [Int32]) {
        let done = self.done
        let total = self.total
        thread = Thread {
            var open = descriptors
            var received = 0
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !open.isEmpty {
                var polls = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
                guard poll(&polls, nfds_t(polls.count), 10_000) > 0 else { break }  // 10 s without a byte: give up
                for entry in polls where entry.revents != 0 {
                    let count = read(entry.fd, &buffer, buffer.count)
                    if count > 0 {
                        received += count
                    } else {
                        close(entry.fd)
                        open.removeAll { $0 == entry.fd }
                    }
                }
            }
            open.forEach { close($0) }
            total.bytes = received  // read after done.wait()
            done.signal()
        }
        thread.start()
    }

    /// Waits until every client's end was closed; the bytes read in all.
    func finish() -> Int {
        done.wait()
        return total.bytes
    }
}
