import DequeModule
import NavigationProtocol
import Synchronization

/// The messages waiting to be written to one client. The navigation loop only ever enqueues (never waits), so
/// a client that stops reading cannot slow it down. A newer `trip_state` replaces a queued one (stale positions
/// are worth nothing); every other message is kept. When more than `limit` messages are queued the client is
/// too slow: the queue is dropped, a final `slow_client` error is queued, and the connection closes after it.
public final class ClientOutbox: Sendable {
    public enum Next: Sendable {
        case lines([[UInt8]])
        /// Write these last lines, then close.
        case closing([[UInt8]])
    }

    private struct Entry {
        var line: [UInt8]
        var replaceable: EventType?
    }

    private struct State {
        var queue = Deque<Entry>()
        var closing = false
        var finalLines: [[UInt8]] = []
        var waiter: CheckedContinuation<Void, Never>?
        var dropped = 0
        var overflowed = false
    }

    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        self.limit = limit
    }

    /// Queues a message. Returns false when the client is (now) being disconnected.
    @discardableResult
    public func enqueue(_ message: ServerMessage) -> Bool {
        enqueue(line: message.line, eventType: message.eventType)
    }

    /// Queues an already serialized message (an event serialized once for every client).
    @discardableResult
    public func enqueue(line: [UInt8], eventType: EventType?) -> Bool {
        let waiter: CheckedContinuation<Void, Never>?
        let accepted: Bool
        (waiter, accepted) = state.withLock { state in
            guard !state.closing else { return (nil, false) }
            if let type = eventType, type.isReplaceable, let index = state.queue.lastIndex(where: { $0.replaceable == type }) {
                state.queue.remove(at: index)
                state.dropped += 1
            }
            if state.queue.count >= limit {
                state.queue.removeAll()
                state.closing = true
                state.overflowed = true
                state.finalLines = [
                    ServerMessage.error(
                        id: nil, ProtocolError(.slowClient, "more than \(limit) messages were waiting for this client; disconnecting")
                    ).line
                ]
                defer { state.waiter = nil }
                return (state.waiter, false)
            }
            state.queue.append(Entry(line: line, replaceable: eventType?.isReplaceable == true ? eventType : nil))
            defer { state.waiter = nil }
            return (state.waiter, true)
        }
        waiter?.resume()
        return accepted
    }

    /// Closes after the queued messages and `finalMessages` are written.
    public func close(after finalMessages: [ServerMessage] = []) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.closing else { return nil }
            state.closing = true
            state.finalLines = state.queue.map(\.line) + finalMessages.map(\.line)
            state.queue.removeAll()
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// True once the queue overflowed (the client is too slow).
    public var overflowed: Bool { state.withLock { $0.overflowed } }

    /// True once the connection is being closed (slow client, shutdown, oversized line).
    public var isClosing: Bool { state.withLock { $0.closing } }

    /// How many trip_state messages were replaced before this client read them.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// Waits for messages. One writer task calls this in a loop.
    public func next() async -> Next {
        while true {
            let taken: Next? = state.withLock { state in
                if !state.queue.isEmpty {
                    defer { state.queue.removeAll() }
                    return .lines(state.queue.map(\.line))
                }
                if state.closing {
                    defer { state.finalLines.removeAll() }
                    return .closing(state.finalLines)
                }
                return nil
            }
            if let taken { return taken }
            if Task.isCancelled { return .closing([]) }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if !state.queue.isEmpty || state.closing { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    state.closing = true
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }
}
