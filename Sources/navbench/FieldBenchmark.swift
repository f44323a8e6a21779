import Foundation
import NavigationCore

/// The real navd process measured against its peers in one run on one machine: NMEA epochs (RMC+GGA, 10 Hz)
/// written into ptys until navd's `trip_state` reaches a socket client (serial source; and through gpsd, next to
/// gpsd's own TPV reaching a watcher on the same feed; and beside gpsd, the same epochs written to both at once),
/// start to READY, memory and CPU, and the time navd adds to a route calculation over the engine's own time for
/// the same request.
struct FieldBenchmark {
    var navd: String
    var valhalla: String
    /// Epochs measured per latency phase (10 per second).
    var epochs: Int
    var keep = false

    /// Bulevardi, Helsinki, and a destination 3.6 km away across the centre: a city route.
    static let origin = GeographicCoordinate(latitude: 60.165574, longitude: 24.9406)
    static let destination = GeographicCoordinate(latitude: 60.178242, longitude: 24.95188)
    static let navigate = #"{"type":"navigate","id":"bench","waypoints":[{"lat":60.178242,"lon":24.95188}]}"# + "\n"

    func run() -> [Figure] {
        let root = "/tmp/navbench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // --keep: leave the run's directory (navd's and gpsd's logs, configs, recordings, what the clients received).
        defer {
            if keep { progress("the run's files are in \(root)") } else { try? FileManager.default.removeItem(atPath: root) }
        }
        var serial = serialPhase(directory: "\(root)/serial")
        let shared = sharedEpochsPhase(directory: "\(root)/shared")
        let gpsd = gpsdPhase(directory: "\(root)/gpsd")
        // gpsd's relay on the same feed is the serial source's peer too: the figure navd has to beat.
        if let relay = gpsd.first(where: { $0.name.hasPrefix("gpsd's own relay") && $0.name.hasSuffix("p50") }),
            let index = serial.firstIndex(where: { $0.name == "fix to socket, serial source, p50" })
        {
            serial[index].peer = relay.value
            serial[index].peerName = "gpsd relay"
            serial[index].target = "< gpsd relay"
            serial[index].met = serial[index].value < relay.value
        }
        if let relay = gpsd.first(where: { $0.name == "gpsd's own relay, p99" }),
            let index = serial.firstIndex(where: { $0.name == "fix to socket, serial source, p99" })
        {
            serial[index].peer = relay.value
            serial[index].peerName = "gpsd relay"
        }
        return serial + gpsd + shared + routingPhase(directory: "\(root)/routing")
    }

    // MARK: Serial source: latency, start to READY, memory, CPU

