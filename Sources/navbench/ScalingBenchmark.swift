import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import SystemSupport

/// How navd's costs grow: with its clients (1, 100 and 1000 on the socket), with the receiver's rate (1 to 20 Hz)
/// and with the route's length (1 to 1000 km). The real navd reads a socat pty as in `field`; the clients beyond
/// the measuring one are read by one thread (`SocketDrain`), and the measuring client is the last to connect, so
/// its lines are written last.
struct ScalingBenchmark {
    var navd: String
    var valhalla: String
    var keep = false
    /// Seconds of driving per measurement.
    var seconds = 15.0

    func run() -> [Figure] {
        let root = "/tmp/navbench-scaling-\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer {
            if keep { progress("the run's files are in \(root)") } else { try? FileManager.default.removeItem(atPath: root) }
        }
        // navbench holds a descriptor per client too.
        let limit = DescriptorLimit.raise(toAtLeast: 4096)
        guard limit >= 2100 else { fail("navbench can open only \(limit) files; 1000 clients need about 2100") }
        return Self.routeSizeFigures() + clientFigures(directory: "\(root)/clients") + rateFigures(directory: "\(root)/rates")
    }

    // MARK: Clients

    /// 1, 100 and 1000 clients on one navd at 10 Hz: fix to socket at the last client to connect, navd's CPU and
    /// memory; and a reroute while 1 and while 1000 clients watch.
    private func clientFigures(directory: String) -> [Figure] {
        let rig = SerialRig(navd: navd, valhalla: valhalla, directory: directory, maxClients: 1100)
        let (instance, feeder) = (rig.instance, rig.feeder)
        defer { rig.close() }
        var walk = FieldBenchmark.startTrip(feeder: feeder, client: rig.client)
        var distance = 0.0
        var figures: [Figure] = []
        var drained: [Int32] = []
        var drains: [SocketDrain] = []
        var last = rig.client
        var reroutes: [Int: [Double]] = [:]
        for count in [1, 100, 1000] {
            // The others: count - 2 more read by one thread, then the measuring client, connected last.
            if count > 1 {
                var batch: [Int32] = []
                while drained.count + batch.count < count - 2 { batch.append(connectUnixSocket(instance.socketPath)) }
                drained += batch
                drains.append(SocketDrain(descriptors: batch))
                last = instance.connect()
            }
            usleep(500_000)
            let cpuStart = instance.process.cpuSeconds, wallStart = monotonicSeconds()
            let first = FieldBenchmark.drive(feeder: feeder, walk: walk, distance: &distance, speed: 12, epochs: Int(seconds * 10))
            let cpu = (instance.process.cpuSeconds - cpuStart) / (monotonicSeconds() - wallStart) * 100
            let latency = Percentiles(feeder.latencies(of: last.lines, since: first, filter: FieldBenchmark.isTripState).milliseconds)
            let rss = instance.process.residentMegabytes, anonymous = instance.process.statusMegabytes("RssAnon")
            let clients = "\(count) client\(count == 1 ? "" : "s")"
            progress("scaling: \(clients): \(latency.count) epochs at the last client; CPU \(String(format: "%.2f", cpu)) %")
            figures += [
                Figure("fix to socket at the last client, \(clients), p50", latency.median, "ms"),
                Figure(
                    "fix to socket at the last client, \(clients), p99", latency.p99, "ms", target: count == 1000 ? "< 2 ms" : nil,
                    met: count == 1000 ? latency.p99 < 2 : nil),
                Figure("CPU at 10 Hz, \(clients)", cpu, "% of a core"),
                Figure("RSS navigating, \(clients)", rss, "MB"),
                Figure("of which anonymous, \(clients)", anonymous, "MB"),
            ]
            if count == 1 || count == 1000 {
                var times: [Double] = []
                for _ in 0..<3 {
                    let reroute = FieldBenchmark.reroute(feeder: feeder, client: last, walk: walk, instance: instance)
                    times.append(reroute.milliseconds)
                    walk = reroute.next
                    distance = 0
                }
                reroutes[count] = times
                progress("scaling: reroutes with \(clients): \(times.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms")
            }
        }
        let alone = Percentiles(reroutes[1] ?? []).median, watched = Percentiles(reroutes[1000] ?? []).median
        figures += [
            Figure("deciding fix to the reroute's route event, 1 client (median of 3)", alone, "ms"),
            Figure(
                "deciding fix to the reroute's route event at the last of 1000 clients (median of 3)", watched, "ms", peer: alone,
                peerName: "1 client"),
        ]
        for descriptor in drained { shutdown(descriptor, Int32(SHUT_RDWR)) }
        for drain in drains { _ = drain.finish() }
        return figures
    }

    // MARK: Receiver rates

    /// 1 to 20 Hz with 50 clients: navd's CPU and fix to socket at the last client.
    private func rateFigures(directory: String) -> [Figure] {
        let rig = SerialRig(navd: navd, valhalla: valhalla, directory: directory)
        let (instance, feeder) = (rig.instance, rig.feeder)
        defer { rig.close() }
        let walk = FieldBenchmark.startTrip(feeder: feeder, client: rig.client)
        var others: [Int32] = []
        while others.count < 48 { others.append(connectUnixSocket(instance.socketPath)) }
        let drain = SocketDrain(descriptors: others)
        let last = instance.connect()
        var distance = 0.0
        var figures: [Figure] = []
        for hertz in [1, 5, 10, 20] {
            feeder.setRate(hertz)
            let speed = 12.0
            let cpuStart = instance.process.cpuSeconds, wallStart = monotonicSeconds()
            let first = FieldBenchmark.drive(
                feeder: feeder, walk: walk, distance: &distance, speed: speed, epochs: Int(seconds) * hertz, hertz: Double(hertz))
            let cpu = (instance.process.cpuSeconds - cpuStart) / (monotonicSeconds() - wallStart) * 100
            let latency = Percentiles(feeder.latencies(of: last.lines, since: first, filter: FieldBenchmark.isTripState).milliseconds)
            progress("scaling: \(hertz) Hz: \(latency.count) epochs at the last of 50 clients; CPU \(String(format: "%.2f", cpu)) %")
            figures += [
                Figure(
                    "CPU at \(hertz) Hz, 50 clients", cpu, "% of a core", target: hertz == 10 ? "< 2 %" : nil, met: hertz == 10 ? cpu < 2 : nil),
                Figure("fix to socket at the last of 50 clients, \(hertz) Hz, p99", latency.p99, "ms"),
            ]
        }
        for descriptor in others { shutdown(descriptor, Int32(SHUT_RDWR)) }
        _ = drain.finish()
        return figures
    }

    // MARK: Route length

    /// Synthetic routes of 1 to 1000 km (a point every 25 m, a step every 500 m, as `controller` drives): the
    /// `route` event's size and the time to encode it, and the time to build the controller (its spatial index).
    static func routeSizeFigures() -> [Figure] {
        var figures: [Figure] = []
        for kilometers in [1, 10, 100, 1000] {
            let route = ControllerBenchmark.route(length: Double(kilometers) * 1000)
            let repeats = max(3, 300 / kilometers)
            var encode: [Double] = [], build: [Double] = []
            var size = 0
            for _ in 0..<repeats {
                var start = monotonicSeconds()
                var sequencer = EventSequencer()
                size = sequencer.line(.route(RouteEvent(reason: .reroute, session: 1, route: route)), routeId: "bench-1").count
                encode.append((monotonicSeconds() - start) * 1000)
                start = monotonicSeconds()
                guard (try? NavigationController(route: route)) != nil else { fail("the synthetic route has no steps") }
                build.append((monotonicSeconds() - start) * 1000)
            }
            progress("scaling: \(kilometers) km route: \(route.steps.count) steps, \(route.geometry.count) points, \(repeats) repeats")
            figures += [
                Figure("route event, \(kilometers) km route, size", Double(size) / 1024, "KiB"),
                Figure("route event, \(kilometers) km route, encode (median)", Percentiles(encode).median, "ms"),
                Figure("controller for a \(kilometers) km route, build (median)", Percentiles(build).median, "ms"),
            ]
        }
        return figures
    }
}
