import Foundation
import SystemSupport
import Testing
import TestSupport

@testable import NavigationDaemon

/// When navd holds idle CPUs awake (``WakeWindows``, ``EngineCadence/isLocal``), and the kernel request that does
/// it (``CPUWakeLatency``, on this machine's /dev/cpu_dma_latency).
@Suite(.serialized) struct WakeWindowsTests {
    static let millisecond: Int64 = 1_000_000

    // MARK: Windows

    @Test(arguments: WakeWindows.Reason.allCases)
    func aWindowHoldsUntilClosedOrItsLongestHoldHasPassed(_ reason: WakeWindows.Reason) {
        var windows = WakeWindows()
        #expect(!windows.isOpen)
        #expect(windows.nextEnd == nil)
        windows.open(reason, now: 10 * Self.millisecond)
        #expect(windows.isOpen)
        let end = 10 * Self.millisecond + WakeWindows.longest(reason)
        #expect(windows.nextEnd == end)
        windows.expire(now: end - 1)
        #expect(windows.isOpen, "still open a nanosecond before its end")
        windows.expire(now: end)
        #expect(!windows.isOpen, "closed at its end")
        windows.open(reason, now: 0)
        windows.close(reason)
        #expect(!windows.isOpen, "closed by what it waited for")
    }

    @Test func windowsCloseOnTheirOwnAndReopeningExtends() {
        var windows = WakeWindows()
        windows.open(.answer, now: 0)
        windows.open(.fix, now: 5 * Self.millisecond)
        #expect(windows.nextEnd == 25 * Self.millisecond, "the fix's 20 ms end comes before the answer's 50 ms")
        windows.close(.fix)
        #expect(windows.isOpen, "the answer's window is still open")
        #expect(windows.nextEnd == 50 * Self.millisecond)
        windows.open(.answer, now: 40 * Self.millisecond)
        #expect(windows.nextEnd == 90 * Self.millisecond, "opened again: extended")
        windows.expire(now: 60 * Self.millisecond)
        #expect(windows.isOpen)
        windows.close(.answer)
        #expect(!windows.isOpen)
    }

    @Test(arguments: [Int64.max, Int64.max - 1, Int64.min])
    func aClockAtItsEndsDoesNotTrap(_ now: Int64) {
        var windows = WakeWindows()
        windows.open(.fix, now: now)
        #expect(windows.isOpen)
        windows.expire(now: now)
        #expect(windows.isOpen == (now != Int64.max), "a window that cannot end later than now is over at once")
    }

    /// A local engine's whole exchange is held for; one whose fastest answer takes longer only from its rehearsal.
    @Test(arguments: [([Int64](), true), ([4, 6], true), ([49], true), ([50], false), ([120, 300], false), ([400, 8], true)])
    func anEngineIsLocalWhenItsFastestAnswerComesWithinTheHold(_ answers: [Int64], _ local: Bool) {
        var cadence = EngineCadence()
        for answer in answers { cadence.answered(after: answer * Self.millisecond) }
        #expect(cadence.isLocal == local)
    }

    // MARK: The kernel's request

    @Test func aMissingDeviceIsRefusedWithItsReason() {
        guard case .failure(let error) = CPUWakeLatency.open(path: "/nonexistent/cpu_dma_latency") else {
            Issue.record("a missing device was opened")
            return
        }
        #expect(error.description == "/nonexistent/cpu_dma_latency: No such file or directory")
    }

    /// The system's limit is the kernel's default: no other process holds a request at 0 µs now (a navd of a test
    /// before, killed as it ended, may take a moment to go; one left idle holds no constraint).
    static func requireNoConstraint() throws {
        for _ in 0..<20 where CPUWakeLatency.currentLimit() != noConstraint { usleep(100_000) }
        try #require(
            CPUWakeLatency.currentLimit() == noConstraint,
            "the CPU latency limit is \(String(describing: CPUWakeLatency.currentLimit())) µs, held by \(DeviceHolders.others(of: CPUWakeLatency.devicePath))")
    }

    static let noConstraint: Int32 = 2_000_000_000

    /// On this machine's kernel: a request held at 0 µs is the system's limit at once; let go, the limit is the
    /// kernel's default again.
    @Test func aHeldRequestIsTheSystemsLimitAndLettingGoEndsIt() throws {
        try Self.requireNoConstraint()
        let request = try CPUWakeLatency.open().get()
        #expect(CPUWakeLatency.currentLimit() == Self.noConstraint, "opened, no constraint yet")
        request.hold(true)
        #expect(request.isHeld)
        #expect(CPUWakeLatency.currentLimit() == 0)
        request.hold(true)
        #expect(CPUWakeLatency.currentLimit() == 0, "held twice: still one request")
        request.hold(false)
        #expect(!request.isHeld)
        #expect(CPUWakeLatency.currentLimit() == Self.noConstraint)
        request.hold(true)
        #expect(CPUWakeLatency.currentLimit() == 0)
    }

    @Test func aRequestHeldWhenItsOwnerGoesIsDropped() throws {
        try Self.requireNoConstraint()
        do {
            let request = try CPUWakeLatency.open().get()
            request.hold(true)
            #expect(CPUWakeLatency.currentLimit() == 0)
        }
        #expect(CPUWakeLatency.currentLimit() == Self.noConstraint, "the descriptor closed with its owner")
    }
}
