import Foundation
import Testing
import TestSupport

/// A Debian root (from `scripts/roots`) booted by systemd-nspawn with systemd as PID 1. The cached root is
/// mounted read-only under a tmpfs overlay (`--volatile=overlay`), so every boot starts from the same clean
/// system and nothing a test does reaches the cache. The container shares the host's network (the routing
/// engines on 127.0.0.1 are reachable inside). A scratch directory of the host is bound at `/navd-test`, and
/// `dist/` (the Debian packages) at `/dist`.
final class BootedSystem: @unchecked Sendable {
    /// The result of a command run inside.
    struct Output: CustomStringConvertible {
        var status: Int32
        var text: String
        var succeeded: Bool { status == 0 }
        var trimmed: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
        var description: String { "exit \(status): \(text)" }

        init(status: Int32, text: String) {
            self.status = status
            self.text = text
        }

        /// From a wait status: the exit code, or 128 + the signal that ended the process (as shells say).
        init(waitStatus: Int32, text: String) {
            self.init(status: (waitStatus & 0x7f) == 0 ? (waitStatus >> 8) & 0xff : 128 + (waitStatus & 0x7f), text: text)
        }
    }

    /// The host directory seen inside as `/navd-test`.
    let scratch: URL
    private let nspawn: ExternalProcess
    /// The container's PID 1 (systemd), as the host sees it.
    let leader: pid_t

    /// Boots the cached root `name` and waits until systemd reports the system running.
    init(root name: String = "bookworm") async throws {
        let root = try SystemFixtures.root(name)
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("navd-system-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let machine = "navd-\(scratch.lastPathComponent.suffix(8))"
        // As Debian 12 boots on a vehicle: the unified cgroup hierarchy, and the bpf() call systemd attaches its
        // device filters with (DevicePolicy=); without them systemd in a container cannot enforce device access.
        nspawn = try ExternalProcess(
            "systemd-nspawn",
            [
                "--directory=\(root)", "--volatile=overlay", "--boot", "--register=no", "--keep-unit", "--console=pipe", "--quiet",
                "--machine=\(machine)", "--system-call-filter=bpf", "--bind=\(scratch.path):/navd-test",
                "--bind-ro=\(SystemFixtures.distDirectory):/dist",
            ],
            environment: ["SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"])
        SystemFixtures.recordContainer(pid: nspawn.pid)
        leader = try await Self.findLeader(of: nspawn)
        // Right after PID 1 starts, systemctl may not reach it yet ("offline", "Failed to connect to bus"): ask
        // again until the boot has settled.
        let settled: Set<String> = ["running", "degraded", "maintenance", "stopping"]
        var state = try run("systemctl is-system-running --wait", timeout: 90)
        let deadline = Date().addingTimeInterval(60)
        while !settled.contains(state.trimmed), Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            state = try run("systemctl is-system-running --wait", timeout: 90)
        }
        if state.trimmed != "running" {
            let failed = (try? run("systemctl --failed --no-legend --plain").text) ?? ""
            Issue.record("the container's systemd says \(state.trimmed); failed units: \(failed)")
        }
    }

    /// systemd-nspawn's child that runs systemd (PID 1 inside).
    private static func findLeader(of nspawn: ExternalProcess) async throws -> pid_t {
        for _ in 0..<300 {
            guard nspawn.isRunning else {
                Issue.record("systemd-nspawn exited while booting: \(nspawn.output.suffix(2000))")
                throw CancellationError()
            }
            for child in children(of: nspawn.pid) {
                // The container's init, once it has exec'd systemd (before that it is nspawn's own fork).
                if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/exe"), exe.hasSuffix("/systemd") {
                    return child
                }
                for grandchild in children(of: child) {
                    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(grandchild)/exe"), exe.hasSuffix("/systemd") {
                        return grandchild
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("systemd never started in the container: \(nspawn.output.suffix(2000))")
        throw CancellationError()
    }

    private static func children(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    /// The arguments that run `command` with `/bin/sh` inside the container (all its namespaces, its root).
    private func insideArguments(_ command: String, user: String?) -> [String] {
        let shell = user.map { ["/usr/sbin/runuser", "-u", $0, "--", "/bin/sh", "-c", command] } ?? ["/bin/sh", "-c", command]
        return ["--target", "\(leader)", "--all", "-r", "-w", "--", "/usr/bin/env", "-i",
                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "HOME=/root", "SYSTEMD_PAGER=",
                "SYSTEMD_COLORS=0"] + shell
    }

    /// Runs a shell command inside (as root, or as `user`) and waits up to `timeout` seconds for it.
    @discardableResult
    func run(_ command: String, user: String? = nil, timeout: Double = 60) throws -> Output {
        let process = try ExternalProcess("nsenter", insideArguments(command, user: user))
        guard let status = process.waitForExit(timeout: timeout) else {
            process.stop(signal: SIGKILL)
            Issue.record("timed out after \(Int(timeout)) s inside the container: \(command)\n\(process.output.suffix(2000))")
            throw CancellationError()
        }
        return Output(waitStatus: status, text: process.output)
    }

    /// Runs a command that must succeed; its output.
    @discardableResult
    func must(_ command: String, user: String? = nil, timeout: Double = 60, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let output = try run(command, user: user, timeout: timeout)
        guard output.succeeded else {
            Issue.record("inside the container, `\(command)` failed: \(output)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return output.text
    }

    /// Starts a long-running command inside (a client that watches navd); stop it or let it exit.
    func start(_ command: String, user: String? = nil) throws -> ExternalProcess {
        try ExternalProcess("nsenter", insideArguments(command, user: user))
    }

    /// Writes `contents` to `path` inside the container (mode `mode`, owned by root).
    func write(_ contents: String, to path: String, mode: String = "0644") throws {
        let name = "file-\(UUID().uuidString)"
        try contents.write(to: scratch.appendingPathComponent(name), atomically: true, encoding: .utf8)
        try must("mkdir -p \"$(dirname '\(path)')\" && install -m \(mode) /navd-test/\(name) '\(path)' && rm /navd-test/\(name)")
    }

    /// A property of a unit (`systemctl show -p NAME --value`).
    func property(_ name: String, of unit: String = "navd.service") throws -> String {
        try must("systemctl show -p \(name) --value \(unit)").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls `condition` every 200 ms for up to `timeout` seconds; true once it holds.
    func waitUntil(timeout: Double, _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return try condition()
    }

    /// Powers the container off (systemd shuts down cleanly) and removes the scratch directory.
    func shutdown() {
        _ = try? run("systemctl --no-block poweroff", timeout: 10)
        if nspawn.waitForExit(timeout: 30) == nil { nspawn.stop(signal: SIGKILL) }
        SystemFixtures.forgetContainer(pid: nspawn.pid)
        try? FileManager.default.removeItem(at: scratch)
    }
}
