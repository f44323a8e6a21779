import Foundation
import NavigationCore
import Testing
import TestSupport

/// navd installed from its Debian package into Debian 12 booted with systemd as PID 1, started by its own unit.
@Suite("navd under systemd as PID 1", .serialized)
struct NavdServiceTests {
    @Test("the packaged unit starts through READY=1, serves its socket to the right users, logs cleanly, stops with bye")
    func startsServesAndStops() async throws {
        // An unknown name in the control list makes navd log one warning at start: the priority check below.
        let navd = try await NavdInstallation.boot(configure: [(#"control_users = []"#, #"control_users = ["nosuchuser"]"#)])
        defer { navd.system.shutdown() }
        let system = navd.system

        // The package enables and starts nothing.
        #expect(try system.run("systemctl is-enabled navd.service").trimmed == "disabled")
        #expect(try system.property("ActiveState") == "inactive")

        try navd.start()
        #expect(try system.property("ActiveState") == "active")
        #expect(try system.property("SubState") == "running")
        #expect(try navd.restarts() == 0)
        let statusText = try system.property("StatusText")
        #expect(statusText.hasPrefix("idle"), "STATUS= line: \(statusText)")
        let status = try system.run("systemctl status navd.service --no-pager --full")
        #expect(status.text.contains("Active: active (running)"), "\(status)")
        #expect(status.text.contains("Status: \"\(statusText)\""), "\(status)")

        // start-to-READY: from exec of the main process to systemd marking the unit active (READY=1).
        let execStart = Double(try system.property("ExecMainStartTimestampMonotonic")) ?? 0
        let readyAt = Double(try system.property("ActiveEnterTimestampMonotonic")) ?? 0
        #expect(execStart > 0 && readyAt > execStart)
        let pid = try navd.mainPID()
        let rss = try system.must("grep VmRSS /proc/\(pid)/status").split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "?"
        print("navd under systemd: start-to-READY \(Int((readyAt - execStart) / 1000)) ms, idle RSS \(rss) kB")

        // The socket: the unit's group, the configured mode, no chown needed.
        #expect(try system.must("stat -c '%a %U %G' \(NavdInstallation.socketPath)").trimmingCharacters(in: .whitespacesAndNewlines) == "660 navd navd")

        // alice (navd + the control group) may navigate; bob (navd only) may watch but not control; carol may
        // not even connect.
        let destination = "\(DeviatingDrive.destination.latitude),\(DeviatingDrive.destination.longitude)"
        let alice = try navd.navctl("watch --json --to \(destination) --timeout 4", as: "alice")
        let bob = try navd.navctl("watch --json --to \(destination) --until-arrived --timeout 4", as: "bob")
        let carol = try system.run("navctl watch --json --timeout 2", user: "carol")
        _ = alice.waitForExit(timeout: 10)
        #expect(bob.waitForExit(timeout: 10) != nil)
        let aliceMessages = NavdInstallation.messages(of: alice)
        #expect(aliceMessages.first?["type"]?.stringValue == "hello" && aliceMessages.first?["control"]?.boolValue == true, "\(alice.output)")
        #expect(aliceMessages.contains { $0["type"]?.stringValue == "route_calculation" && $0["purpose"]?.stringValue == "initial" }, "\(alice.output)")
        #expect(!aliceMessages.contains { $0["type"]?.stringValue == "error" }, "\(alice.output)")
        let bobMessages = NavdInstallation.messages(of: bob)
        #expect(bobMessages.first?["type"]?.stringValue == "hello" && bobMessages.first?["control"]?.boolValue == false, "\(bob.output)")
        #expect(bobMessages.contains { $0["type"]?.stringValue == "error" && $0["code"]?.stringValue == "not_authorized" }, "\(bob.output)")
        #expect(!carol.succeeded && carol.text.contains("Permission denied"), "\(carol)")

        let navctlRSS = try system.must("navctl watch --json --timeout 3 >/dev/null & sleep 1; awk '/VmRSS/ {print $2}' /proc/$!/status", user: "bob")
        print("navctl watch under systemd: RSS \(navctlRSS.trimmingCharacters(in: .whitespacesAndNewlines)) kB")

        // A reader stays connected across `systemctl stop`: it gets bye, navd exits 0, the socket is removed.
        let watcher = try navd.navctl("watch --json --timeout 30", as: "bob")
        #expect(try await system.waitUntil(timeout: 10) { watcher.output.contains("\"hello\"") })
        try system.must("systemctl stop navd.service", timeout: 30)
        #expect(watcher.waitForExit(timeout: 10) != nil)
        #expect(NavdInstallation.messages(of: watcher).contains { $0["type"]?.stringValue == "bye" }, "\(watcher.output)")
        #expect(try system.property("ExecMainStatus") == "0")
        #expect(try system.property("Result") == "success")
        #expect(try system.property("ActiveState") == "inactive")
        #expect(try !system.run("test -e \(NavdInstallation.socketPath)").succeeded, "the socket outlived navd")

        // The journal: navd's priorities survive (its one warning is a warning, its notices are not), only navd
        // logged warnings, and the runtime stayed quiet under the unit's system-call filter.
        let warnings = try navd.journal("-p warning").split(separator: "\n").map(String.init)
        #expect(warnings.contains { $0.contains("socket control list names an unknown user nosuchuser") }, "\(warnings)")
        let everything = try navd.journal()
        #expect(everything.contains(" starting") && everything.contains("navd stopped"), "\(everything)")
        #expect(!warnings.contains { $0.contains(" starting") || $0.contains("navd stopped") }, "notices logged as warnings: \(warnings)")
        let warningsByProcess = try system.must("journalctl -u navd.service -p warning --no-pager -o short")
            .split(separator: "\n").filter { !$0.hasPrefix("-- ") }
        for line in warningsByProcess {
            #expect(line.contains(" navd["), "a warning that is not navd's: \(line)")
        }
        try Self.expectNoRuntimeNoise(in: everything, starts: 1, system: system)
        #expect(!everything.contains("Operation not permitted"), "\(everything)")
    }

    /// libdispatch sets each worker's nice value and logs "Failed to set thread priority ... errno=N" when
    /// refused. errno=1 is the unit's system-call filter (setpriority must be allowed). errno=13 is its event
    /// thread asking for nice -4 without the RLIMIT_NICE the unit grants (LimitNICE=-4): systemd can only grant
    /// it where it may raise hard limits (CAP_SYS_RESOURCE), which a container on a host without that capability
    /// cannot; there one such line per start is the kernel's answer, not the unit's.
    static func expectNoRuntimeNoise(in journal: String, starts: Int, system: BootedSystem, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = journal.split(separator: "\n").filter { $0.contains("Failed to set thread priority") }
        #expect(!lines.contains { $0.hasSuffix("errno=1") }, "the unit's system-call filter refuses setpriority: \(lines)", sourceLocation: sourceLocation)
        #expect(try system.property("LimitNICE") == "24", "the unit does not grant nice -4", sourceLocation: sourceLocation)
        let hardLimit = try system.must("awk '/^Max nice priority/ {print $5}' /proc/1/limits").trimmingCharacters(in: .whitespacesAndNewlines)
        if (Int(hardLimit) ?? 0) >= 24 {
            #expect(lines.isEmpty, "runtime noise in the journal: \(lines)", sourceLocation: sourceLocation)
        } else {
            #expect(lines.count <= starts, "more than the event thread's one refusal per start: \(lines)", sourceLocation: sourceLocation)
        }
    }

    @Test("systemd-analyze security rates the unit's exposure at most 2.0")
    func securityExposure() async throws {
        let navd = try await NavdInstallation.boot()
        defer { navd.system.shutdown() }
        let exposure = try Self.exposure(of: "navd.service", in: navd.system)
        let gpsd = try Self.exposure(of: "gpsd.service", in: navd.system)
        print("systemd-analyze security: navd.service \(exposure), gpsd.service \(gpsd) (same system)")
        #expect(exposure <= 2.0)
    }

    static func exposure(of unit: String, in system: BootedSystem) throws -> Double {
        let report = try system.run("systemd-analyze security \(unit) --no-pager")
        // "→ Overall exposure level for navd.service: 1.6 OK :-)"
        let marker = "Overall exposure level for \(unit): "
        guard let line = report.text.split(separator: "\n").first(where: { $0.contains(marker) }),
            let range = line.range(of: marker), let value = line[range.upperBound...].split(separator: " ").first.flatMap({ Double($0) })
        else {
            Issue.record("no exposure level in: \(report)")
            throw CancellationError()
        }
        return value
    }
}
