import Glibc
import Logging
import Synchronization
import Testing

@testable import NavigationDaemon

/// navd's service group with real signals (SIGUSR2 here, so that nothing else in the test process is stopped):
/// the graceful shutdown runs the services' handlers last service first, each after the next one finished; a
/// service that fails or returns on its own ends the others by cancellation.
@Suite("daemon service group")
struct DaemonServiceGroupTests {
    enum Behavior: Sendable, CustomTestStringConvertible {
        case waitForShutdown, fail, returnEarly
        var testDescription: String { "\(self)" }
    }

    struct ProbeError: Error {}

    /// Records what happens to it in a log shared by the services of one group.
    final class Probe: DaemonService {
        let name: String
        let behavior: Behavior
        let shared: Shared

        init(_ name: String, _ behavior: Behavior, shared: Shared) {
            (self.name, self.behavior, self.shared) = (name, behavior, shared)
        }

        func record(_ event: String) { shared.log.withLock { $0.append("\(event) \(name)") } }

        func run() async throws {
            record("start")
            shared.startedContinuation.yield()
            switch behavior {
            case .fail:
                throw ProbeError()
            case .returnEarly:
                return
            case .waitForShutdown:
                let (stopped, stop) = AsyncStream.makeStream(of: Void.self)
                await withGracefulShutdownHandler {
                    for await _ in stopped {}
                } onGracefulShutdown: { [self] in
                    record("shutdown")
                    stop.finish()
                }
                record(Task.isCancelled ? "cancelled" : "stopped")
            }
        }
    }

    final class Shared: Sendable {
        let log = Mutex<[String]>([])
        let started: AsyncStream<Void>
        let startedContinuation: AsyncStream<Void>.Continuation
        init() { (started, startedContinuation) = AsyncStream.makeStream(of: Void.self) }
        var events: [String] { log.withLock { $0 } }
    }

    private func group(_ behaviors: [Behavior], shared: Shared) -> DaemonServiceGroup {
        let services = behaviors.enumerated().map { index, behavior in
            DaemonServiceGroup.Entry(
                name: "service \(index)", service: Probe("\(index)", behavior, shared: shared))
        }
        return DaemonServiceGroup(services: services, logger: Logger(label: "test"), shutdownSignals: [SIGUSR2])
    }

    @Test("a signal shuts the services down one at a time, the last first")
    func signalShutsDownInReverseOrder() async throws {
        let shared = Shared()
        let group = group([.waitForShutdown, .waitForShutdown, .waitForShutdown], shared: shared)
        let running = Task { try await group.run() }
        var starts = 0
        for await _ in shared.started {
            starts += 1
            if starts == 3 { break }
        }
        // The signal's dispatch source may be armed a moment after the services start; a signal before that is
        // ignored, and one after the first is ignored by design: send until the shutdown begins (at most 2 s).
        for _ in 0..<200 where !shared.events.contains("shutdown 2") {
            kill(getpid(), SIGUSR2)
            try await Task.sleep(for: .milliseconds(10))
        }
        try await running.value
        #expect(
            shared.events.dropFirst(3) == [
                "shutdown 2", "stopped 2", "shutdown 1", "stopped 1", "shutdown 0", "stopped 0",
            ])
    }

    @Test("a service that ends on its own ends the daemon, and the others are cancelled", arguments: [Behavior.fail, .returnEarly])
    func serviceEndingEndsTheGroup(_ ending: Behavior) async throws {
        let shared = Shared()
        let group = group([.waitForShutdown, ending], shared: shared)
        await #expect {
            try await group.run()
        } throws: { error in
            switch ending {
            case .fail: error is ProbeError
            default: (error as? DaemonServiceError)?.description == "the service 1 stopped on its own"
            }
        }
        #expect(shared.events.contains("cancelled 0"))
        #expect(!shared.events.contains("shutdown 0"))
    }

    @Test("a handler registered after the shutdown fired runs at once; outside a group none runs")
    func handlerAfterTheShutdown() async {
        let ran = Mutex<[String]>([])
        let shutdown = GracefulShutdown()
        shutdown.fire()
        await GracefulShutdown.$current.withValue(shutdown) {
            await withGracefulShutdownHandler {
                ran.withLock { $0.append("operation") }
            } onGracefulShutdown: {
                ran.withLock { $0.append("handler") }
            }
        }
        #expect(ran.withLock { $0 } == ["handler", "operation"])
        ran.withLock { $0 = [] }
        await withGracefulShutdownHandler {
            ran.withLock { $0.append("operation") }
        } onGracefulShutdown: {
            ran.withLock { $0.append("handler") }
        }
        #expect(ran.withLock { $0 } == ["operation"])
    }
}
