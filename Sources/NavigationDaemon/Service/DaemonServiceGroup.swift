import Glibc
import Logging

/// A long-running part of navd: the socket server, the navigation loop, the SIGHUP reloader, the web server.
public protocol DaemonService: Sendable {
    /// Runs until the service is done: after its graceful shutdown
    /// (``withGracefulShutdownHandler(operation:onGracefulShutdown:)``) or its task's cancellation. Returning
    /// before either, or throwing, ends the daemon.
    func run() async throws
}

/// Runs navd's services side by side until SIGTERM or SIGINT, then shuts them down gracefully one at a time, the
/// last first, each only after the one after it has finished (the web server and the reloader, then the
/// navigation loop, which saves the journal, then the socket, which says `bye` to the clients). A service that
/// throws, or returns before the shutdown, ends the others by task cancellation, and ``run()`` throws.
struct DaemonServiceGroup {
    struct Entry {
        var name: String
        var service: any DaemonService
    }

    var services: [Entry]
    var logger: Logger
    var shutdownSignals: [Int32] = [SIGTERM, SIGINT]

    private enum Ended: Sendable {
        case service(Int, (any Error)?)
        case signal(Int32)
        /// The signal stream ended: only when the group is being cancelled.
        case signalsEnded
    }

    func run() async throws {
        let shutdowns = services.map { _ in GracefulShutdown() }
        let signals = UnixSignalStream(shutdownSignals)
        try await withThrowingTaskGroup(of: Ended.self) { group in
            for (index, entry) in services.enumerated() {
                let service = entry.service
                group.addTask {
                    do {
                        try await GracefulShutdown.$current.withValue(shutdowns[index]) { try await service.run() }
                        return .service(index, nil)
                    } catch {
                        return .service(index, error)
                    }
                }
            }
            group.addTask {
                for await number in signals.signals { return .signal(number) }
                return .signalsEnded
            }
            defer { group.cancelAll() }
            switch try await group.next() {
            case .signal(let number):
                logger.info("shutting down", metadata: ["signal": "\(Self.name(of: number))"])
                try await shutDown(shutdowns, group: &group)
            case .service(let index, let error):
                if let error { throw error }
                throw DaemonServiceError(description: "the \(services[index].name) stopped on its own")
            case .signalsEnded, nil:
                return
            }
        }
    }

    /// Fires each service's graceful shutdown, the last service first, and waits for it to finish before the next.
    private func shutDown(_ shutdowns: [GracefulShutdown], group: inout ThrowingTaskGroup<Ended, any Error>) async throws {
        var finished: Set<Int> = []
        for index in services.indices.reversed() {
            shutdowns[index].fire()
            while !finished.contains(index), let ended = try await group.next() {
                switch ended {
                case .service(_, let error?):
                    throw error
                case .service(let done, nil):
                    finished.insert(done)
                case .signal, .signalsEnded:
                    continue  // the signal task ends after the first signal; nothing else can arrive here
                }
            }
        }
    }

    private static func name(of signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(signal)"
        }
    }
}

public struct DaemonServiceError: Error, CustomStringConvertible {
    public var description: String
}
