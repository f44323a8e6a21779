import Foundation
import Testing
import TestSupport

/// scripts/install staged into a directory, and the unit it installs checked by systemd's own tools.
@Suite(.serialized)
struct InstallTests {
    @Test func installStagesEverythingAndTheUnitVerifies() throws {
        let stage = "/tmp/navd-stage-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let binaries = URL(fileURLWithPath: try NavdInstance.binary()).deletingLastPathComponent().path
        let script = NavdInstance.repoRoot.appendingPathComponent("scripts/install").path
        let install = try ExternalProcess("/bin/bash", [script, "--no-build"], environment: ["DESTDIR": stage, "NAVD_BIN_DIR": binaries])
        #expect(install.waitForExit(timeout: 60) == 0, "install failed:\n\(install.output)")
        for path in [
            "/usr/local/bin/navd", "/usr/local/bin/navctl", "/etc/systemd/system/navd.service", "/etc/systemd/system/navd-speak.service",
            "/etc/udev/rules.d/60-navd-gnss.rules",
            "/etc/navd/navd.toml", "/usr/local/share/doc/navd/protocol.md", "/usr/local/share/man/man8/navd.8",
            "/usr/local/share/man/man1/navctl.1", "/usr/local/share/man/man5/navd.toml.5",
        ] {
            #expect(FileManager.default.fileExists(atPath: stage + path), "\(path) not installed")
        }
        // The staged navd accepts the staged example configuration.
        let check = try ExternalProcess(stage + "/usr/local/bin/navd", ["check-config", stage + "/etc/navd/navd.toml"])
        #expect(check.waitForExit(timeout: 30) == 0, "check-config: \(check.output)")
        let unit = try Self.verifiedUnit("navd.service", binary: "navd", stage: stage)
        for line in ["Type=notify", "WatchdogSec=", "Restart=on-failure", "User=navd", "SupplementaryGroups=dialout", "RuntimeDirectory=navd",
                     "StateDirectory=navd", "ConfigurationDirectory=navd", "NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes",
                     "RestrictAddressFamilies=", "DevicePolicy=closed"] {
            #expect(unit.contains(line), "unit lacks \(line)")
        }
        // The voice client's unit, verified the same way (its Documentation= is navctl(1)).
        let speakUnit = try Self.verifiedUnit("navd-speak.service", binary: "navctl", stage: stage)
        #expect(speakUnit.contains("navctl speak --socket /run/navd/navd.sock") && speakUnit.contains("SupplementaryGroups=audio"))
        let rules = try String(contentsOfFile: stage + "/etc/udev/rules.d/60-navd-gnss.rules", encoding: .utf8)
        let ruleLines = rules.split(separator: "\n").filter { $0.hasPrefix("ATTRS{idVendor}") }
        #expect(ruleLines.count >= 10)
        #expect(ruleLines.allSatisfy { $0.contains(#"SYMLINK+="navd-gps""#) && $0.contains(#"GROUP="dialout""#) && $0.contains(#"TAG+="systemd""#) && $0.contains("ID_MM_") })
    }

    /// The staged unit `name`'s text, after `systemd-analyze verify` passed on it without warnings, with ExecStart
    /// pointing at the staged `binary`; verify also opens the unit's Documentation= (man pages): from the staged ones.
    static func verifiedUnit(_ name: String, binary: String, stage: String) throws -> String {
        let unit = try String(contentsOfFile: stage + "/etc/systemd/system/" + name, encoding: .utf8)
        let verifyPath = stage + "/" + name
        try unit.replacingOccurrences(of: "/usr/local/bin/" + binary, with: stage + "/usr/local/bin/" + binary).write(
            toFile: verifyPath, atomically: true, encoding: .utf8)
        let verify = try ExternalProcess("systemd-analyze", ["verify", verifyPath], environment: ["MANPATH": stage + "/usr/local/share/man"])
        #expect(verify.waitForExit(timeout: 30) == 0, "systemd-analyze verify \(name):\n\(verify.output)")
        #expect(!verify.output.contains("Unknown"), "systemd-analyze warnings:\n\(verify.output)")
        return unit
    }
}
