import Foundation
import Testing

/// A real program started by a test (gpsfake, gpsd, socat), in its own process group so that stopping it also
/// stops whatever it started (gpsfake's gpsd), with output in a log file for failure messages.
public final class ExternalProcess: @unchecked Sendable {
    public let pid: pid_t
    public let log: URL
    private var exited = false

    /// Starts `tool` (an absolute path, or looked up on PATH) with `environment` added to this process's;
    /// records an issue and throws when it is not installed.
    public init(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        guard let path = tool.hasPrefix("/") ? tool : Self.find(tool) else {
            Issue.record("\(tool) is not installed: run scripts/setup (Debian packages gpsd, gpsd-clients, socat)")
            throw CancellationError()
        }
        log = FileManager.default.temporaryDirectory.appendingPathComponent("navd-test-\((tool as NSString).lastPathComponent)-\(UUID().uuidString).log")
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
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            Issue.record("cannot start \(tool): \(String(cString: strerror(result)))")
            throw CancellationError()
        }
        pid = child
    }

    public static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    public var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    public var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exited = true
            exitStatus = status
        }
        return !exited
    }

    /// Stops the process group: `signal`, then SIGKILL after 3 s.
    public func stop(signal: Int32 = SIGTERM) {
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

    /// Sends `signal` to the process alone and waits up to `timeout` seconds for it to exit; returns its wait
    /// status, or nil if it is still running.
    public func signalAndWait(_ signal: Int32, timeout: Double) -> Int32? {
        kill(pid, signal)
        return waitForExit(timeout: timeout)
    }

    /// Waits up to `timeout` seconds for the process to exit; returns its wait status, or nil.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var status: Int32 = 0
            if !exited, waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                exitStatus = status
                return status
            }
            if exited { return exitStatus }
            usleep(20_000)
        }
        return nil
    }

    private var exitStatus: Int32?

    /// Leave what the program started running when this object goes away (a script that starts a server).
    public var leavesChildrenRunning = false

    deinit {
        if leavesChildrenRunning, !isRunning {
            try? FileManager.default.removeItem(at: log)
            return
        }
        stop()
        try? FileManager.default.removeItem(at: log)
    }
}

/// A TCP connection to `port` on 127.0.0.1: its descriptor (the caller closes it), or nil when refused.
public func loopbackConnection(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(fd)
        return nil
    }
    return fd
}

/// A free TCP port on 127.0.0.1.
public func freePort() -> Int {
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

/// Waits up to `timeout` seconds until something accepts TCP connections on 127.0.0.1:`port` (a server a test
/// started); true once it does.
public func waitForTCPListener(port: Int, timeout: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if let fd = loopbackConnection(port: port) {
            close(fd)
            return true
        }
        usleep(50_000)
    }
    return false
}

/// Calls `body` with a `sockaddr_un` for the Unix socket at `path` (connect, bind).
public func withUnixSocketAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}
