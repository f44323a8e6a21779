import Foundation
import LocationSources
import NavigationCore
import NMEA
import Testing
import TestSupport

/// The gpsd source against a real gpsd: gpsfake replaying logs, and gpsd reading a socat pty.
@Suite("gpsd source with a real gpsd", .serialized)
struct GpsdSourceTests {
    /// Every fix gpsd delivers equals the NMEA parser's fix for the same receiver time. (gpsfake paces NMEA at
    /// about one receiver cycle per second whatever its -c, so a handful of fixes keeps the test short.)
    @discardableResult
    static func checkSameFixes(_ log: URL, minimum: Int, cycle: String = "0.01") async throws -> [GNSSFix] {
        let expected = try Fixtures.parsedFixes(log)
        let port = freePort()
        let fake = try GpsFake.start(log, port: port, cycle: cycle)
        let source = GpsdSource(host: "127.0.0.1", port: String(port))
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        source.start()
        defer { source.stop() }
        // gpsfake runs slower when the machine is busy (the whole suite runs in parallel): allow time.
        let enough = await recorder.wait(seconds: 60) { $0.fixes.count >= minimum }
        #expect(enough, "only \(recorder.fixes.count) fixes from gpsd; statuses: \(recorder.statuses); gpsfake: \(fake.output.suffix(500))")
        var compared = 0
        for fix in recorder.fixes {
            let time = ISO8601Timestamp.format(fix.location.timestamp)
            guard let ours = expected[time] else {
                Issue.record("gpsd reported a fix at \(time) that the parser did not")
                continue
            }
            #expect(abs(fix.location.coordinate.latitude - ours.location.coordinate.latitude) < 1e-7, "\(time)")
            #expect(abs(fix.location.coordinate.longitude - ours.location.coordinate.longitude) < 1e-7, "\(time)")
            #expect(fix.quality.estimated == ours.quality.estimated, "\(time): estimated by the receiver?")
            compared += 1
        }
        #expect(compared >= minimum)
        #expect(recorder.statuses.contains { $0.hasPrefix("connected to gpsd at 127.0.0.1:\(port)") })
        return recorder.fixes
    }

    @Test func aRealReceiverLogGivesTheParsersFixes() async throws {
        try await Self.checkSameFixes(Fixtures.corpusLog("navika-100-fix"), minimum: 6)
    }

    @Test func aHelsinkiDriveGivesTheParsersFixes() async throws {
        let drive = try Fixtures.helsinkiDrive()
        defer { try? FileManager.default.removeItem(at: drive) }
        try await Self.checkSameFixes(drive, minimum: 6)
    }

    /// A receiver that dead-reckons on its own (GGA quality 6 and RMC mode `E` for five seconds out of ten): gpsd
    /// reports those fixes with status DR, and the source marks them estimated, as the parser does.
    @Test func theReceiversOwnDeadReckoningIsMarked() async throws {
        func sentence(_ body: String) -> String { "$\(body)*\(NMEAWriter.checksum(body))" }
        var lines: [String] = []
        for second in 0..<30 {
            let estimated = (second / 5) % 2 == 1
            let time = String(format: "0818%02d.00", 10 + second), lat = String(format: "6010.%03d", 100 + 4 * second)
            lines.append(sentence("GPRMC,\(time),A,\(lat),N,02456.400,E,12.4,0.0,251126,,,\(estimated ? "E" : "A")"))
            lines.append(sentence("GPGGA,\(time),\(lat),N,02456.400,E,\(estimated ? 6 : 1),\(estimated ? "04" : "09"),0.9,12.0,M,17.0,M,,"))
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("navd-dr-\(UUID().uuidString).nmea")
        try Data(lines.map { $0 + "\r\n" }.joined().utf8).write(to: log)
        defer { try? FileManager.default.removeItem(at: log) }
        // A short log at gpsfake's fastest pace is over before gpsd activates the device: 0.2 s per sentence.
        let fixes = try await Self.checkSameFixes(log, minimum: 12, cycle: "0.2")
        #expect(fixes.contains { $0.quality.estimated } && fixes.contains { !$0.quality.estimated }, "\(fixes.map(\.quality.estimated))")
    }

    @Test func reconnectsWhenGpsdStopsAndComesBack() async throws {
        let drive = try Fixtures.helsinkiDrive()
        defer { try? FileManager.default.removeItem(at: drive) }
        let port = freePort()
        var fake: ExternalProcess? = try GpsFake.start(drive, port: port, once: false, cycle: "0.05")
        let source = GpsdSource(host: "127.0.0.1", port: String(port))
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        source.start()
        defer { source.stop() }
        #expect(await recorder.wait(seconds: 60) { $0.fixes.count >= 3 }, "no fixes before the restart: \(recorder.statuses)")
        fake?.stop()
        fake = nil
        #expect(await recorder.wait(seconds: 10) { $0.statuses.contains { $0.contains("closed the connection") || $0.contains("cannot connect") } },
            "the stop was not reported: \(recorder.statuses)")
        let before = recorder.fixes.count
        fake = try GpsFake.start(drive, port: port, once: false, cycle: "0.05")
        #expect(await recorder.wait(seconds: 60) { $0.fixes.count >= before + 3 }, "fixes did not resume: \(recorder.statuses)")
        let connects = recorder.statuses.filter { $0.hasPrefix("connected to gpsd") }.count
        #expect(connects >= 2, "\(recorder.statuses)")
        fake?.stop()
    }

