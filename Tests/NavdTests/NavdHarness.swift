import Foundation
import NavigationCore
import Testing
import TestSupport

/// A real navd process with its own directory (config, socket, journal, log).
final class NavdInstance: @unchecked Sendable {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let directory: URL
    var socketPath: String { directory.appendingPathComponent("navd.sock").path }
    let journalPath: String
    var configPath: String { directory.appendingPathComponent("navd.toml").path }
    private(set) var process: ExternalProcess?

    /// `sections`: TOML text for everything but [socket] and [journal], which point into the instance directory
    /// (the journal elsewhere when `journal` is given).
    init(sections: String, socketMode: String = "0600", extraSocket: String = "", journal: String? = nil) throws {
        // Short path: Unix socket paths are limited to 107 bytes.
        directory = URL(fileURLWithPath: "/tmp/navd-t-\(UUID().uuidString.prefix(8))")
        journalPath = journal ?? directory.appendingPathComponent("trip.json").path
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let config = """
            \(sections)

            [socket]
            path = "\(directory.appendingPathComponent("navd.sock").path)"
            mode = "\(socketMode)"
            \(extraSocket)

            [journal]
            path = "\(journalPath)"
            interval = 1

            [logging]
            level = "debug"
            format = "journald"
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    static func binary() throws -> String {
        let products = Bundle.main.bundleURL.pathExtension == "xctest" ? Bundle.main.bundleURL.deletingLastPathComponent() : Bundle.main.bundleURL
        for candidate in [products.appendingPathComponent("navd"), repoRoot.appendingPathComponent(".build/debug/navd")]
        where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate.path
        }
        Issue.record("navd binary not found next to \(products.path); build it with `swift build`")
        throw CancellationError()
    }

    /// Starts navd and waits (up to 20 s) for its socket. `wrapper`: a program and its arguments that run navd
    /// (strace, to see its system calls).
    @discardableResult
    func start(environment: [String: String] = [:], wrapper: [String] = []) throws -> ExternalProcess {
        let command = wrapper + [try Self.binary(), "--config", configPath]
        let process = try ExternalProcess(command[0], Array(command.dropFirst()), environment: environment)
        self.process = process
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            // Connectable, not merely present: a killed navd leaves its socket file behind.
            if SocketClient.canConnect(socketPath) { return process }
            if !process.isRunning {
                Issue.record("navd exited at start:\n\(process.output)")
                throw CancellationError()
            }
            usleep(50_000)
        }
        Issue.record("navd did not create its socket within 20 s:\n\(process.output)")
        throw CancellationError()
    }

    func connect() throws -> SocketClient { try SocketClient(path: socketPath) }

    var log: String { process?.output ?? "" }

    deinit {
        process?.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }
}

extension NavdInstance {
    /// Connects to a started navd fed by `pty`, gives it the drive's first fix and sends `navigate` to the drive's
    /// destination (id `go`); the caller waits for what it expects next.
    func connectAndNavigate(_ drive: DeviatingDrive, pty: PtyPair) throws -> SocketClient {
        let client = try connect()
        pty.write(drive.nmea(0))
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        _ = client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")
        return client
    }

    /// navd reading gpsd at 127.0.0.1:`port` (a gpsfake) and routing with Valhalla at `valhalla`; `extra`: more
    /// TOML (e.g. a [recording] table).
    static func gpsd(port: Int, valhalla: String, extra: String = "") throws -> NavdInstance {
        try NavdInstance(
            sections: """
                [gnss]
                source = "gpsd"
                gpsd = "127.0.0.1:\(port)"
                watchdog_timeout = 30
                [routing]
                engine = "valhalla"
                url = "\(valhalla)"
                \(extra)
                """)
    }

    /// navd with its simulated receiver standing on Bulevardi, driving `timeScale` times faster than real time
    /// (missing the maneuver of step `missedTurn` of the first route when not 0), routing with Valhalla.
    static func simulated(valhalla: String, timeScale: Double, missedTurn: Int = 0) throws -> NavdInstance {
        try simulated(
            valhalla: valhalla,
            simulate: """
                start = { lat = 60.165574, lon = 24.9406 }
                speed = 11
                time_scale = \(timeScale)
                missed_turn = \(missedTurn)
                """)
    }

    /// navd with its simulated receiver configured by `simulate` (the [gnss.simulate] table's keys), routing with
    /// Valhalla; `socketMode` and `extraSocket` as for ``init(sections:socketMode:extraSocket:journal:)``.
    static func simulated(valhalla: String, simulate: String, socketMode: String = "0600", extraSocket: String = "") throws -> NavdInstance {
        try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                \(simulate)
                [routing]
                engine = "valhalla"
                url = "\(valhalla)"
                """, socketMode: socketMode, extraSocket: extraSocket)
    }

    /// navd reading a serial receiver at `device` (a socat pty) and routing with Valhalla at `valhalla`;
    /// `extra`: more TOML (e.g. a [reroute] table).
    static func serial(device: String, valhalla: String, extraRouting: String = "", extra: String = "", journal: String? = nil) throws -> NavdInstance {
        try serial(device: device, engine: "valhalla", url: valhalla, extraRouting: extraRouting, extra: extra, journal: journal)
    }

    /// navd reading a serial receiver at `device` and routing with `engine` (`valhalla`, `osrm`) at `url`.
    static func serial(device: String, engine: String, url: String, extraRouting: String = "", extra: String = "", journal: String? = nil) throws -> NavdInstance {
        try NavdInstance(
            sections: """
                [gnss]
                source = "serial"
                serial = "\(device)"
                baud = 9600
                [routing]
                engine = "\(engine)"
                url = "\(url)"
                \(extraRouting)
                \(extra)
                """, journal: journal)
    }
}

extension NavdInstance {
    /// Where the simulated car of the trip-management drives stands (Bulevardi), and where it goes (Kaisaniemi).
    static let bulevardi = GeographicCoordinate(latitude: 60.165574, longitude: 24.9406)
    static let kaisaniemi = GeographicCoordinate(latitude: 60.1770, longitude: 24.9480)

    /// navd's simulated car on Bulevardi at 14 m/s, `timeScale` times real time, routing with `engine` at `url`;
    /// `routing`: more [routing] keys; `recordings`: a directory for the flight recorder (nil: off).
    static func simulatedDrive(engine: String, url: String, routing: String = "", timeScale: Double = 16, recordings: String?) throws -> NavdInstance {
        try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = \(bulevardi.latitude), lon = \(bulevardi.longitude) }
                speed = 14
                time_scale = \(timeScale)
                [routing]
                engine = "\(engine)"
                url = "\(url)"
                \(routing)
                \(recordings.map { "[recording]\nenabled = true\ndirectory = \"\($0)\"" } ?? "")
                """)
    }
}
