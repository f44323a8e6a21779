import Foundation
import Synchronization

/// The processes the benchmark started and has not stopped yet, by pid: ``fail(_:)`` stops them, so that a
/// failed run leaves no navd, gpsd or socat behind.
let startedProcesses = Mutex<Set<pid_t>>([])

/// Kills every process the benchmark started and has not stopped (on a failure).
func killStartedProcesses() {
    for pid in startedProcesses.withLock({ $0 }) { kill(pid, SIGKILL) }
}

/// Runs a tool to its end and returns what it printed (stdout and stderr).
func runTool(_ path: String, _ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { fail("cannot run \(path): \(error)") }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self)
}

/// A process the benchmark started (navd, gpsd, socat); stopped by pid when the benchmark is done with it.
final class BenchProcess: @unchecked Sendable {
    let process = Process()
    let logPath: String

    /// Starts `path` with its output in `logPath`.
    init(_ path: String, _ arguments: [String], environment: [String: String] = [:], logPath: String) {
        self.logPath = logPath
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = log
        process.standardError = log
        do { try process.run() } catch { fail("cannot start \(path): \(error)") }
        let pid = process.processIdentifier
        startedProcesses.withLock { _ = $0.insert(pid) }
    }

    var pid: pid_t { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then SIGKILL after 3 s.
    func stop() {
        let pid = self.pid
        defer { startedProcesses.withLock { _ = $0.remove(pid) } }
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = monotonicSeconds() + 3
        while process.isRunning && monotonicSeconds() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// Resident memory now, in MB (VmRSS).
    var residentMegabytes: Double { statusMegabytes("VmRSS") }

    /// One of /proc/PID/status's memory lines in MB: `RssAnon` (heap, stacks: memory only this process holds),
    /// `RssFile` (pages of the binary and libraries mapped from the page cache, shared and reclaimable).
    func statusMegabytes(_ field: String) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("\(field):") } ?? ""
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
        return kilobytes / 1024
    }

    /// CPU time used so far (user + system), in seconds.
    var cpuSeconds: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // Fields after the command name (which may hold spaces) start at ") ".
        guard let close = stat.lastIndex(of: ")") else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the state field.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// A pair of connected ptys (socat): the receiver's end that navd or gpsd opens, and the end the benchmark writes
/// NMEA into.
final class PtyPair: @unchecked Sendable {
    let device: String
    let feeder: String
    private let socat: BenchProcess
    let feederFD: Int32

    init(directory: String, name: String) {
        device = "\(directory)/\(name)"
        feeder = "\(directory)/\(name)-feeder"
        socat = BenchProcess(
            "/usr/bin/socat", ["pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feeder)"], logPath: "\(directory)/socat-\(name).log")
        let deadline = monotonicSeconds() + 5
        while !FileManager.default.fileExists(atPath: feeder) || !FileManager.default.fileExists(atPath: device) {
            if monotonicSeconds() > deadline { fail("socat made no ptys within 5 s (apt-get install socat)") }
            usleep(10_000)
        }
        feederFD = open(feeder, O_RDWR | O_NOCTTY)
        if feederFD < 0 { fail("cannot open \(feeder): \(String(cString: strerror(errno)))") }
    }

    /// Writes `text` in one write (one epoch arrives at once, as from a receiver's UART buffer).
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Foundation.write(feederFD, $0.baseAddress, $0.count) }
    }

    func close() {
        Foundation.close(feederFD)
        socat.stop()
    }
}

/// A free TCP port on 127.0.0.1 (the kernel picks it; the benchmark uses it at once).
func freeLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// 127.0.0.1:`port`.
func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
}

/// Connects `fd` to 127.0.0.1:`port`; true when connected.
func connectLoopback(_ fd: Int32, port: Int) -> Bool {
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

/// A stream socket connected to the Unix socket at `path` (navd's); fails the benchmark when it cannot connect.
func connectUnixSocket(_ path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (i, byte) in Array(path.utf8).prefix(buffer.count - 1).enumerated() { buffer[i] = byte }
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if result != 0 { fail("cannot connect to \(path): \(String(cString: strerror(errno)))") }
    return fd
}
