#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A request to Linux's CPU latency QoS (`/dev/cpu_dma_latency`): while it is held at 0 µs, idle CPUs wait for
/// work by polling instead of entering a sleep state, so a thread woken by a receiver's bytes, a client's line or
/// an engine's answer runs at once rather than after the CPU (or, on a virtual machine, the host's scheduler)
/// brings it back. The kernel keeps the request for as long as the descriptor is open and drops it when the
/// process exits, however it exits.
///
/// Held only in short windows (navd: the few milliseconds before a fix or a route answer is due), because idle
/// CPUs that poll draw power.
public final class CPUWakeLatency: Sendable {
    public static let devicePath = "/dev/cpu_dma_latency"
    /// The kernel's value for "no constraint", µs (`PM_QOS_CPU_LATENCY_DEFAULT_VALUE`, 2000 s).
    static let noConstraint: Int32 = 2_000_000_000

    private let descriptor: Int32
    /// Whether the request is held at 0 µs now (the last value written).
    private let holding = Mutex(false)

    /// Opens a request (with no constraint until ``hold(_:)``); why it cannot, as a sentence: the device is
    /// missing (a kernel without it, a container), or this process may not write it (it is root's, 0600).
    public static func open(path: String = devicePath) -> Result<CPUWakeLatency, CPUWakeLatencyError> {
        let descriptor = Glibc.open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .failure(CPUWakeLatencyError(path: path, reason: String(cString: strerror(errno))))
        }
        let request = CPUWakeLatency(descriptor: descriptor)
        guard request.write(noConstraint) else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            return .failure(CPUWakeLatencyError(path: path, reason: "cannot write to it: \(reason)"))
        }
        return .success(request)
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Holds idle CPUs awake (`true`: 0 µs) or lets them sleep again (`false`: no constraint). A write only when
    /// the state changes (one system call).
    public func hold(_ awake: Bool) {
        holding.withLock { holding in
            guard holding != awake else { return }
            if write(awake ? 0 : Self.noConstraint) { holding = awake }
        }
    }

    /// Whether the request is held at 0 µs now.
    public var isHeld: Bool { holding.withLock { $0 } }

    /// Writes the request's value as the kernel reads it: a 4-byte integer, µs.
    private func write(_ microseconds: Int32) -> Bool {
        var value = microseconds
        return withUnsafeBytes(of: &value) { Glibc.write(descriptor, $0.baseAddress, $0.count) } == MemoryLayout<Int32>.size
    }

    /// The system's current CPU latency limit, µs (the strictest request held by any process), read from the
    /// device; nil when it cannot be read. For checks: opening the device to read it adds no constraint.
    public static func currentLimit(path: String = devicePath) -> Int32? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var value: Int32 = 0
        let count = withUnsafeMutableBytes(of: &value) { read(descriptor, $0.baseAddress, $0.count) }
        return count == MemoryLayout<Int32>.size ? value : nil
    }
}

/// Why a CPU latency request could not be opened.
public struct CPUWakeLatencyError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "\(path): \(reason)" }
}
