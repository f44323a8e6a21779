import Foundation
import NavigationCore
import NMEA
import Testing
import LocationSources

/// A real program started by a test (gpsfake, gpsd, socat), in its own process group so that stopping it also
/// stops whatever it started (gpsfake's gpsd), with output in a log file for failure messages.
final class ExternalProcess: @unchecked Sendable {
    let pid: pid_t
    let log: URL
    private var exited = false

    /// Starts `tool` (looked up on PATH); records an issue and throws when it is not installed.
    init(_ tool: String, _ arguments: [String]) throws {
        guard let path = Self.find(tool) else {
            Issue.record("\(tool) is not installed: run scripts/setup (Debian packages gpsd, gpsd-clients, socat)")
            throw CancellationError()
        }
        log = FileManager.default.temporaryDirectory.appendingPathComponent("navd-test-\(tool)-\(UUID().uuidString).log")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard result == 0 else {
            Issue.record("cannot start \(tool): \(String(cString: strerror(result)))")
            throw CancellationError()
        }
        pid = child
    }

    static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// Stops the process group: `signal`, then SIGKILL after 3 s.
    func stop(signal: Int32 = SIGTERM) {
        kill(-pid, signal)
        for _ in 0..<60 where isRunning { usleep(50_000) }
        if isRunning {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exited = true
        }
        // The group's other members (gpsfake's gpsd) may outlive the leader.
        kill(-pid, SIGKILL)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: log)
    }
}

enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func corpusLog(_ name: String) -> URL {
        root.appendingPathComponent("Tests/NMEATests/Fixtures/nmea-corpus/\(name).log")
    }

    /// An NMEA drive (RMC + GGA at 1 Hz) along the recorded Helsinki OSRM route, written to a temporary file.
    static func helsinkiDrive() throws -> URL {
        let data = try Data(contentsOf: root.appendingPathComponent("Tests/RouteAdaptersTests/Fixtures/helsinki_osrm_plain.json"))
        let routeObject = try #require(try JSONParser.parse(data)["routes"]?.arrayValue?.first)
        var points: [GeographicCoordinate] = []
        for leg in routeObject["legs"]?.arrayValue ?? [] {
            for step in leg["steps"]?.arrayValue ?? [] {
                points += try Polyline.decode(step["geometry"]?.stringValue ?? "", precision: 6)
            }
        }
        let fixes = LocationSimulator(speed: 12, sampleRate: 1, startTime: Date(timeIntervalSince1970: 1_795_241_290)).simulate(along: points)
        let text = fixes.flatMap(NMEAWriter.sentences(for:)).map { $0 + "\r\n" }.joined()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("navd-helsinki-\(UUID().uuidString).nmea")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// What the NMEA parser makes of a file: fixes by ISO time.
    static func parsedFixes(_ url: URL) throws -> [String: GNSSFix] {
        var assembler = NMEAEpochAssembler(rollover: .gpsdDefault)
        let readings = assembler.append(try Data(contentsOf: url)) + assembler.append([0x0a]) + assembler.finish()
        var result: [String: GNSSFix] = [:]
        for fix in readings.compactMap(\.fix) { result[ISO8601Timestamp.format(fix.location.timestamp)] = fix }
        return result
    }
}

/// A free TCP port on 127.0.0.1.
func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Collects a feed's readings and statuses in the background, with bounded waits.
final class FeedRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _fixes: [GNSSFix] = []
    private var _statuses: [GNSSSourceStatusRecord] = []
    private var tasks: [Task<Void, Never>] = []

    struct GNSSSourceStatusRecord: Sendable { var text: String; var at: Double }

    init(readings: AsyncStream<GNSSReading>, statuses: AsyncStream<GNSSSourceStatus>) {
        tasks.append(Task { [weak self] in
            for await reading in readings {
                guard let fix = reading.fix else { continue }
                self?.lock.withLock { self?._fixes.append(fix) }
            }
        })
        tasks.append(Task { [weak self] in
            for await status in statuses {
                self?.lock.withLock { self?._statuses.append(GNSSSourceStatusRecord(text: "\(status)", at: Date().timeIntervalSince1970)) }
            }
        })
    }

    var fixes: [GNSSFix] { lock.withLock { _fixes } }
    var statuses: [String] { lock.withLock { _statuses.map(\.text) } }

    /// Waits (polling every 50 ms, at most `seconds`) until `condition` holds; returns whether it did.
    func wait(seconds: Double, until condition: (FeedRecorder) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(self)
    }

    deinit { tasks.forEach { $0.cancel() } }
}
