import CNavdSystem
import FoundationEssentials
import Glibc
import Logging

/// sd_notify without libsystemd: datagrams such as `READY=1` to the socket named by `$NOTIFY_SOCKET`
/// (sd_notify(3)). Without `$NOTIFY_SOCKET` (not started by systemd) every call does nothing.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?
    /// The watchdog interval systemd expects pings within (`$WATCHDOG_USEC`), when it is for this process.
    public let watchdogInterval: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        var interval: Duration?
        if let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 {
            // WATCHDOG_PID, when present, must be ours (a shell wrapper could have inherited it).
            if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() {
                interval = nil
            } else {
                interval = .microseconds(usec)
            }
        }
        watchdogInterval = interval
    }

    public var isEnabled: Bool { socketPath != nil }

    /// Sends `message` (newline-separated `KEY=VALUE` assignments). Failures are logged, never fatal.
    public func notify(_ message: String, logger: Logger? = nil) {
        guard let socketPath else { return }
        let result = navd_sd_notify(socketPath, message)
        if result < 0 {
            logger?.warning("sd_notify failed", metadata: ["socket": "\(socketPath)", "error": "\(String(cString: strerror(-result)))"])
        }
    }

    public func ready(status: String) { notify("READY=1\nSTATUS=\(status)") }
    public func status(_ text: String) { notify("STATUS=\(text)") }
    public func watchdog() { notify("WATCHDOG=1") }
    public func stopping() { notify("STOPPING=1\nSTATUS=stopping") }
    public func reloading() { notify("RELOADING=1") }
}
