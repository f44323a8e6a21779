import Foundation
import NavigationCore
import NMEA
import RoadAhead
import Testing
import TestSupport

/// Speed alerts through the real navd: Koulutie on the test network (60 km/h, a 500 m school zone at 40 km/h,
/// 60 km/h again), routed by the real Valhalla, driven through navd's serial source on a pty at a steady speed,
/// with the flight recorder on. What the client sees, against where the car truly was, and the recording replayed
/// byte for byte. The expected levels come from the default rules (`SpeedAlertRules`), zone by zone.
@Suite(.serialized)
struct SpeedZoneDriveTests {
    struct Drive: Sendable, CustomTestStringConvertible {
        /// km/h.
        var speed: Double
        /// Fixes per second.
        var rate: Double
        var testDescription: String { "\(Int(speed)) km/h, \(Int(rate)) Hz" }
        var metersPerSecond: Double { speed / 3.6 }
    }

    @Test(arguments: [Drive(speed: 75, rate: 1), Drive(speed: 75, rate: 10), Drive(speed: 55, rate: 1)])
    func throughTheSchoolZone(_ drive: Drive) async throws {
        let network = try TestNetwork.load()
        let start = try network.place("koulutieWest"), end = try network.place("koulutieEast")
        let route = try await network.route(.valhalla, from: start, heading: 90, to: end)
        let samples = FieldTrack(speed: drive.metersPerSecond, rate: drive.rate, error: .openSky, seed: 3).samples(along: route.geometry)
        let directory = "/tmp/navd-speed-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try NetworkDriveRun.drive(
            network, engine: .valhalla, samples: samples, to: end, epochsPerSecond: drive.rate >= 10 ? 100 : 20, recordingDirectory: directory)
        let context = "\(drive.testDescription)\n\(run.eventSummary)\n\(run.log.suffix(1500))"
        #expect(run.arrived, "never arrived: \(context)")

        // Where the car truly was (metres along its path) for each message.
        func position(_ index: Int) -> Double? { run.sampleAt[index].map { run.samples[$0].distance } }
        let alerts = try Self.checkZones(
            messages: run.messages, position: position, speed: drive.speed, rate: drive.rate, network: network, context: context)

