import CNavdSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A dedicated OS thread for blocking work (a serial port, gpsd's socket, a disk), outside Swift's cooperative
/// pool, whose threads must never block. What Foundation's `Thread` did, without linking Foundation.
public enum DetachedThread {
    /// Starts `body` on a new detached thread named `name` (Linux keeps the first 15 bytes, shown by `top -H`).
    /// `niceness` above 0: background work (the flight recorder's encoding) that yields the CPU to navigation on a
    /// busy two-core vehicle computer.
    public static func start(name: String, niceness: Int32 = 0, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(name: name, niceness: niceness, run: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                navd_set_thread_name(body.name)
                if body.niceness != 0 { _ = navd_set_thread_niceness(body.niceness) }
                body.run()
                return nil
            }, box)
        precondition(status == 0, "pthread_create failed with \(status)")
        pthread_detach(thread)
    }

    private final class Body {
        let name: String
        let niceness: Int32
        let run: @Sendable () -> Void
        init(name: String, niceness: Int32, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.niceness = niceness
            self.run = run
        }
    }
}