    private func serialPhase(directory: String) -> [Figure] {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Start to READY: the median of five starts of the same configuration.
        var starts: [Double] = []
        var idleRSS: [Double] = []
        var maps = ""
        for attempt in 0..<5 {
            let pty = PtyPair(directory: directory, name: "gps\(attempt)")
            let instance = NavdUnderTest(binary: navd, directory: "\(directory)/start\(attempt)", gnss: Self.serialGNSS(pty), valhalla: valhalla)
            starts.append(instance.startToReady * 1000)
            usleep(500_000)
            idleRSS.append(instance.process.residentMegabytes)
            // cat: /proc files report a size of 0, and a reader that trusts the size gets one page.
            if attempt == 0 { maps = runTool("/bin/cat", ["/proc/\(instance.process.pid)/maps"]) }
            instance.stop()
            pty.close()
        }
        progress("start to READY: \(starts.map { String(format: "%.1f", $0) }.joined(separator: ", ")) ms")
        let footprint = footprintFigures(directory: directory, maps: maps)

        let rig = SerialRig(navd: navd, valhalla: valhalla, directory: directory)
        let (instance, feeder, client) = (rig.instance, rig.feeder, rig.client)
        defer { rig.close() }
        let walk = Self.startTrip(feeder: feeder, client: client)
        var distance = 0.0
        let speed = 12.0
        // One client.
        let firstEpoch = Self.drive(feeder: feeder, walk: walk, distance: &distance, speed: speed, epochs: epochs)
        let single = feeder.latencies(of: client.lines, since: firstEpoch, filter: Self.isTripState)
        let navigatingRSS = instance.process.residentMegabytes

        // 50 clients: 49 more subscribers reading every event.
        var others: [LineTap] = []
        for _ in 0..<49 { others.append(instance.connect()) }
        let cpuStart = instance.process.cpuSeconds, wallStart = monotonicSeconds()
        let fiftyFirst = Self.drive(feeder: feeder, walk: walk, distance: &distance, speed: speed, epochs: epochs)
        let cpuPercent = (instance.process.cpuSeconds - cpuStart) / (monotonicSeconds() - wallStart) * 100
        let fifty = feeder.latencies(of: client.lines, since: fiftyFirst, filter: Self.isTripState)
        let fiftyRSS = instance.process.residentMegabytes
        // The most navd has held resident since it started (start, routes, reroutes, 50 clients): what a vehicle
        // must have room for.
        let fiftyPeak = instance.process.statusMegabytes("VmHWM")
        let fiftyAnonymous = instance.process.statusMegabytes("RssAnon"), fiftyFile = instance.process.statusMegabytes("RssFile")
        for other in others { other.close() }

        let one = Percentiles(single.milliseconds), many = Percentiles(fifty.milliseconds)
        let perEpoch = Array(single.perEpoch.values) + Array(fifty.perEpoch.values)
        let exactlyOne = perEpoch.filter { $0 == 1 }.count
        let odd = (single.perEpoch.merging(fifty.perEpoch) { a, _ in a }).filter { $0.value != 1 }.sorted { $0.key < $1.key }
        if !odd.isEmpty {
            progress("epochs without exactly one trip_state (fix time in centiseconds: count): \(odd.map { "\($0.key): \($0.value)" }.joined(separator: ", "))")
        }
        progress("serial: \(one.count) epochs measured with 1 client, \(many.count) with 50; \(exactlyOne) of \(perEpoch.count) epochs gave exactly one trip_state")
        return footprint + [
            Figure("start to READY (median of 5)", Percentiles(starts).median, "ms", target: "< 50 ms", met: Percentiles(starts).median < 50),
            Figure("fix to socket, serial source, p50", one.median, "ms"),
            Figure("fix to socket, serial source, p99", one.p99, "ms", target: "< 1 ms", met: one.p99 < 1),
            Figure("fix to socket, serial source, 50 clients, p50", many.median, "ms"),
            Figure("fix to socket, serial source, 50 clients, p99", many.p99, "ms"),
            Figure(
                "epochs with exactly one trip_state", Double(exactlyOne) / Double(max(1, perEpoch.count)) * 100, "%", target: "100 %",
                met: exactlyOne == perEpoch.count),
            Figure("RSS idle (median of 5)", Percentiles(idleRSS).median, "MB"),
            Figure("RSS navigating, 1 client", navigatingRSS, "MB"),
            Figure("RSS navigating, 50 clients", fiftyRSS, "MB"),
            Figure("peak RSS (VmHWM) by then", fiftyPeak, "MB", target: "< 20 MB", met: fiftyPeak < 20),
            Figure("of which anonymous (heap, stacks)", fiftyAnonymous, "MB"),
            Figure("of which file pages (binary, libraries)", fiftyFile, "MB"),
            Figure("CPU at 10 Hz, 50 clients", cpuPercent, "% of a core", target: "< 2 %", met: cpuPercent < 2),
        ]
    }

