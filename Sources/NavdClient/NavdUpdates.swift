import FoundationEssentials
import Glibc
import NavigationProtocol

/// What a long-lived client sees: each (re)connection's hello, the events, and each loss of the connection.
public enum NavdUpdate: Sendable {
    case connected(Hello)
    case event(EventMessage)
    /// The connection is gone (or could not be made); the next try follows after a backoff.
    case disconnected(NavdClientError)
}

extension NavdConnection {
    /// navd's events for as long as the caller iterates, across navd restarts: connects to `path`, yields its
    /// hello and events, and after a lost connection tries again with a backoff from `retry.lowerBound` doubling
    /// to `retry.upperBound` seconds. A dashboard's main loop.
    public static func updates(path: String, retry: ClosedRange<Double> = 0.5...5) -> AsyncStream<NavdUpdate> {
        AsyncStream { continuation in
            let task = Task {
                var delay = retry.lowerBound
                while !Task.isCancelled {
                    do throws(NavdClientError) {
                        let connection = try await NavdConnection.connect(path: path)
                        delay = retry.lowerBound
                        continuation.yield(.connected(connection.hello))
                        for await event in connection.events { continuation.yield(.event(event)) }
                        connection.close()
                        if Task.isCancelled { break }
                        continuation.yield(.disconnected(.closed(reason: nil)))
                    } catch {
                        continuation.yield(.disconnected(error))
                    }
                    try? await Task.sleep(for: .seconds(delay))
                    delay = min(retry.upperBound, delay * 2)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
