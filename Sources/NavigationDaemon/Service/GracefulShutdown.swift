import Synchronization

/// One service's graceful-shutdown signal: fired once by ``DaemonServiceGroup`` when it is that service's turn to
/// stop; the handlers the service registered (``withGracefulShutdownHandler(operation:onGracefulShutdown:)``) run
/// then, on the thread that fired it.
final class GracefulShutdown: Sendable {
    private struct State {
        var fired = false
        var nextId = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    /// The signal of the service the current task belongs to (nil outside a ``DaemonServiceGroup``: a service run
    /// on its own, as tests do, stops by task cancellation only).
    @TaskLocal static var current: GracefulShutdown?

    private let state = Mutex(State())

    /// Runs every registered handler once; a handler registered later runs at registration.
    func fire() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.handlers = [:] }
            return state.handlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler() }
    }

    /// The handler's token for ``remove(_:)``; nil when the shutdown had already fired (the handler ran at once).
    fileprivate func add(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let token = state.withLock { state -> Int? in
            guard !state.fired else { return nil }
            defer { state.nextId += 1 }
            state.handlers[state.nextId] = handler
            return state.nextId
        }
        if token == nil { handler() }
        return token
    }

    fileprivate func remove(_ token: Int) {
        _ = state.withLock { $0.handlers.removeValue(forKey: token) }
    }
}

/// Runs `operation`; if the service's graceful shutdown comes while it runs (or came before), `onGracefulShutdown`
/// runs once, and should make `operation` return (close a listener, finish a stream). Outside a
/// ``DaemonServiceGroup`` it only runs `operation`.
func withGracefulShutdownHandler<T>(
    operation: () async throws -> T, onGracefulShutdown handler: @escaping @Sendable () -> Void
) async rethrows -> T {
    guard let shutdown = GracefulShutdown.current, let token = shutdown.add(handler) else { return try await operation() }
    defer { shutdown.remove(token) }
    return try await operation()
}