    /// The binary's size on the vehicle's flash (stripped as the Debian package strips it) and the shared
    /// libraries a running navd maps (Foundation's libxml2 and ICU are what the flash target is about).
    /// `maps`: /proc/PID/maps of an idle navd.
    private func footprintFigures(directory: String, maps: String) -> [Figure] {
        let stripped = "\(directory)/navd-stripped"
        _ = runTool("/usr/bin/strip", ["--strip-unneeded", "--remove-section=.comment", "--remove-section=.note", "-o", stripped, navd])
        let size = ((try? FileManager.default.attributesOfItem(atPath: stripped))?[.size] as? Int).map { Double($0) / 1_048_576 } ?? .nan
        let libraries = Set(maps.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/"), path.contains(".so") else { return nil }
            return PathText.lastComponent(of: String(path))
        }).sorted()
        let heavy = libraries.filter { $0.contains("xml2") || $0.contains("icu") || $0.contains("Foundation") }
        progress("navd maps \(libraries.count) shared libraries: \(libraries.joined(separator: ", "))")
        let linkage = runTool("/usr/bin/ldd", [navd]).contains("libswiftCore") ? "Swift runtime linked dynamically" : "Swift runtime linked statically"
        return [
            Figure("navd binary, stripped (\(linkage))", size, "MiB", target: "< 20 MiB", met: size < 20),
            Figure("libxml2, ICU or Foundation libraries mapped at run time", Double(heavy.count), "libraries", target: "0", met: heavy.isEmpty),
        ]
    }

    // MARK: Through gpsd, next to gpsd's own relay

    private func gpsdPhase(directory: String) -> [Figure] {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pty = PtyPair(directory: directory, name: "gps")
        let relay = GpsdRelay(pty: pty, directory: directory)
        defer {
            relay.close()
            pty.close()
        }
        let instance = NavdUnderTest(binary: navd, directory: "\(directory)/navd", gnss: "source = \"gpsd\"\ngpsd = \"127.0.0.1:\(relay.port)\"", valhalla: valhalla)
        defer { instance.stop() }
        let feeder = EpochFeeder([pty])
        let client = instance.connect()
        let walk = Self.startTrip(feeder: feeder, client: client)
        var distance = 0.0
        let first = Self.drive(feeder: feeder, walk: walk, distance: &distance, speed: 12, epochs: epochs)
        let own = Percentiles(feeder.latencies(of: relay.watcher.lines, since: first, filter: GpsdRelay.isTPV).milliseconds)
        let navdThroughGpsd = Percentiles(feeder.latencies(of: client.lines, since: first, filter: Self.isTripState).milliseconds)
        progress("gpsd: \(own.count) TPVs and \(navdThroughGpsd.count) trip_states matched to \(epochs) epochs")
        return [
            Figure("gpsd's own relay (pty to TPV at a watcher), p50", own.median, "ms"),
            Figure("gpsd's own relay, p99", own.p99, "ms"),
            Figure("fix to socket through gpsd, p50", navdThroughGpsd.median, "ms", peer: own.median, peerName: "gpsd relay"),
            Figure("fix to socket through gpsd, p99", navdThroughGpsd.p99, "ms", peer: own.p99, peerName: "gpsd relay"),
        ]
    }

    // MARK: Initial route and reroute: navd's share over the engine's own time

    /// The same drive twice: once with the flight recorder on, for the exact requests navd sent and when (the
    /// engine is then timed alone on them, after the same idle as navd's and back to back), and once as navd runs
    /// by default (recorder off), for navd's times. The drive is the same epochs, so the two runs send the same
    /// requests at the same moments of the drive.
    private func routingPhase(directory: String) -> [Figure] {
        let recorded = routeTimings(directory: "\(directory)/recorded", recording: true)
        let timed = routeTimings(directory: "\(directory)/timed", recording: false)
        let engine = EngineTimer.engineTimes(recordings: "\(directory)/recorded/recordings")
        // One request per calculation session (each answered at the first attempt), in session order; both runs
        // drive the same epochs, so they start the same sessions and take the same ones.
        guard let lastSession = recorded.sessions.last, engine.afterIdle.count == lastSession, recorded.sessions == timed.sessions else {
            fail("the recording holds \(engine.afterIdle.count) answered routing requests for sessions up to \(recorded.sessions.last ?? 0); rerouted by sessions \(recorded.sessions) (recorded) and \(timed.sessions) (timed)")
        }
        func initial(_ times: [Double]) -> [Double] { Array(times.prefix(timed.initial.count)) }
        func reroutes(_ times: [Double]) -> [Double] { timed.sessions.map { times[$0 - 1] } }
        func share(_ navd: [Double], _ engine: [Double]) -> Double { Percentiles(zip(navd, engine).map { $0 - $1 }).median }
        // navd's share is taken over the engine timed as navd met it (after the same idle); over the engine asked
        // back to back it includes the engine's own wake-up, and is shown too.
        let initialShare = share(timed.initial, initial(engine.afterIdle)), rerouteShare = share(timed.reroutes, reroutes(engine.afterIdle))
        func list(_ values: [Double]) -> String { values.map { String(format: "%.1f", $0) }.joined(separator: ", ") }
        progress("initial routes \(list(timed.initial)) ms; Valhalla alone after the same idle (\(list(initial(engine.idle))) s) \(list(initial(engine.afterIdle))) ms, back to back \(list(initial(engine.backToBack))) ms; the exchanges as navd timed them (recorder on) \(list(initial(engine.inNavd))) ms")
        progress("reroutes \(list(timed.reroutes)) ms (recorder on: \(list(recorded.reroutes)) ms); Valhalla alone after the same idle (\(list(reroutes(engine.idle))) s) \(list(reroutes(engine.afterIdle))) ms, back to back \(list(reroutes(engine.backToBack))) ms; as navd timed them \(list(reroutes(engine.inNavd))) ms")
        return [
            Figure(
                "navigate to first route event (median of \(timed.initial.count))", Percentiles(timed.initial).median, "ms",
                peer: Percentiles(initial(engine.afterIdle)).median, peerName: "Valhalla alone"),
            Figure("Valhalla alone on navd's initial requests, back to back", Percentiles(initial(engine.backToBack)).median, "ms"),
            Figure("navd's share of an initial route", initialShare, "ms", target: "< 1 ms", met: initialShare < 1),
            Figure("navd's share of an initial route, over Valhalla back to back", share(timed.initial, initial(engine.backToBack)), "ms"),
            Figure(
                "deciding fix to the reroute's route event (median of \(timed.reroutes.count))", Percentiles(timed.reroutes).median, "ms",
                peer: Percentiles(reroutes(engine.afterIdle)).median, peerName: "Valhalla alone"),
            Figure("Valhalla alone on navd's reroute requests, back to back", Percentiles(reroutes(engine.backToBack)).median, "ms"),
            Figure("navd's share of a reroute", rerouteShare, "ms", target: "< 1 ms", met: rerouteShare < 1),
            Figure("navd's share of a reroute, over Valhalla back to back", share(timed.reroutes, reroutes(engine.backToBack)), "ms"),
            Figure("navd's share of a reroute, flight recorder on", share(recorded.reroutes, reroutes(engine.afterIdle)), "ms"),
            // The recorded runs' routes over each exchange as navd's HTTP client timed it (the recording's `seconds`):
            // no engine timed apart, the recorder's own work counted in, and what happens inside navd between handing
            // the request over and collecting the answer counted as the exchange's (docs/performance.md).
            Figure("navd's share of an initial route, over the exchange as navd timed it (recorder on)", share(recorded.initial, initial(engine.inNavd)), "ms"),
            Figure("navd's share of a reroute, over the exchange as navd timed it (recorder on)", share(recorded.reroutes, reroutes(engine.inNavd)), "ms"),
        ]
    }

    /// Five navigates while standing, then five reroutes; milliseconds from the command (initial) or the deciding
    /// fix's write (reroute) to the `route` event's arrival at the client, and each reroute's calculation session.
    private func routeTimings(directory: String, recording: Bool) -> (initial: [Double], reroutes: [Double], sessions: [Int]) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let rig = SerialRig(
            navd: navd, valhalla: valhalla, directory: directory,
            extra: recording ? "[recording]\nenabled = true\ndirectory = \"\(directory)/recordings\"" : "")
        let (instance, feeder, client) = (rig.instance, rig.feeder, rig.client)
        defer { rig.close() }
        var initial: [Double] = []
        for _ in 0..<3 { feeder.send(Self.origin, course: 55, speed: 0) }
        for round in 0..<5 {
            let from = client.count
            let sent = monotonicSeconds()
            client.send(Self.navigate.replacingOccurrences(of: #""id":"bench""#, with: #""id":"n\#(round)""#))
            var answered: LineTap.Line?
            while answered == nil {
                feeder.send(Self.origin, course: 55, speed: 0)
                answered = client.wait(from: from, timeout: 0, Self.isRoute)?.line
                if monotonicSeconds() - sent > 20 { fail("no route within 20 s of navigate:\n\(instance.process.log)") }
            }
            initial.append((answered!.time - sent) * 1000)
        }
        // Reroutes: drive 48 m along the route, then leave it at 60° and keep going straight (a plausible drive:
        // a jump would be refused by the fix plausibility gate, not rerouted).
        guard let routeLine = client.lines.last(where: { Self.isRoute($0.text) }), var walk = RouteWalk.fromRouteEvent(routeLine.text) else {
            fail("the route event has no geometry")
        }
        var reroutes: [Double] = []
        var sessions: [Int] = []
        for _ in 0..<5 {
            let reroute = Self.reroute(feeder: feeder, client: client, walk: walk, instance: instance)
            reroutes.append(reroute.milliseconds)
            sessions.append(reroute.session)
            walk = reroute.next
        }
        return (initial, reroutes, sessions)
    }

    // MARK: Helpers

    /// Drives 48 m along `walk`, then leaves it at 60° and keeps going straight (a plausible drive: a jump would be
    /// refused by the fix plausibility gate, not rerouted) until the reroute's `route` event reaches `client`.
    /// Milliseconds from the deciding fix's write to that event, the calculation's session, and the new route.
    static func reroute(feeder: EpochFeeder, client: LineTap, walk: RouteWalk, instance: NavdUnderTest) -> (milliseconds: Double, session: Int, next: RouteWalk) {
        var distance = 0.0
        _ = drive(feeder: feeder, walk: walk, distance: &distance, speed: 12, epochs: 40)
        let (onRoute, course) = walk.position(at: distance)
        var offRoute = onRoute
        let from = client.count
        var rerouted: LineTap.Line?
        let started = monotonicSeconds()
        while rerouted == nil {
            feeder.send(offRoute, course: course + 60, speed: 12)
            offRoute = Geodesy.destination(from: offRoute, distance: 12 * feeder.interval, bearing: course + 60)
            rerouted = client.wait(from: from, timeout: 0.02, { isRoute($0) && $0.contains(#""reason":"reroute""#) })?.line
            if monotonicSeconds() - started > 30 { fail("no reroute within 30 s of leaving the route:\n\(instance.process.log)") }
        }
        // The deciding fix of the calculation whose route came: navd publishes the deviation and that
        // calculation starting, then the fix's trip_state. (Earlier calculations of the same departure may have
        // been answered with the route in use, which navd keeps: the engine snapped the car back onto it.)
        let lines = client.lines
        guard let session = (try? JSONParser.parse(Array(rerouted!.text.utf8)))?["session"]?.intValue,
            let start = client.wait(from: from, timeout: 0, { line in
                line.contains(#""purpose":"reroute""#) && line.contains(#""status":"in_progress""#)
                    && (try? JSONParser.parse(Array(line.utf8)))?["session"]?.intValue == session
            }),
            let state = lines[start.index...].first(where: { isTripState($0.text) }),
            let fixTime = EpochFeeder.fixTime(in: state.text), let written = feeder.sent[EpochFeeder.key(fixTime)]?.written
        else { fail("the reroute's deciding fix could not be found in what the client received") }
        guard let next = RouteWalk.fromRouteEvent(rerouted!.text) else { fail("the rerouted route has no geometry") }
        return ((rerouted!.time - written) * 1000, session, next)
    }

    static func serialGNSS(_ pty: PtyPair) -> String {
        "source = \"serial\"\nserial = \"\(pty.device)\"\nbaud = 115200"
    }

    static func isTripState(_ line: String) -> Bool { line.hasPrefix(#"{"type":"trip_state""#) }
    static func isRoute(_ line: String) -> Bool { line.hasPrefix(#"{"type":"route","#) }

    /// Stands at the origin feeding epochs, navigates, and returns the route once its event arrived.
    static func startTrip(feeder: EpochFeeder, client: LineTap) -> RouteWalk {
        for _ in 0..<5 { feeder.send(Self.origin, course: 55, speed: 0) }
        client.send(Self.navigate)
        let from = client.count
        for _ in 0..<200 {
            feeder.send(Self.origin, course: 55, speed: 0)
            if let found = client.wait(from: from, timeout: 0, Self.isRoute) {
                guard let walk = RouteWalk.fromRouteEvent(found.line.text) else { fail("the route event has no geometry") }
                // The route starts where the engine snapped the origin, metres away: walking from the origin
                // keeps the first fixes plausible (a jump would be refused, and its epoch would have no trip_state).
                return RouteWalk([Self.origin] + walk.points)
            }
        }
        fail("navd gave no route within 20 s of navigate; its log:\n\(client.lines.suffix(5).map(\.text).joined(separator: "\n"))")
    }

    /// Drives `epochs` epochs along `walk` at `speed` m/s from `distance`; returns the first epoch's fix time.
    static func drive(feeder: EpochFeeder, walk: RouteWalk, distance: inout Double, speed: Double, epochs: Int, hertz: Double = 10) -> Date {
        var first: Date?
        for _ in 0..<epochs {
            let (position, course) = walk.position(at: distance)
            let sent = feeder.send(position, course: course, speed: speed)
            first = first ?? sent.time
            distance += speed / hertz
        }
        // The last epoch's events have time to arrive.
        usleep(200_000)
        return first!
    }
}

/// navd reading a serial receiver (a socat pty the benchmark feeds), with one client connected.
struct SerialRig {
    let pty: PtyPair
    let instance: NavdUnderTest
    let feeder: EpochFeeder
    let client: LineTap
    let directory: String

    /// `alsoFed`: ptys fed the same epochs at the same moments as navd's (another reader's).
    init(navd: String, valhalla: String, directory: String, extra: String = "", maxClients: Int = 100, alsoFed: [PtyPair] = []) {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        pty = PtyPair(directory: directory, name: "gps")
        instance = NavdUnderTest(
            binary: navd, directory: "\(directory)/navd", gnss: FieldBenchmark.serialGNSS(pty), valhalla: valhalla, extra: extra,
            maxClients: maxClients)
        feeder = EpochFeeder([pty] + alsoFed)
        client = instance.connect()
    }

    /// Stops navd and socat; keeps what the client received in client.jsonl (each line after its arrival time,
    /// ms) and when each epoch was written in epochs.txt (its fix time's key and the write's time, ms).
    func close() {
        instance.stop()
        pty.close()
        client.save(to: "\(directory)/client.jsonl")
        feeder.save(to: "\(directory)/epochs.txt")
    }
}
