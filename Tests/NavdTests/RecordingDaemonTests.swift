import Foundation
import NavigationCore
import NMEA
import NavigationProtocol
import Testing
import TestSupport

/// The flight recorder in the real navd: a drive over a serial pty through the real Valhalla is recorded and
/// replayed byte for byte by the real navctl; `navctl record` on a running navd; secrets stay out.
@Suite(.serialized)
struct RecordingDaemonTests {
    static func navctl(_ arguments: [String], socket: String? = nil) throws -> ToolRun.Output {
        let navctl = URL(fileURLWithPath: try NavdInstance.binary()).deletingLastPathComponent().appendingPathComponent("navctl")
        return try ToolRun.run(navctl, arguments, environment: socket.map { ["NAVD_SOCKET": $0] } ?? [:])
    }

    static func recordingFiles(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".jsonl") }.sorted()
            .map { "\(directory)/\($0)" }
    }

    @Test func aSerialDriveWithARerouteIsRecordedAndReplaysByteForByte() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 15)
        let pty = try PtyPair()
        let secret = "navd-secret-\(UUID().uuidString.prefix(8))"
        let directory = "/tmp/navd-rec-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let navd = try NavdInstance.serial(
            device: pty.devicePath, valhalla: try Engines.valhallaURL() + "/?api_key=\(secret)",
            extra: """
                [recording]
                enabled = true
                directory = "\(directory)"
                """)
        let process = try navd.start()
        let client = try navd.connect()
        var written: [String] = []
        func send(_ index: Int) {
            let sentences = drive.nmea(index)
            written += sentences.split(separator: "\r\n").map(String.init)
            pty.write(sentences)
        }
        for index in 0..<2 {
            send(index)
            usleep(100_000)
        }
        #expect(client.waitFor(timeout: 10) { $0.type == "trip_state" } != nil, "no fix reached navd:\n\(navd.log.suffix(2000))")
        #expect(client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")?.type == "reply")
        for index in 2..<drive.fixes.count {
            send(index)
            client.drain(for: 0.2)
        }
        let arrived = client.received.contains { $0.type == "arrived" } || client.waitFor(timeout: 15) { $0.type == "arrived" } != nil
        #expect(arrived, "no arrival; navd log:\n\(navd.log.suffix(3000))")
        client.drain(for: 0.5)
        process.stop(signal: SIGTERM)
        #expect(process.waitForExit(timeout: 10) == 0)

        let files = Self.recordingFiles(directory)
        try #require(files.count == 1, "recordings: \(files)\n\(navd.log.suffix(2000))")
        let text = try String(contentsOfFile: files[0], encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(#"{"rec":"header""#) == true)
        #expect(lines.last?.hasPrefix(#"{"rec":"end""#) == true && lines.last?.contains("navd stopped") == true)

        // The real navctl replays the daemon's logic over it: navd's lines, byte for byte.
        let replay = try Self.navctl(["replay", "--diff", files[0]])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        print("recording of a \(drive.fixes.count)-epoch serial drive: \(text.utf8.count) bytes; \(replay.stdout)", terminator: "")

        // Everything navd sent, field by field against the published schema.
        let (invalid, summary) = try ProtocolSchema.invalid(lines.filter { $0.hasPrefix(#"{"type":"#) })
        #expect(invalid.isEmpty, "\(summary)\n\(invalid.joined(separator: "\n"))")
        print("schema: \(summary)")
        // The typed vocabulary is the wire's: every line decodes, and every event encodes back to the same bytes.
        for line in lines where line.hasPrefix(#"{"type":"#) {
            do {
                let decoded = try ServerLine(line: Array(line.utf8))
                if case .event(let event) = decoded {
                    #expect(String(decoding: event.line.dropLast(), as: UTF8.self) == line, "re-encoded differently: \(line.prefix(200))")
                }
            } catch {
                Issue.record("\(error): \(line.prefix(300))")
            }
        }
        // Every line the client received is in the recording, verbatim and in the same order.
        var position = lines.startIndex
        for received in client.receivedLines {
            guard let found = lines[position...].firstIndex(of: received) else {
                Issue.record("a line the client received is not in the recording: \(received.prefix(200))")
                break
            }
            position = found + 1
        }
        // The receiver's sentences as they arrived, each a `serial` record.
        let serial = Set(lines.filter { $0.hasPrefix(#"{"rec":"serial""#) }.compactMap { try? JSONParser.parse(Array($0.utf8))["line"]?.stringValue })
        #expect(written.allSatisfy(serial.contains), "\(written.filter { !serial.contains($0) }.prefix(3)) missing of \(written.count)")
        // Both routing requests with their answers, and the key nowhere.
        let exchanges = lines.filter { $0.hasPrefix(#"{"rec":"http""#) }
        #expect(exchanges.count >= 2, "initial route and reroute: \(exchanges.count) exchanges recorded")
        // Each answered with a 200, except a free drive's map match still on its way when `navigate` came, which
        // the trip cancels (it depends on timing; it is recorded as cancelled).
        let unlike = exchanges.filter {
            let cancelledMatch = $0.contains("/trace_route?") && $0.contains(#""code":"cancelled""#)
            return !($0.contains("api_key=***") && ($0.contains(#""status":200"#) || cancelledMatch))
        }
        #expect(unlike.isEmpty, "exchanges without the scrubbed key or a 200: \(unlike.map { $0.prefix(400) })")
        #expect(exchanges.filter { $0.contains(#""status":200"#) && $0.contains("/route?") }.count >= 2, "initial route and reroute answered")
        #expect(!text.contains(secret), "the engine's key reached the recording")
    }

    @Test func recordStartAndStopOnARunningNavdAndAClearErrorWhenItCannot() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 15)
        let pty = try PtyPair()
        let directory = "/tmp/navd-rec-\(UUID().uuidString.prefix(8))"
        let blocker = "/tmp/navd-rec-file-\(UUID().uuidString.prefix(8))"
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: blocker)
        }
        let navd = try NavdInstance.serial(
            device: pty.devicePath, valhalla: try Engines.valhallaURL(),
            extra: """
                [recording]
                directory = "\(directory)"
                """)
        try navd.start()
        let client = try navd.connect()
        for index in 0..<3 {
            pty.write(drive.nmea(index))
            client.drain(for: 0.2)
        }
        #expect(Self.recordingFiles(directory).isEmpty, "recording.enabled is false: nothing is recorded until asked")
        let status = try Self.navctl(["record", "status"], socket: navd.socketPath)
        #expect(status.status == 0 && status.stdout == "not recording\n", "\(status.stdout)\(status.stderr)")
        let start = try Self.navctl(["record", "start"], socket: navd.socketPath)
        #expect(start.status == 0 && start.stdout.hasPrefix("recording to \(directory)/drive-"), "\(start.stdout)\(start.stderr)")
        #expect(client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")?.type == "reply")
        for index in 3..<20 {
            pty.write(drive.nmea(index))
            client.drain(for: 0.2)
        }
        let stop = try Self.navctl(["record", "stop", "--json"], socket: navd.socketPath)
        #expect(stop.status == 0, "\(stop.stderr)")
        let reply = try JSONParser.parse(Array(stop.stdout.utf8))
        let files = (reply["files"]?.arrayValue ?? []).compactMap { $0.stringValue }
        #expect(!files.isEmpty, "\(stop.stdout)")
        #expect(files == Self.recordingFiles(directory))
        let replay = try Self.navctl(["replay", "--diff"] + files)
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        let text = try String(contentsOfFile: try #require(files.first), encoding: .utf8)
        #expect(text.contains(#""type":"route""#), "the route navd published while recording is in the recording")
        #expect(!text.contains(#""action":"#), "the record commands themselves are not part of the recording")

        // A directory that cannot be made: a one-line error, and navd keeps going.
        let config = try String(contentsOfFile: navd.configPath, encoding: .utf8)
            .replacingOccurrences(of: "directory = \"\(directory)\"", with: "directory = \"\(blocker)/recordings\"")
        try Data(config.utf8).write(to: URL(fileURLWithPath: navd.configPath))
        kill(try #require(navd.process?.pid), SIGHUP)
        _ = client.waitFor(timeout: 3) { _ in false }
        let refused = try Self.navctl(["record", "start"], socket: navd.socketPath)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("recording_failed") && refused.stderr.contains("\(blocker)/recordings"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(client.command(#"{"type":"status","id":"s"}"#, id: "s")?.type == "reply", "navd stopped answering")
    }

    /// `record start` and `stop` on storage that takes 2 s to make a directory and 2 s to create a file (a real
    /// FUSE file system, Fixtures/slowfs.py): fixes go on being navigated and published meanwhile (the disk work
    /// was on the navigation loop and held up every fix and the watchdog ping for 4 s), the answer comes when the
    /// file is open, and the recording still holds every input from the command on: it replays byte for byte.
    @Test func recordingOnSlowStorageHoldsUpNoFix() throws {
        let tag = UUID().uuidString.prefix(8)
        let (backing, mount) = ("/tmp/navd-slowfs-backing-\(tag)", "/tmp/navd-slowfs-\(tag)")
        for directory in [backing, mount] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/slowfs.py").path
        let slowfs = try ExternalProcess("/usr/bin/python3", [script, backing, mount, "2"])
        defer {
            _ = try? ToolRun.run(URL(fileURLWithPath: "/usr/bin/fusermount"), ["-u", mount])
            slowfs.stop()
            try? FileManager.default.removeItem(atPath: backing)
            try? FileManager.default.removeItem(atPath: mount)
        }
        var mounted = false
        for _ in 0..<100 where !mounted {
            usleep(50_000)
            mounted = ((try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? "").contains(" \(mount) fuse")
        }
        try #require(mounted, "slowfs did not mount \(mount) (it needs Debian's fuse and python3-fusepy: scripts/setup)")

        let pty = try PtyPair()
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: "http://127.0.0.1:9", extra: "[recording]\ndirectory = \"\(mount)/recordings\"")
        try navd.start()
        defer { navd.process?.stop() }
        let client = try navd.connect()
        var fixNumber = 0
        func writeFix() {
            let fix = UserLocation(
                coordinate: Geodesy.destination(from: GeographicCoordinate(latitude: 60.1656, longitude: 24.9406), distance: Double(fixNumber) * 5, bearing: 0),
                horizontalAccuracy: 4, course: CourseOverGround(degrees: 0), speed: Speed(metersPerSecond: 5),
                timestamp: Date(timeIntervalSince1970: 1_795_241_290 + Double(fixNumber)))
            pty.write(NMEAWriter.sentences(for: fix).map { $0 + "\r\n" }.joined())
            fixNumber += 1
        }
        for _ in 0..<3 {
            writeFix()
            client.drain(for: 0.2)
        }

        /// Sends `action` and writes a fix every 0.2 s until its answer: the answer, the seconds it took and the
        /// trip states published before it.
        func record(_ action: String) -> (answer: JSONValue?, seconds: Double, statesBefore: Int) {
            let sent = Date()
            client.send(#"{"type":"record","id":"\#(action)","action":"\#(action)"}"#)
            var states = 0
            for _ in 0..<60 {
                writeFix()
                let deadline = Date().addingTimeInterval(0.2)
                while let message = client.next(timeout: max(0, deadline.timeIntervalSinceNow)) {
                    if message.type == "trip_state" { states += 1 }
                    if message["id"]?.stringValue == action { return (message, Date().timeIntervalSince(sent), states) }
                }
            }
            return (nil, Date().timeIntervalSince(sent), states)
        }
        let start = record("start")
        #expect(start.answer?.type == "reply", "\(start.answer ?? .null)")
        let path = try #require(start.answer?["result"]?["path"]?.stringValue)
        #expect(path.hasPrefix("\(mount)/recordings/drive-"))
        #expect(start.seconds >= 3.5, "the storage was not slow: the answer took \(start.seconds) s")
        #expect(start.statesBefore >= 14, "\(start.statesBefore) trip states in the \(start.seconds) s the recording took to open: fixes waited for the disk")
        for _ in 0..<5 {
            writeFix()
            client.drain(for: 0.2)
        }
        let stop = record("stop")
        let files = (stop.answer?["result"]?["files"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(files == [path], "\(stop.answer ?? .null)")
        let replay = try Self.navctl(["replay", "--diff"] + files)
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let recordedStates = text.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"trip_state""#) }.count
        // The states published while the file was being opened, and the 5 after: less one at each end, as the fix
        // written right after a command may reach the loop before the command does (another socket, another thread).
        #expect(recordedStates >= start.statesBefore + 3, "\(recordedStates) trip states recorded: the states published while the file was being opened are in the recording")
    }

    @Test func navctlSaysClearlyWhenNavdIsNotRunning() throws {
        let missing = "/tmp/navd-none-\(UUID().uuidString.prefix(8)).sock"
        let output = try Self.navctl(["record", "status"], socket: missing)
        #expect(output.status == 1)
        #expect(output.stderr == "navctl: error: navd is not running at \(missing) (start it, or give --socket or NAVD_SOCKET)\n")
    }
}

/// The recorder with gpsd as the source: gpsd's reports are recorded as received, and the drive replays.
@Suite(.serialized)
struct GpsdRecordingTests {
    @Test func gpsdReportsAreRecordedAsReceivedAndTheDriveReplays() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 20)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("navd-rec-\(UUID().uuidString).nmea")
        // The first 60 epochs (12 s at gpsfake's pace): enough for a route and a dozen states on it.
        try Data(drive.fixes.indices.prefix(60).map(drive.nmea).joined().utf8).write(to: log)
        defer { try? FileManager.default.removeItem(at: log) }
        let directory = "/tmp/navd-rec-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = freePort()
        let gpsfake = try GpsFake.start(log, port: port, cycle: "0.1")
        defer { gpsfake.stop() }
        let navd = try NavdInstance.gpsd(
            port: port, valhalla: try Engines.valhallaURL(),
            extra: """
                [recording]
                enabled = true
                directory = "\(directory)"
                """)
        let process = try navd.start()
        let client = try navd.connect()
        #expect(client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")?.type == "reply")
        #expect(client.waitFor(timeout: 30) { $0.type == "route" } != nil, "no route:\n\(navd.log.suffix(2000))")
        // Twelve navigating states: a count of epochs, wherever in the log navd joined it.
        var navigating = 0
        _ = client.waitFor(timeout: 20) { message in
            if message.type == "trip_state", message["state"]?.stringValue == "navigating" { navigating += 1 }
            return navigating >= 12
        }
        #expect(navigating >= 12, "\(navigating) navigating states:\n\(navd.log.suffix(2000))")
        process.stop(signal: SIGTERM)
        #expect(process.waitForExit(timeout: 10) == 0)
        let file = try #require(RecordingDaemonTests.recordingFiles(directory).first)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let reports = lines.filter { $0.hasPrefix(#"{"rec":"gpsd""#) }.compactMap { try? JSONParser.parse(Array($0.utf8))["json"]?.stringValue }
        let tpv = reports.filter { $0.contains(#""class":"TPV""#) }
        #expect(tpv.count >= 12, "gpsd's TPV reports are recorded as received: \(reports.prefix(3))")
        #expect(tpv.allSatisfy { (try? JSONParser.parse(Array($0.utf8)))?["lat"]?.doubleValue != nil || !$0.contains("\"mode\":3") })
        let fixes = lines.filter { $0.hasPrefix(#"{"rec":"fix""#) }.count
        // Each epoch gpsd reported a position for became one fix (gpsd may report an epoch twice while it learns
        // the receiver's cycle; navd takes an epoch once).
        let epochs = Set(tpv.compactMap { report -> String? in
            guard let parsed = try? JSONParser.parse(Array(report.utf8)), parsed["lat"]?.doubleValue != nil else { return nil }
            return parsed["time"]?.stringValue
        })
        #expect(fixes == epochs.count, "\(fixes) fixes recorded for \(epochs.count) epochs with a position in \(tpv.count) TPV reports")
        print("gpsd recording: \(reports.count) gpsd reports (\(tpv.count) TPV), \(fixes) fixes")
        let replay = try RecordingDaemonTests.navctl(["replay", "--diff", file])
        #expect(replay.status == 0 && replay.stdout.hasPrefix("identical: "), "\(replay.stdout)\(replay.stderr)")
    }
}