        // The flight recording replays byte for byte through the real navctl.
        let files = RecordingDaemonTests.recordingFiles(directory)
        try #require(files.count == 1, "recordings: \(files)")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        print("speed zones: \(drive.testDescription): events \(alerts); \(replay.stdout.split(separator: "\n").first ?? "")")
    }

    /// The same zones driven by navd's own simulator (`gnss.source = "simulate"`, 75 km/h, 2 fixes a second, ten
    /// times real time): no receiver, the same alerts, and its recording replays byte for byte.
    @Test func navdsSimulatorThroughTheSchoolZone() throws {
        let network = try TestNetwork.load()
        let start = try network.place("koulutieWest"), end = try network.place("koulutieEast")
        let speed = 75.0, rate = 2.0
        let directory = "/tmp/navd-speed-sim-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let navd = try network.simulatedNavd(from: start, speed: speed / 3.6, rate: rate, timeScale: 10, engine: .valhalla, recordings: directory)
        let client = try Self.navigateToTheEastEnd(navd, end: end)

        // The simulator drives the route without noise: the raw position is where the car truly was.
        let messages = client.received
        var latest: Double?
        let positions = messages.map { message -> Double? in
            if message.type == "trip_state", let lat = message["rawLocation"]?["lat"]?.doubleValue, let lon = message["rawLocation"]?["lon"]?.doubleValue {
                latest = Geodesy.distance(start, GeographicCoordinate(latitude: lat, longitude: lon))
            }
            return latest
        }
        let context = "simulator, 75 km/h\n\(navd.log.suffix(1500))"
        let alerts = try Self.checkZones(messages: messages, position: { positions[$0] }, speed: speed, rate: rate, network: network, context: context)
        #expect(alerts.contains { $0.hasPrefix("major") }, "\(alerts)")

        let files = RecordingDaemonTests.recordingFiles(directory)
        try #require(files.count == 1, "recordings: \(files)")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        print("speed zones: navd's simulator: events \(alerts); \(replay.stdout.split(separator: "\n").first ?? "")")
    }

    /// The same zones from a recorded NMEA log (`gnss.source = "replay"`, four times real time): 20 s standing at
    /// the west end (navigate goes in meanwhile), then 75 km/h at 1 Hz with open-sky error, to the east end.
    @Test func aRecordedNMEALogThroughTheSchoolZone() async throws {
        let network = try TestNetwork.load()
        let start = try network.place("koulutieWest"), end = try network.place("koulutieEast")
        let speed = 75.0
        let route = try await network.route(.valhalla, from: start, heading: 90, to: end)
        let samples = FieldTrack(speed: speed / 3.6, rate: 1, error: .openSky, seed: 5).samples(along: route.geometry)
        var fixes = (0..<20).map { i in
            var standing = samples[0].fix
            standing.timestamp = samples[0].fix.timestamp.addingTimeInterval(Double(i - 20))
            standing.speed = Speed(metersPerSecond: 0)
            standing.course = nil
            return standing
        }
        fixes += samples.map(\.fix)
        let directory = "/tmp/navd-speed-log-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = "\(directory)/koulutie.nmea"
        try Data(fixes.flatMap(NMEAWriter.sentences(for:)).map { $0 + "\r\n" }.joined().utf8).write(to: URL(fileURLWithPath: log))
        let navd = try NavdInstance(sections: """
            [gnss]
            source = "replay"
            replay = "\(log)"
            replay_speed = 4
            \(Self.routingAndRecording(network, recordings: "\(directory)/recordings"))
            """)
        let client = try Self.navigateToTheEastEnd(navd, end: end)

        // Where the car truly was: each trip_state's fix time names its sample (standing fixes are at 0 m).
        var distanceByTime: [Int: Double] = [:]
        for sample in samples { distanceByTime[Int(sample.fix.timestamp.timeIntervalSince1970.rounded())] = sample.distance }
        let messages = client.received
        var latest: Double?
        let positions = messages.map { message -> Double? in
            if message.type == "trip_state", let text = message["time"]?.stringValue, let time = ISO8601Timestamp.parse(text) {
                latest = distanceByTime[Int(time.timeIntervalSince1970.rounded())] ?? 0
            }
            return latest
        }
        let context = "recorded NMEA, 75 km/h\n\(navd.log.suffix(1500))"
        let alerts = try Self.checkZones(messages: messages, position: { positions[$0] }, speed: speed, rate: 1, network: network, context: context)
        #expect(alerts.contains { $0.hasPrefix("major") }, "\(alerts)")

        let files = RecordingDaemonTests.recordingFiles("\(directory)/recordings")
        try #require(files.count == 1, "recordings: \(files)")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        print("speed zones: recorded NMEA: events \(alerts); \(replay.stdout.split(separator: "\n").first ?? "")")
    }

    /// The config sections of a drive from a recorded log: the test network's Valhalla and the flight recorder.
    static func routingAndRecording(_ network: TestNetwork, recordings: String) -> String {
        """
        [routing]
        engine = "valhalla"
        url = "\(network.url(.valhalla))"
        [recording]
        enabled = true
        directory = "\(recordings)"
        """
    }

    /// Starts `navd` (its own source drives), navigates to `end` once a fix came, waits for the arrival, and stops
    /// navd so that its recording is complete. The client, with everything it received.
    static func navigateToTheEastEnd(_ navd: NavdInstance, end: GeographicCoordinate) throws -> SocketClient {
        let process = try navd.start()
        let client = try navd.connect()
        #expect(client.waitFor(timeout: 10) { $0.type == "trip_state" } != nil, "no fix from the source:\n\(navd.log.suffix(2000))")
        let command = #"{"type":"navigate","id":"go","waypoints":[{"lat":\#(end.latitude),"lon":\#(end.longitude)}]}"#
        #expect(client.command(command, id: "go")?.type == "reply")
        #expect(client.waitFor(timeout: 60) { $0.type == "arrived" } != nil, "never arrived:\n\(navd.log.suffix(2000))")
        _ = client.receivedOrWaitFor(timeout: 5) { $0.type == "trip_state" && $0["state"]?.stringValue == "complete" }
        process.stop(signal: SIGTERM)
        #expect(process.waitForExit(timeout: 10) == 0, "navd did not stop cleanly:\n\(navd.log.suffix(2000))")
        return client
    }

    /// What a drive along Koulutie from its west end must show at the client, zone by zone, whatever drove it (a
    /// receiver on a pty, navd's simulator): the level each navigating state carries away from the zone's edges, the
    /// limit it names, the slow-down warning before the zone when the speed is over the lower limit, and the last
    /// event clearing the alert. `position(i)`: metres along the road from its west end where the car truly was at
    /// message `i`. `speed` km/h, `rate` fixes a second. Returns the events as text (level, warning, where).
    static func checkZones(
        messages: [JSONValue], position: (Int) -> Double?, speed: Double, rate: Double, network: TestNetwork, context: String
    ) throws -> [String] {
        let zone = network.schoolZone
        let rules = SpeedAlertRules()
        let metersPerSecond = speed / 3.6
        let start = try network.place("koulutieWest"), end = try network.place("koulutieEast")
        let zoneStart = Geodesy.distance(start, zone.start), zoneEnd = Geodesy.distance(start, zone.end)
        // navd publishes a fix's events before its trip_state: an event is where the next trip_state says.
        func eventPosition(_ index: Int) -> Double? {
            (messages[index...].firstIndex { $0.type == "trip_state" }).flatMap(position)
        }
        // Levels expected zone by zone; a level needs the hold (and a fix or two) to be raised after a limit begins.
        let settle = rules.hold * metersPerSecond + 2 * metersPerSecond / rate + 10
        let before = rules.level(speed: speed, limit: zone.around)
        let inside = rules.level(speed: speed, limit: zone.limit)
        let after = rules.level(speed: speed, limit: zone.around)
        func levels(from: Double, to: Double) -> Set<String> {
            Set(messages.indices.compactMap { i -> String? in
                guard messages[i].type == "trip_state", messages[i]["state"]?.stringValue == "navigating", let at = position(i), at >= from, at <= to
                else { return nil }
                return messages[i]["speedAlert"]?["level"]?.stringValue ?? "absent"
            })
        }
        #expect(levels(from: settle, to: zoneStart - 20) == [before.rawValue], "before the school zone: \(context)")
        #expect(levels(from: zoneStart + settle, to: zoneEnd - 20) == [inside.rawValue], "in the school zone: \(context)")
        #expect(levels(from: zoneEnd + settle, to: Geodesy.distance(start, end) - 60) == [after.rawValue], "after the school zone: \(context)")
        // The limit each state carries is the zone's (away from the edges, where the snapped position decides).
        for i in messages.indices where messages[i].type == "trip_state" && messages[i]["state"]?.stringValue == "navigating" {
            guard let at = position(i), let limit = messages[i]["speedAlert"]?["limit"]?.doubleValue else { continue }
            if at > zoneStart + 20, at < zoneEnd - 20 { #expect(limit == zone.limit, "at \(Int(at)) m: limit \(limit)") }
            if at < zoneStart - 20 || at > zoneEnd + 20 { #expect(limit == zone.around, "at \(Int(at)) m: limit \(limit)") }
        }

        // The slow-down warning: before the zone, when the speed is over the lower limit's minor threshold, from
        // about the warning distance (speed-scaled, at least 100 m) ahead of it.
        let alerts = messages.indices.filter { messages[$0].type == "speed_alert" }
        let warnings = alerts.filter { messages[$0]["lowerLimitAhead"]?["limit"]?.doubleValue == zone.limit }
        if speed > rules.threshold(.minor, limit: zone.limit) {
            let first = try #require(warnings.first, "no slow-down warning: \(context)")
            let at = try #require(eventPosition(first))
            let warning = rules.warningDistance(speed: metersPerSecond)
            #expect(at < zoneStart, "the warning came \(Int(at - zoneStart)) m inside the zone")
            #expect(zoneStart - at <= warning + 3 * 3, "warned \(Int(zoneStart - at)) m before the zone (warning distance \(Int(warning)) m)")
            #expect(zoneStart - at >= warning - metersPerSecond / rate - 3 * 3, "warned only \(Int(zoneStart - at)) m before the zone")
            let said = try #require(messages[first]["lowerLimitAhead"]?["distance"]?.doubleValue)
            #expect(abs(said - (zoneStart - at)) <= 3 * 3 + 1, "said \(said) m, truly \(Int(zoneStart - at)) m")
        } else {
            #expect(warnings.isEmpty, "a warning at a speed within the lower limit's tolerance: \(context)")
        }
        // Events only on changes, each with the level it changed to; the last clears it (the trip ended).
        let eventLevels = alerts.map { messages[$0]["level"]?.stringValue ?? "?" }
        #expect(eventLevels.last == "none", "\(eventLevels)")
        #expect(!alerts.contains { eventPosition($0).map { $0 < zoneStart } ?? true && messages[$0]["level"]?.stringValue == "major" && before != .major })
        return alerts.map { i in
            "\(messages[i]["level"]?.stringValue ?? "?")\(messages[i]["lowerLimitAhead"] == nil ? "" : "+slow down")@\(Int(eventPosition(i) ?? -1))m"
        }
    }
}
