import Foundation
import NavigationCore
import Testing
import TestSupport

/// Signals, restarts and systemd notification, with the real navd process.
@Suite(.serialized)
struct LifecycleTests {
    static func simulatedConfig(valhalla: String, timeScale: Double = 5) -> String {
        """
        [gnss]
        source = "simulate"
        [gnss.simulate]
        start = { lat = \(DeviatingDrive.origin.latitude), lon = \(DeviatingDrive.origin.longitude) }
        speed = 15
        rate = 2
        time_scale = \(timeScale)
        [routing]
        engine = "valhalla"
        url = "\(valhalla)"
        """
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aStopSignalSaysGoodbyeExitsZeroAndRemovesTheSocket(_ signal: Int32) throws {
        let navd = try NavdInstance(sections: Self.simulatedConfig(valhalla: try Engines.valhallaURL()))
        let process = try navd.start()
        // The socket has the configured mode (0600 in these tests).
        let attributes = try FileManager.default.attributesOfItem(atPath: navd.socketPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        let status = process.signalAndWait(signal, timeout: 15)
        #expect(status != nil, "navd did not exit within 15 s of signal \(signal):\n\(navd.log.suffix(2000))")
        if let status {
            #expect(status & 0x7f == 0 && (status >> 8) & 0xff == 0, "exit status \(status):\n\(navd.log.suffix(2000))")
        }
        let bye = client.waitFor(timeout: 5) { $0.type == "bye" }
        #expect(bye != nil, "no bye line before the connection closed")
        #expect(client.next(timeout: 2) == nil && client.closedByServer)
        #expect(!FileManager.default.fileExists(atPath: navd.socketPath), "socket file left behind")
        // Every log line carries a syslog priority prefix for journald.
        let lines = navd.log.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.range(of: #"^<[0-7]>"#, options: .regularExpression) != nil }, "\(lines.prefix(5))")
    }

    @Test func aCorruptJournalIsMovedAsideAndNavdStartsWithoutATrip() throws {
        let navd = try NavdInstance(sections: Self.simulatedConfig(valhalla: try Engines.valhallaURL()))
        try Data("{\"version\":1,\"routeId\":".utf8).write(to: URL(fileURLWithPath: navd.journalPath))
        try navd.start()
        let client = try navd.connect()
        let hello = client.next(timeout: 5)
        #expect(hello?["state"]?["phase"]?.stringValue == "idle")
        #expect(navd.log.contains("moved aside"), "\(navd.log)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: navd.directory.path).filter { $0.hasPrefix("trip.json.corrupt-") }
        #expect(aside.count == 1)
    }

    /// A second navd started on a socket a running navd serves refuses, and leaves the socket and journal alone.
    @Test func aSecondNavdOnTheSameSocketRefusesAndTakesNothingOver() throws {
        let navd = try NavdInstance(sections: Self.simulatedConfig(valhalla: try Engines.valhallaURL()))
        try navd.start()
        let journal = Data(#"{"version":1,"routeId":"#.utf8)
        try journal.write(to: URL(fileURLWithPath: navd.journalPath))
        let second = try ExternalProcess(try NavdInstance.binary(), ["--config", navd.configPath])
        let status = second.waitForExit(timeout: 10)
        #expect(status != nil && status != 0, "the second navd did not refuse: \(second.output)")
        #expect(second.output.contains("another process already serves \(navd.socketPath)"), "\(second.output)")
        // The first navd still serves its socket, and the journal the second would have moved aside is untouched.
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        #expect(FileManager.default.contents(atPath: navd.journalPath) == journal)
        // A stale socket file (nothing serves it) is no reason to refuse: navd replaces it.
        navd.process?.stop(signal: SIGKILL)
        #expect(FileManager.default.fileExists(atPath: navd.socketPath), "a killed navd leaves its socket file")
        try FileManager.default.removeItem(atPath: navd.journalPath)
        try navd.start()
        #expect(try navd.connect().next(timeout: 5)?.type == "hello")
    }

    @Test func checkConfigNamesTheFileAndKeyAndExitsOne() throws {
        let file = "/tmp/navd-bad-\(UUID().uuidString.prefix(8)).toml"
        try "[routing]\nengine = \"bing\"\n[socket]\nmode = \"rw\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let check = try ExternalProcess(try NavdInstance.binary(), ["check-config", file])
        let status = check.waitForExit(timeout: 30)
        #expect(status.map { ($0 >> 8) & 0xff } == 1)
        #expect(check.output.contains("\(file): routing.engine: must be one of"), "\(check.output)")
        #expect(check.output.contains("\(file): socket.mode:"), "\(check.output)")
        // Running with that file refuses to start, saying why.
        let run = try ExternalProcess(try NavdInstance.binary(), ["--config", file])
        #expect(run.waitForExit(timeout: 30).map { ($0 >> 8) & 0xff } == 1)
        #expect(run.output.contains("routing.engine"), "\(run.output)")
    }

    /// A file every user can read that holds a key: check-config says so (and how to fix it); the same file
    /// closed to others, or without a key, gets no warning.
    @Test(arguments: [(0o644, true, true), (0o640, true, false), (0o644, false, false)])
    func checkConfigWarnsAboutAWorldReadableKey(mode: Int, withKey: Bool, warns: Bool) throws {
        let file = "/tmp/navd-key-\(UUID().uuidString.prefix(8)).toml"
        let key = withKey ? "api_key = \"S3CRET\", " : ""
        try "[routing]\nengine = \"valhalla\"\nurl = \"http://127.0.0.1:8002\"\noptions = { \(key)costing = \"auto\" }\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        chmod(file, mode_t(mode))
        let check = try ExternalProcess(try NavdInstance.binary(), ["check-config", file])
        #expect(check.waitForExit(timeout: 30) == 0, "\(check.output)")
        #expect(check.output.contains("every user on this machine can read it: chmod 0640") == warns, "\(check.output)")
        #expect(!check.output.contains("S3CRET"), "\(check.output)")
    }

    @Test func sdNotifyReadyStatusWatchdogAndStopping() throws {
        let listener = try NotifyListener()
        let navd = try NavdInstance(sections: Self.simulatedConfig(valhalla: try Engines.valhallaURL()))
        let process = try navd.start(environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "900000"])
        let ready = listener.waitFor(timeout: 10) { $0.contains("READY=1") }
        #expect(ready?.contains("STATUS=") == true, "READY=1 without STATUS: \(String(describing: ready))")
        // The socket already accepts clients when READY=1 arrives.
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        let watchdogs = listener.count(within: 2) { $0 == "WATCHDOG=1" }
        #expect(watchdogs >= 4, "expected WATCHDOG=1 at least every 0.3 s (interval 0.9 s), got \(watchdogs) in 2 s")
        _ = client.command(DeviatingDrive.navigateCommand(id: "n"), id: "n")
        let navigating = listener.waitFor(timeout: 15) { $0.hasPrefix("STATUS=navigating") }
        #expect(navigating != nil, "no 'navigating' status; got \(listener.messages.filter { !$0.hasPrefix("WATCHDOG") })")
        if let navigating { #expect(navigating.contains("left")) }
        _ = process.signalAndWait(SIGTERM, timeout: 15)
        #expect(listener.waitFor(timeout: 5) { $0.contains("STOPPING=1") } != nil)
    }

    /// A trip that ended must stay ended after a power cut: deleting the journal is made durable by an fsync of its
    /// directory, as saving it is (the rename). Seen in the real navd's system calls (strace follows its threads).
    @Test func theJournalsDirectoryIsSyncedAfterEverySaveAndTheDeletionAtCancel() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL())
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: try Engines.valhallaURL())
        // -ff: one file per thread (strace.txt.TID), so that no line is cut into "<unfinished ...>" and "resumed"
        // halves by another thread's call in between.
        let trace = navd.directory.appendingPathComponent("strace.txt").path
        try navd.start(wrapper: ["/usr/bin/strace", "-ff", "-qq", "-e", "trace=openat,rename,renameat,renameat2,unlink,unlinkat,fsync,fdatasync,close", "-o", trace])
        let client = try navd.connectAndNavigate(drive, pty: pty)
        let states = try DeviatingDrive.onPlannedRoute(drive, from: 1)
        for sentences in states.prefix(5) {
            pty.write(sentences)
            client.drain(for: 0.2)
        }
        #expect(FileManager.default.fileExists(atPath: navd.journalPath), "no journal while navigating")
        #expect(client.command(#"{"type":"cancel","id":"c"}"#, id: "c")?.type == "reply")
        for _ in 0..<20 where FileManager.default.fileExists(atPath: navd.journalPath) { usleep(100_000) }
        #expect(!FileManager.default.fileExists(atPath: navd.journalPath), "the journal outlived the cancel")

        /// Each thread's calls, from its own file.
        func threadTraces() -> [[String]] {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: navd.directory.path)) ?? []).filter { $0.hasPrefix("strace.txt.") }
            return names.map { name in
                ((try? String(contentsOfFile: navd.directory.appendingPathComponent(name).path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            }
        }
        let directory = URL(fileURLWithPath: navd.journalPath).deletingLastPathComponent().path
        /// Whether the thread that made the change at `change` then opened the journal's directory and fsynced it.
        func syncedAfter(_ lines: [String], _ change: Int) -> Bool {
            let after = lines[(change + 1)...]
            guard let opened = after.first(where: { $0.contains(#"openat(AT_FDCWD, "\#(directory)", "#) && $0.contains("O_DIRECTORY") }),
                let fd = opened.split(separator: "=").last?.trimmingCharacters(in: .whitespaces), Int(fd) != nil
            else { return false }
            return after.contains { $0.contains("fsync(\(fd))") && $0.hasSuffix("= 0") }
        }
        let journalName = #""\#(navd.journalPath)""#
        // The file is gone once unlinked; its directory's fsync follows. Stopping navd before strace wrote that call
        // would lose it from the trace (strace exits with navd), so wait for it, a few seconds at most.
        var waited = 0
        while waited < 50, !threadTraces().contains(where: { lines in
            lines.lastIndex { $0.contains("unlink") && $0.contains(journalName) && $0.hasSuffix("= 0") }.map { syncedAfter(lines, $0) } ?? false
        }) {
            usleep(100_000)
            waited += 1
        }
        navd.process?.stop()
        let threads = threadTraces()
        var saves = 0, deletions = 0
        for lines in threads {
            for index in lines.indices where lines[index].contains(journalName) && lines[index].hasSuffix("= 0") {
                let isSave = lines[index].contains("rename"), isDeletion = lines[index].contains("unlink")
                guard isSave || isDeletion else { continue }
                if isSave { saves += 1 } else { deletions += 1 }
                #expect(syncedAfter(lines, index), "no fsync of \(directory) after: \(lines[index])")
            }
        }
        #expect(saves > 0, "no journal save in the trace of \(threads.count) threads")
        #expect(deletions == 1)
    }

    @Test func sigkillMidTripThenRestartResumesTheSameRouteToArrival() async throws {
        let killed = try await KilledMidTrip.make()
        let (drive, pty, navd, routeId, killAt) = (killed.drive, killed.pty, killed.navd, killed.routeId, killed.killAt)
        let progressBefore = killed.lastTripState?["progress"]?["distanceRemaining"]?.doubleValue
        #expect(FileManager.default.fileExists(atPath: navd.journalPath), "no journal after SIGKILL")

        try navd.start()
        let client = try navd.connect()
        let hello = try #require(client.next(timeout: 5))
        #expect(hello["state"]?["routeId"]?.stringValue == routeId, "hello after restart: \(hello)")
        #expect(hello["state"]?["phase"]?.stringValue == "resuming")
        // Finish on the planned route: the restarted navd must carry on the same trip, not reroute.
        let remaining = try DeviatingDrive.onPlannedRoute(drive, from: killAt)
        for (offset, sentences) in remaining.enumerated() {
            pty.write(sentences)
            client.drain(for: 0.1)
            if offset == 3 { break }
        }
        let resumed = client.received.first { $0.type == "route" }
        #expect(resumed?["reason"]?.stringValue == "resumed")
        #expect(resumed?["routeId"]?.stringValue == routeId, "resumed under another route id: \(String(describing: resumed?["routeId"]))")
        let firstState = client.received.first { $0.type == "trip_state" && $0["state"]?.stringValue == "navigating" }
        let progressAfter = firstState?["progress"]?["distanceRemaining"]?.doubleValue
        if let progressBefore, let progressAfter {
            #expect(abs(progressAfter - progressBefore) < 150, "resumed at \(progressAfter) m left; was \(progressBefore) m")
        }
        for sentences in remaining.dropFirst(4) {
            pty.write(sentences)
            client.drain(for: 0.1)
        }
        let arrived = client.received.contains { $0.type == "arrived" } || client.waitFor(timeout: 10) { $0.type == "arrived" } != nil
        #expect(arrived, "no arrival after the restart:\n\(navd.log.suffix(3000))")
        #expect(client.received.first { $0.type == "arrived" }?["routeId"]?.stringValue == routeId)
        client.drain(for: 0.5)
        #expect(!FileManager.default.fileExists(atPath: navd.journalPath), "arrival must delete the journal")
    }
}

/// A trip on a serial pty, driven a third of the way along the planned route, then navd killed without
/// warning (SIGKILL): what the restart tests start from.
struct KilledMidTrip {
    let drive: DeviatingDrive
    let pty: PtyPair
    let navd: NavdInstance
    let routeId: String
    /// Index of the first fix not sent before the kill.
    let killAt: Int
    /// The last trip_state the client saw before the kill.
    let lastTripState: JSONValue?

    /// `seed`: kill at a seeded fix before the drive leaves the route; nil: halfway there.
    static func make(seed: UInt64? = nil) async throws -> KilledMidTrip {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 15)
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: try Engines.valhallaURL())
        let process = try navd.start()
        let client = try navd.connectAndNavigate(drive, pty: pty)
        let routeId = try #require(client.waitFor(timeout: 10) { $0.type == "route" }?["routeId"]?.stringValue)
        var generator = SeededRandomNumberGenerator(seed: seed ?? 0)
        let killAt = seed == nil ? drive.firstOffRouteFix / 2 : Int.random(in: 3..<max(4, drive.firstOffRouteFix - 3), using: &generator)
        for index in 1..<killAt {
            pty.write(drive.nmea(index))
            client.drain(for: 0.1)
        }
        client.drain(for: 1.5)  // the journal is saved every second
        let lastTripState = client.received.last { $0.type == "trip_state" }
        _ = process.signalAndWait(SIGKILL, timeout: 5)
        return KilledMidTrip(drive: drive, pty: pty, navd: navd, routeId: routeId, killAt: killAt, lastTripState: lastTripState)
    }
}

/// A board without a real-time clock: navd is killed mid-trip, the board "reboots" (the journal now comes from
/// another boot) with a wall clock a year behind the one that wrote the journal. The first fix's GNSS time
/// decides: a journal whose last fix is seconds old resumes; one whose last fix is two hours old does not.
@Suite(.serialized) struct RTCLessBoardTests {
    @Test(arguments: [(lastFixShift: 0.0, resumes: true), (lastFixShift: -7200.0, resumes: false)])
    func aJournalFromAnEarlierBootIsJudgedByGNSSTime(lastFixShift: Double, resumes: Bool) async throws {
        let killed = try await KilledMidTrip.make()
        let (drive, pty, navd, routeId, killAt) = (killed.drive, killed.pty, killed.navd, killed.routeId, killed.killAt)

        // The reboot: another boot id, and a journal written by a clock a year ahead of the board's new one.
        let url = URL(fileURLWithPath: navd.journalPath)
        var record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let lastFixTime = try #require((record["lastFixTime"] as? String).flatMap(ISO8601Timestamp.parse), "the journal has no lastFixTime")
        #expect(abs(lastFixTime.timeIntervalSince(drive.fixes[killAt - 1].timestamp)) < 2)
        record["bootId"] = "0123456789abcdef0123456789abcdef"
        record["savedAt"] = ISO8601Timestamp.format(Date().addingTimeInterval(365 * 86_400))
        record["lastFixTime"] = ISO8601Timestamp.format(lastFixTime.addingTimeInterval(lastFixShift))
        try JSONSerialization.data(withJSONObject: record).write(to: url)

        try navd.start()
        let client = try navd.connect()
        let hello = try #require(client.next(timeout: 5))
        #expect(hello["state"]?["phase"]?.stringValue == "resuming", "a journal from the future was not kept: \(hello)")
        #expect(navd.log.contains("saved in an earlier boot"))
        let remaining = try DeviatingDrive.onPlannedRoute(drive, from: killAt)
        for sentences in remaining.prefix(4) {
            pty.write(sentences)
            client.drain(for: 0.2)
        }
        let resumed = client.received.first { $0.type == "route" && $0["reason"]?.stringValue == "resumed" }
        if resumes {
            #expect(resumed?["routeId"]?.stringValue == routeId, "not resumed: \(client.received.compactMap(\.type))\n\(navd.log.suffix(2000))")
            #expect(FileManager.default.fileExists(atPath: navd.journalPath))
        } else {
            #expect(resumed == nil, "a two-hour-old trip was resumed")
            #expect(client.received.contains { $0.type == "trip_state" && $0["state"]?.stringValue == "idle" })
            #expect(navd.log.contains("by GNSS time its journal is 72"), "\(navd.log.suffix(2000))")
            #expect(!FileManager.default.fileExists(atPath: navd.journalPath), "the stale journal was kept")
        }
    }
}

/// A datagram socket standing in for systemd's $NOTIFY_SOCKET.
final class NotifyListener: @unchecked Sendable {
    let path = "/tmp/navd-notify-\(UUID().uuidString.prefix(8))"
    private let fd: Int32
    private(set) var messages: [String] = []

    init() throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let result = withUnixSocketAddress(path) { bind(fd, $0, $1) }
        guard result == 0 else {
            Issue.record("cannot bind \(path): \(String(cString: strerror(errno)))")
            throw CancellationError()
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next datagram within `timeout` seconds.
    func next(timeout: Double) -> String? {
        var pollfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, Int32(max(0, timeout) * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let message = String(decoding: buffer[..<count], as: UTF8.self)
        messages.append(message)
        return message
    }

    func waitFor(timeout: Double, _ condition: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            if let message = next(timeout: deadline.timeIntervalSinceNow), condition(message) { return message }
        }
        return nil
    }

    func count(within seconds: Double, _ condition: (String) -> Bool) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var count = 0
        while deadline.timeIntervalSinceNow > 0 {
            if let message = next(timeout: deadline.timeIntervalSinceNow), condition(message) { count += 1 }
        }
        return count
    }
}

/// SIGHUP: what can change is applied, what cannot is named, and a broken file changes nothing.
@Suite(.serialized)
struct ReloadTests {
    @Test func sighupAppliesSafeChangesNamesTheOthersAndSurvivesABrokenFile() throws {
        let valhalla = try Engines.valhallaURL()
        let navd = try NavdInstance(sections: LifecycleTests.simulatedConfig(valhalla: valhalla))
        let process = try navd.start()
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        let original = try String(contentsOfFile: navd.configPath, encoding: .utf8)

        // A safe change (reroute policy) and one that needs a restart (the GNSS simulation speed).
        try original.replacingOccurrences(of: "speed = 15", with: "speed = 20")
            .replacingOccurrences(of: "[routing]", with: "[reroute]\npolicy = \"report_only\"\n[routing]")
            .write(toFile: navd.configPath, atomically: true, encoding: .utf8)
        kill(process.pid, SIGHUP)
        // Two threads log: the reloader ("need a restart") after queueing the reload, the navigation loop
        // ("configuration reloaded") when it takes it; either may come first.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !(navd.log.contains("need a restart") && navd.log.contains("configuration reloaded")) { usleep(50_000) }
        #expect(navd.log.contains("configuration reloaded"))
        #expect(navd.log.contains("[gnss]"), "the GNSS change should be named:\n\(navd.log.suffix(1500))")
        let status = client.command(#"{"type":"status","id":"s"}"#, id: "s")
        #expect(status?["result"]?["reroute"]?["policy"] == "report_only")

        try "[gnss]\nsource = \"teleport\"\n".write(toFile: navd.configPath, atomically: true, encoding: .utf8)
        kill(process.pid, SIGHUP)
        let later = Date().addingTimeInterval(10)
        while Date() < later, !navd.log.contains("reload failed") { usleep(50_000) }
        #expect(navd.log.contains("reload failed"))
        #expect(navd.log.contains("gnss.source"), "the reload error names the key")
        #expect(process.isRunning)
        let after = client.command(#"{"type":"status","id":"t"}"#, id: "t")
        #expect(after?["result"]?["reroute"]?["policy"] == "report_only", "a broken file changes nothing")
    }
}
