import Foundation
import NavigationCore
import Synchronization
import SystemSupport
import Testing
import TestSupport

/// The real navd holding idle CPUs awake (`performance.hold_cpus_awake`, docs/daemon.md *Idle CPUs held awake*):
/// only in the milliseconds before a fix or a route answer is due, let go between them and when the receiver
/// falls silent, and not at all when configured off. Read from the kernel's own limit (/dev/cpu_dma_latency).
@Suite(.serialized)
struct WakeHoldDaemonTests {
    static let noConstraint: Int32 = 2_000_000_000

    /// Reads the system's CPU latency limit every 0.2 ms on a thread of its own until stopped (at most 60 s):
    /// how many readings were 0 µs (held) and how many were not.
    final class LimitSampler: @unchecked Sendable {
        private let counts = Mutex((held: 0, free: 0, stop: false))
        private let done = DispatchSemaphore(value: 0)

        init() {
            Thread { [self] in
                let deadline = Date().addingTimeInterval(60)
                while Date() < deadline {
                    let limit = CPUWakeLatency.currentLimit()
                    let stop = counts.withLock { counts in
                        if limit == 0 { counts.held += 1 } else { counts.free += 1 }
                        return counts.stop
                    }
                    if stop { break }
                    usleep(200)
                }
                done.signal()
            }.start()
        }

        func stop() -> (held: Int, free: Int) {
            counts.withLock { $0.stop = true }
            done.wait()
            return counts.withLock { ($0.held, $0.free) }
        }
    }

    /// The system's limit is the kernel's default: no other process holds a request at 0 µs (a navd of a test
    /// before, killed as it ended, may take a moment to go; one left idle holds no constraint).
    static func requireNoOtherHolder() throws {
        try #require(CPUWakeLatency.currentLimit() != nil, "\(CPUWakeLatency.devicePath) cannot be read: the tests run as root on Linux")
        for _ in 0..<20 where CPUWakeLatency.currentLimit() != noConstraint { usleep(100_000) }
        try #require(
            CPUWakeLatency.currentLimit() == noConstraint,
            "the CPU latency limit is \(String(describing: CPUWakeLatency.currentLimit())) µs, held by \(DeviceHolders.others(of: CPUWakeLatency.devicePath))")
    }

    @Test func idleCPUsAreHeldAwakeAroundFixesAndARouteAnswerAndLetGoBetween() async throws {
        try Self.requireNoOtherHolder()
        let (fixes, pty, navd, client, written) = try await FieldDaemonTests.navigatingAtTenHertz(seed: 21)
        let pid = try #require(navd.process?.pid)
        #expect(DeviceHolders.holds(pid: pid, path: CPUWakeLatency.devicePath), "navd does not hold the device open")
        #expect(navd.log.contains("holding idle CPUs awake"), "\(navd.log.suffix(2000))")

        // 4 s of fixes at 10 Hz: windows open before each fix (after its rehearsal) and close once it is written.
        let driving = LimitSampler()
        for fix in fixes[written..<(written + 40)] {
            FieldDaemonTests.write(fix, to: pty)
            client.drain(for: 0.1)
        }
        let whileDriving = driving.stop()
        #expect(whileDriving.held > 0, "never held while fixes came: \(whileDriving)\n\(navd.log.suffix(2000))")
        #expect(whileDriving.free > 3 * whileDriving.held, "held most of the time, not only before fixes: \(whileDriving)")

        // The receiver falls silent: let go within the fix window's longest hold (20 ms), and stays let go.
        client.drain(for: 0.2)
        let silent = LimitSampler()
        client.drain(for: 0.5)
        let whileSilent = silent.stop()
        #expect(whileSilent.held == 0, "held with no fix due: \(whileSilent)")

        // A route answer from the local Valhalla is held for from the request on, and let go after it.
        let answering = LimitSampler()
        let reply = client.command(DeviatingDrive.navigateCommand(id: "again"), id: "again")
        #expect(reply?.type == "reply", "\(String(describing: reply))")
        #expect(client.waitFor(timeout: 10) { $0.type == "route" } != nil)
        let whileAnswering = answering.stop()
        #expect(whileAnswering.held > 0, "never held while the engine answered: \(whileAnswering)")
        client.drain(for: 0.1)
        #expect(CPUWakeLatency.currentLimit() == Self.noConstraint, "still held after the route came")
    }

    @Test func configuredOffNavdLeavesTheDeviceAlone() async throws {
        try Self.requireNoOtherHolder()
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(
            device: pty.devicePath, valhalla: try Engines.valhallaURL(), extra: "[performance]\nhold_cpus_awake = false")
        try navd.start()
        let pid = try #require(navd.process?.pid)
        #expect(!DeviceHolders.holds(pid: pid, path: CPUWakeLatency.devicePath))
        #expect(!navd.log.contains("holding idle CPUs awake"))
        #expect(CPUWakeLatency.currentLimit() == Self.noConstraint)
    }
}
