import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
import SystemSupport

/// How navd's costs grow: with its clients (1, 100 and 1000 on the socket), with the receiver's rate (1 to 20 Hz)
/// and with the route's length (1 to 1000 km). The real navd reads a socat pty as in `field`; the clients beyond
/// the measuring ones are read by one thread (`SocketDrain`), and the measuring clients are the last two to
/// connect: navd gives clients past the navigation loop's share to its event loops in turn, the fewest first,
/// so at 1000 clients each of the two is the last its loop writes, and each epoch's figure is the later of them.
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
        var last = [rig.client]
        var reroutes: [Int: [Double]] = [:]
        var sampleLine: [UInt8] = []
        for count in [1, 100, 1000] {
            // The others: count - 3 more read by one thread, then the two measuring clients, connected last.
            if count > 1 {
                // The last stage's measuring clients leave first (and navd sees them go), so that the new ones
                // are again the last of their loops.
                for tap in last where tap !== rig.client { tap.close() }
                usleep(300_000)
                var batch: [Int32] = []
                while drained.count + batch.count < count - 3 { batch.append(connectUnixSocket(instance.socketPath)) }
                drained += batch
                drains.append(SocketDrain(descriptors: batch))
                last = [instance.connect(), instance.connect()]
            }
            usleep(500_000)
            let cpuStart = instance.process.cpuSeconds, wallStart = monotonicSeconds()
            let first = FieldBenchmark.drive(feeder: feeder, walk: walk, distance: &distance, speed: 12, epochs: Int(seconds * 10))
            let cpu = (instance.process.cpuSeconds - cpuStart) / (monotonicSeconds() - wallStart) * 100
            let latency = Percentiles(feeder.worstLatencies(of: last.map(\.lines), since: first, filter: FieldBenchmark.isTripState))
            let rss = instance.process.residentMegabytes, anonymous = instance.process.statusMegabytes("RssAnon")
            let clients = "\(count) client\(count == 1 ? "" : "s")"
            if count == 1000, let line = last[0].lines.last(where: { FieldBenchmark.isTripState($0.text) }) { sampleLine = Array(line.text.utf8) + [UInt8(ascii: "\n")] }
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
                    let reroute = FieldBenchmark.reroute(feeder: feeder, client: last[last.count - 1], walk: walk, instance: instance)
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
        guard !sampleLine.isEmpty else { fail("the last of 1000 clients received no trip_state") }
        let floor = Self.fanOutFloor(line: sampleLine, clients: 1000, repetitions: Int(seconds * 10))
        progress("scaling: one line written to 1000 sockets without navd (\(sampleLine.count) bytes): p50 \(String(format: "%.2f", floor.median)) ms, p99 \(String(format: "%.2f", floor.p99)) ms")
        if let index = figures.firstIndex(where: { $0.name == "fix to socket at the last client, 1000 clients, p99" }) {
            figures[index].peer = floor.p99
            figures[index].peerName = "writes alone"
        }
        figures += [
            Figure("a trip_state written to 1000 sockets, no navd, at the last, p50", floor.median, "ms"),
            Figure("a trip_state written to 1000 sockets, no navd, at the last, p99", floor.p99, "ms"),
        ]
        return figures
    }

    /// The machine's floor for the figure at 1000 clients: the same fan-out with nothing of navd in it. One thread
    /// writes `line` into `clients` Unix socket pairs, one `write` each, in order, every 100 ms (10 Hz); the other
    /// ends are read as navd's clients are read here (all but the last by one `SocketDrain` thread, the last by a
    /// `LineTap`). Each sample runs from the first `write` until the last client's read returns, in ms: no
    /// receiver, pty, parsing or navigation, so navd's figure can only be above it.
    static func fanOutFloor(line: [UInt8], clients: Int, repetitions: Int) -> Percentiles {
        var writers: [Int32] = []
        var readers: [Int32] = []
        for _ in 0..<clients {
            var pair: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fail("socketpair: \(String(cString: strerror(errno)))") }
            writers.append(pair[0])
            readers.append(pair[1])
        }
        let drain = SocketDrain(descriptors: Array(readers.dropLast()))
        let tap = LineTap(descriptor: readers[readers.count - 1])
        var started: [Double] = []
        for _ in 0..<repetitions {
            usleep(100_000)
            started.append(monotonicSeconds())
            for writer in writers {
                let written = line.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                guard written == line.count else { fail("a socket pair took \(written) of \(line.count) bytes") }
            }
        }
        let deadline = monotonicSeconds() + 10
        while tap.count < repetitions, monotonicSeconds() < deadline { usleep(1_000) }
        let arrivals = tap.lines
        guard arrivals.count == repetitions else { fail("the last socket pair received \(arrivals.count) of \(repetitions) lines") }
        for writer in writers { close(writer) }  // the readers see the end and close their side
        _ = drain.finish()
        tap.close()
        return Percentiles(zip(started, arrivals).map { ($1.time - $0) * 1000 })
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
    /// `route` event's size and the time to encode it, the time to build the controller (its spatial index), and
    /// the navigation loop's time to take the route's answer (the coordinator's step and its events' lines) as it
    /// makes the controller and text itself and, for a long route, with them made ahead (``PreparedRoute``: on
    /// Swift's pool in navd).
    static func routeSizeFigures() -> [Figure] {
        var figures: [Figure] = []
        for kilometers in [1, 10, 100, 1000] {
            let route = ControllerBenchmark.route(length: Double(kilometers) * 1000, asSent: true)
            let repeats = max(3, 300 / kilometers)
            var encode: [Double] = [], build: [Double] = [], takenHere: [Double] = [], takenReady: [Double] = [], offer: [Double] = []
            var size = 0
            let worthPreparing = PreparedRoute.isWorthIt([route])
            for _ in 0..<repeats {
                takenHere.append(answerTaken(route, prepared: false))
                offer.append(alternativesWritten(route))
                if worthPreparing { takenReady.append(answerTaken(route, prepared: true)) }
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
                Figure("answer of a \(kilometers) km route taken on the loop (median)", Percentiles(takenHere).median, "ms"),
                Figure("route_alternatives event, three \(kilometers) km routes, encode (median)", Percentiles(offer).median, "ms"),
            ]
            if worthPreparing {
                figures.append(
                    Figure(
                        "answer of a \(kilometers) km route taken on the loop, made ready off it (median)", Percentiles(takenReady).median, "ms",
                        peer: Percentiles(takenHere).median, peerName: "made on the loop"))
            }
        }
        return figures
    }

    /// Milliseconds to write the `route_alternatives` event offering `route` and two more of its length (their
    /// geometry, as a client draws them).
    static func alternativesWritten(_ route: Route) -> Double {
        let options = (0..<3).map { index in
            RouteOption(
                index: index, distance: route.distance, duration: route.duration, durationDelta: Double(index * 60), distanceDelta: Double(index * 500),
                tolls: false, motorways: true, mainRoads: ["E18", "Mannerheimintie"], geometry: route.geometry)
        }
        let start = monotonicSeconds()
        var sequencer = EventSequencer()
        let event = RouteAlternativesEvent(session: 1, status: .offered, chooseBefore: "2026-12-03T10:00:00Z", routes: options)
        _ = sequencer.line(.routeAlternatives(event), routeId: "bench-1")
        return (monotonicSeconds() - start) * 1000
    }

    /// Milliseconds the navigation loop takes for a calculation's answer of `route` on a navigating coordinator:
    /// the coordinator's step and the lines of the events it publishes, with the route's controller and text made
    /// ahead when `prepared` (not timed: navd makes them on Swift's pool while the loop serves fixes).
    static func answerTaken(_ route: Route, prepared: Bool) -> Double {
        let time = Date(timeIntervalSince1970: 1_795_241_290)
        let fix = UserLocation(coordinate: route.geometry[0], horizontalAccuracy: 5, course: nil, speed: nil, timestamp: time)
        var coordinator = TripCoordinator(settings: TripCoordinator.Settings(config: NavdConfig()), idPrefix: "bench")
        coordinator.handle(.fix(GNSSFix(location: fix, quality: GNSSQuality(mode: .threeDimensional))), now: time)
        guard let session = try? coordinator.navigate(.init(waypoints: [Waypoint(coordinate: route.geometry.last!)]), now: time).session else {
            fail("the coordinator refused to navigate the synthetic route")
        }
        _ = coordinator.takeEffects()
        var outcome = RouteCalculationRunner.Outcome(result: .success([route]), attempts: 1)
        if prepared {
            guard let preparation = coordinator.routePreparation(forSession: session), let ready = PreparedRoute(route, preparation) else {
                fail("the synthetic route could not be made ready")
            }
            outcome.prepared = ready
        }
        let start = monotonicSeconds()
        coordinator.calculationFinished(session: session, outcome, now: time)
        var sequencer = EventSequencer()
        var routeEvents = 0
        for effect in coordinator.takeEffects() {
            guard case .publish(let event, let routeId) = effect else { continue }
            if case .route = event { routeEvents += 1 }
            _ = sequencer.line(event, routeId: routeId)
        }
        let taken = (monotonicSeconds() - start) * 1000
        guard routeEvents == 1 else { fail("the synthetic route's answer was not taken (\(routeEvents) route events)") }
        return taken
    }
}