    /// libgps waits with select(2), which takes no descriptor of 1024 or more. navd raises its open-file limit for
    /// many clients; when every lower descriptor is in use, a connection to gpsd is refused with a clear status
    /// (not handed to libgps, whose fd_set it would overflow), and made once a low descriptor is free again.
    @Test func aConnectionWithNoDescriptorBelow1024IsRefusedThenMadeWhenOneFrees() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        limit.rlim_cur = min(limit.rlim_max, 2048)
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        defer {
            var restore = saved
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        }
        let drive = try Fixtures.helsinkiDrive()
        defer { try? FileManager.default.removeItem(at: drive) }
        let port = freePort()
        let fake = try GpsFake.start(drive, port: port, once: false, cycle: "0.05")
        defer { fake.stop() }
        // Take every descriptor below 1024.
        var fillers: [Int32] = []
        while fillers.count < 1100 {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            #expect(fd >= 0, "cannot open /dev/null: \(String(cString: strerror(errno)))")
            if fd < 0 { break }
            if fd >= 1024 {
                close(fd)
                break
            }
            fillers.append(fd)
        }
        defer { fillers.forEach { close($0) } }
        let source = GpsdSource(host: "127.0.0.1", port: String(port))
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        source.start()
        defer { source.stop() }
        #expect(
            await recorder.wait(seconds: 10) { $0.statuses.contains { $0.contains("every descriptor below 1024 is in use") } },
            "\(recorder.statuses)")
        #expect(recorder.fixes.isEmpty)
        // A client leaves: a low descriptor is free, and the next attempt connects.
        for fd in fillers.suffix(8) { close(fd) }
        fillers.removeLast(8)
        #expect(await recorder.wait(seconds: 60) { $0.fixes.count >= 3 }, "no fixes once a descriptor was free: \(recorder.statuses)")
    }

    @Test func theWatchdogReportsASilentReceiver() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navd-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = directory.appendingPathComponent("gps").path, feeder = directory.appendingPathComponent("feeder").path
        let socat = try ExternalProcess("socat", ["-d", "-d", "pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feeder)"])
        defer { socat.stop() }
        #expect(await waitForFile(feeder), "socat made no pty: \(socat.output)")
        let port = freePort()
        let gpsd = try ExternalProcess("gpsd", ["-N", "-n", "-b", "-S", String(port), "-F", directory.appendingPathComponent("control").path, device])
        defer { gpsd.stop() }
        let source = GpsdSource(host: "127.0.0.1", port: String(port))
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        let watchdog = Task { await source.feed.watchSilence(timeout: 1.0) }
        defer { watchdog.cancel() }
        // Feed the pty at 5 Hz until fixes arrive, then go silent.
        let writer = try PtyWriter(path: feeder)
        let drive = try Fixtures.helsinkiDrive()
        defer { try? FileManager.default.removeItem(at: drive) }
        let lines = try String(contentsOf: drive, encoding: .utf8).split(whereSeparator: \.isNewline).map { $0 + "\r\n" }
        var next = 0
        func feed(_ count: Int) async {
            for _ in 0..<count where next < lines.count {
                writer.write(String(lines[next]))
                next += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        // Started once gpsd listens, so that the source connects at once, not after its reconnect backoff.
        #expect(waitForTCPListener(port: port, timeout: 30), "gpsd never listened: \(gpsd.output.suffix(500))")
        source.start()
        defer { source.stop() }
        await feed(40)
        #expect(recorder.fixes.count >= 3, "no fixes through gpsd: \(recorder.statuses) \(gpsd.output.suffix(300))")
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.hasPrefix("receiver lost") } }, "\(recorder.statuses)")
        await feed(20)
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.hasPrefix("receiver back") } }, "\(recorder.statuses)")
    }

    /// gpsd reads two receivers (two socat ptys); the source asks for one in its WATCH and gets only its fixes.
    @Test func watchSelectsOneDevice() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("navd-two-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let socatA = try ExternalProcess("socat", ["pty,raw,echo=0,link=\(path("gpsA"))", "pty,raw,echo=0,link=\(path("feedA"))"])
        let socatB = try ExternalProcess("socat", ["pty,raw,echo=0,link=\(path("gpsB"))", "pty,raw,echo=0,link=\(path("feedB"))"])
        defer { socatA.stop(); socatB.stop() }
        let feedA = await waitForFile(path("feedA")), feedB = await waitForFile(path("feedB"))
        #expect(feedA && feedB, "socat made no ptys")
        let port = freePort()
        let gpsd = try ExternalProcess("gpsd", ["-N", "-n", "-b", "-S", String(port), "-F", path("control"), path("gpsA"), path("gpsB")])
        defer { gpsd.stop() }
        #expect(waitForTCPListener(port: port, timeout: 30), "gpsd never listened: \(gpsd.output.suffix(500))")
        let source = GpsdSource(host: "127.0.0.1", port: String(port), device: path("gpsB"))
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        source.start()
        defer { source.stop() }
        let writerA = try PtyWriter(path: path("feedA")), writerB = try PtyWriter(path: path("feedB"))
        // Receiver A drives in Helsinki; receiver B reports a fixed position in Tampere.
        let helsinki = try String(contentsOf: try Fixtures.helsinkiDrive(), encoding: .utf8).split(whereSeparator: \.isNewline)
        for i in 0..<30 {
            writerA.write(helsinki[i] + "\r\n")
            let time = String(format: "0608%02d.00", i / 2)
            for body in ["GPRMC,\(time),A,6129.8000,N,02345.6000,E,0.0,,211126,,,A", "GPGGA,\(time),6129.8000,N,02345.6000,E,1,09,0.8,110.0,M,18.0,M,,"] {
                writerB.write("$\(body)*\(NMEAWriter.checksum(body))\r\n")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(await recorder.wait(seconds: 10) { $0.fixes.count >= 3 }, "\(recorder.statuses)")
        #expect(recorder.statuses.contains { $0.contains("(device \(path("gpsB")))") })
        // Only Tampere: nothing from the Helsinki receiver.
        #expect(recorder.fixes.allSatisfy { abs($0.location.coordinate.latitude - 61.4967) < 0.001 })
    }

    @Test func noGpsdIsReportedAndRetried() async throws {
        let port = freePort()
        let source = GpsdSource(host: "127.0.0.1", port: String(port))
        let recorder = FeedRecorder(readings: source.feed.readings, statuses: source.feed.statuses)
        source.start()
        defer { source.stop() }
        #expect(await recorder.wait(seconds: 5) { $0.statuses.contains { $0.contains("cannot connect to gpsd at 127.0.0.1:\(port)") && $0.contains("retrying") } },
            "\(recorder.statuses)")
    }

    @Test(arguments: [
        ("127.0.0.1:2947", "127.0.0.1", "2947"), ("localhost", "localhost", "2947"), ("[::1]:3000", "::1", "3000"), ("gps.local:12", "gps.local", "12"),
    ])
    func addresses(text: String, host: String, port: String) throws {
        let parsed = try #require(GpsdSource.address(text))
        #expect(parsed.host == host)
        #expect(parsed.port == port)
    }

    @Test(arguments: ["", ":2947", "host:port", "a:b:c"])
    func badAddresses(text: String) {
        #expect(GpsdSource.address(text) == nil)
    }
}

/// Waits (at most 5 s) for a file, such as a pty link socat creates, to appear.
func waitForFile(_ path: String) async -> Bool {
    for _ in 0..<100 {
        if FileManager.default.fileExists(atPath: path) { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}

/// Writes into the feeding end of a socat pty pair with plain write(2).
final class PtyWriter: @unchecked Sendable {
    let fd: Int32

    init(path: String) throws {
        fd = open(path, O_WRONLY | O_NOCTTY)
        guard fd >= 0 else {
            Issue.record("cannot open \(path): \(String(cString: strerror(errno)))")
            throw CancellationError()
        }
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    deinit { close(fd) }
}
