import Foundation
import Testing
import TestSupport

/// One shell command in a cached Debian root, without booting it (systemd-nspawn runs the command as the
/// container's PID 1), under a tmpfs overlay so the cache stays clean. `binds` are host paths mounted read-only
/// inside (host path: container path); the host network is shared.
enum RootCommand {
    static func run(in root: String, binds: [String: String] = [:], timeout: Double = 300, _ command: String) throws -> BootedSystem.Output {
        let directory = try SystemFixtures.root(root)
        let bindArguments = binds.map { "--bind-ro=\($0.key):\($0.value)" }
        let process = try ExternalProcess(
            "systemd-nspawn",
            ["--directory=\(directory)", "--volatile=overlay", "--register=no", "--keep-unit", "--console=pipe", "--quiet",
             "--machine=navd-cmd-\(UUID().uuidString.prefix(8))"]
                + bindArguments + ["--", "/bin/sh", "-c", command])
        SystemFixtures.recordContainer(pid: process.pid)
        defer { SystemFixtures.forgetContainer(pid: process.pid) }
        guard let status = process.waitForExit(timeout: timeout) else {
            process.stop(signal: SIGKILL)
            Issue.record("timed out after \(Int(timeout)) s in the \(root) root: \(command)\n\(process.output.suffix(3000))")
            throw CancellationError()
        }
        return BootedSystem.Output(waitStatus: status, text: process.output)
    }
}
