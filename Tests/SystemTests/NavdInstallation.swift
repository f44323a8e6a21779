import Foundation
import NavigationCore
import Testing
import TestSupport

/// navd installed from its Debian package into a booted Debian 12, configured as an integrator would: the
/// shipped example configuration with the routing engine's address, two users (alice may drive navd, bob may
/// only watch), and the unit as the package ships it.
struct NavdInstallation {
    let system: BootedSystem
    /// The shipped /etc/navd/navd.toml, as installed.
    let shippedConfig: String

    static let configPath = "/etc/navd/navd.toml"
    static let socketPath = "/run/navd/navd.sock"
    /// Members may send control commands (alice); members of navd only (bob) may read. The package creates it
    /// and the shipped navd.toml names it (least privilege: a dashboard in navd reads, a driver's app controls).
    static let controlGroup = "navd-control"

    /// Boots a fresh system, installs the package with apt, adds the users and points navd at Valhalla.
    static func boot(configure edits: [(String, String)] = []) async throws -> NavdInstallation {
        let system = try await BootedSystem()
        do {
            try system.must("DEBIAN_FRONTEND=noninteractive apt-get install -y \(try SystemFixtures.package())", timeout: 180)
            try system.must(
                "useradd -m -G navd,\(controlGroup) alice && useradd -m -G navd bob && useradd -m carol")
            let shipped = try system.must("cat \(configPath)")
            let installation = NavdInstallation(system: system, shippedConfig: shipped)
            try installation.configure(edits)
            return installation
        } catch {
            system.shutdown()
            throw error
        }
    }

    /// Writes the shipped configuration with the test's settings and `edits` (exact text replacements).
    func configure(_ edits: [(String, String)]) throws {
        var config = shippedConfig
        let valhalla = try Engines.valhallaURL()
        let base: [(String, String)] = [
            (#"url = "http://127.0.0.1:8002""#, #"url = "\#(valhalla)""#),
        ]
        for (old, new) in base + edits {
            guard config.contains(old) else {
                Issue.record("the shipped navd.toml no longer contains \(old)")
                throw CancellationError()
            }
            config = config.replacingOccurrences(of: old, with: new)
        }
        try system.write(config, to: Self.configPath)
    }

    /// `systemctl start navd`, which returns once navd said READY=1 (Type=notify).
    func start() throws {
        try system.must("systemctl start navd.service", timeout: 60)
    }

    /// navd's main process id, or 0 when it is not running.
    func mainPID() throws -> Int { Int(try system.property("MainPID")) ?? 0 }

    /// How often systemd has restarted navd since the container booted.
    func restarts() throws -> Int { Int(try system.property("NRestarts")) ?? -1 }

    /// The unit's journal (`journalctl -u navd`), with `options`.
    func journal(_ options: String = "") throws -> String {
        try system.must("journalctl -u navd.service --no-pager -o cat \(options)")
    }

    /// The journal for failure messages (empty when it cannot be read).
    var journalText: String { (try? journal()) ?? "" }

    /// Waits until navd is active again after a restart (`restarts` reached `count`) with a new main process.
    func waitForRestart(count: Int, replacing oldPID: Int, timeout: Double) async throws -> Bool {
        try await system.waitUntil(timeout: timeout) {
            let pid = try mainPID()
            return try restarts() >= count && pid != 0 && pid != oldPID && system.property("ActiveState") == "active"
                && system.property("SubState") == "running"
        }
    }

    /// A navctl client inside the container as `user`; its JSON Lines output is read with `messages(of:)`.
    func navctl(_ arguments: String, as user: String) throws -> ExternalProcess {
        try system.start("navctl \(arguments)", user: user)
    }

    /// The JSON messages a `navctl watch --json` client has printed so far.
    static func messages(of client: ExternalProcess) -> [JSONValue] { messages(of: client.output) }

    /// The JSON lines in `text` (other lines, such as navctl's own errors, are skipped).
    static func messages(of text: String) -> [JSONValue] {
        text.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
    }
}
