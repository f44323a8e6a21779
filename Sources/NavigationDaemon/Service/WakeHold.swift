import NIOCore
import SystemSupport

/// Holds idle CPUs awake (``CPUWakeLatency``) while one of the navigation loop's ``WakeWindows`` is open, and
/// lets them sleep once every window has closed or run out.
///
/// Why: on a machine whose idle CPUs sleep (a vehicle board's deep C-states, a virtual machine's halted vCPU), a
/// thread woken by the receiver's bytes, the engine's answer or a client's line waits for its CPU to come back,
/// and so do the engine's own threads; that wait was most of what navd's fixes and routes took beyond their work
/// (docs/performance.md, *Idle CPUs held awake*).
///
/// Confined to the navigation loop's event loop: every call comes from it, and the expiry runs on it.
final class WakeHold: @unchecked Sendable {
    private let request: CPUWakeLatency
    private let eventLoop: any EventLoop
    private var windows = WakeWindows()
    /// The expiry scheduled for the first window's end, and that end (nanoseconds).
    private var expiry: (end: Int64, task: Scheduled<Void>)?

    init(request: CPUWakeLatency, eventLoop: any EventLoop) {
        self.request = request
        self.eventLoop = eventLoop
    }

    /// Opens (or extends) `reason`'s window now.
    func open(_ reason: WakeWindows.Reason) {
        guard eventLoop.inEventLoop else { return }
        windows.open(reason, now: Self.now())
        apply()
    }

    /// Closes `reason`'s window (what it waited for has been handled).
    func close(_ reason: WakeWindows.Reason) {
        guard eventLoop.inEventLoop, windows.end(of: reason) != nil else { return }
        windows.close(reason)
        apply()
    }

    /// Whether idle CPUs are held awake now.
    var isHeld: Bool { request.isHeld }

    private func apply() {
        windows.expire(now: Self.now())
        request.hold(windows.isOpen)
        let end = windows.nextEnd
        guard end != expiry?.end else { return }
        expiry?.task.cancel()
        expiry = end.map { end in
            (end, eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(clamping: end))) { [weak self] in
                self?.expiry = nil
                self?.apply()
            })
        }
    }

    private static func now() -> Int64 { Int64(clamping: NIODeadline.now().uptimeNanoseconds) }
}
