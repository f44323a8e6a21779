import DequeModule
import NIOCore
import NavigationProtocol
import Synchronization

/// The messages waiting to be written to one client. The navigation loop only ever enqueues (never waits), so
/// a client that stops reading cannot slow it down. For a client that is behind, a newer `trip_state` replaces a
/// queued one (stale positions are worth nothing). Behind means the client does not read: its socket was full
/// when the writer last looked (``markSocketFull()``), or, whatever the cause, ``farBehind`` messages wait. A
/// client that reads gets every event, even when navd's own writer is late and a burst of events waits for it
/// (a reroute publishes several at once). Every other message is kept. When more than `limit` messages are
/// queued the client is too slow: the queue is dropped, a final `slow_client` error is queued, and the
/// connection closes after it.
///
/// The writer is woken, not polled: the first message queued after the writer found the queue empty calls the
/// `wake` handler once (the socket server's schedules a drain on the client's event loop), and the writer then
/// ``take()``s until nothing is left. One wake per batch, whatever the number of messages.
public final class ClientOutbox: Sendable {
    /// Lines as NIO buffers: an event's one buffer is shared by every client's outbox (copy-on-write, never
    /// written to), so a line is not copied per client.
    public enum Next: Sendable {
        /// One line: what a client that keeps up finds nearly every time (no array to allocate for it).
        case line(ByteBuffer)
        case lines([ByteBuffer])
        /// Write these last lines, then close.
        case closing([ByteBuffer])
    }

    private struct Entry {
        var line: ByteBuffer
        var replaceable: EventType?
    }

    private struct State {
        var queue = Deque<Entry>()
        var closing = false
        /// The final lines were taken: nothing more will come.
        var finished = false
        var finalLines: [ByteBuffer] = []
        var wake: (@Sendable () -> Void)?
        /// A wake is pending or the writer is draining: no new wake is needed.
        var scheduled = false
        var dropped = 0
        var overflowed = false
        /// The writer found the client's socket full (NIO's write buffer over its high-water mark) and has not
        /// written since.
        var socketFull = false

        /// The wake handler to call once the lock is released, if the writer needs one.
        mutating func wakeIfNeeded() -> (@Sendable () -> Void)? {
            guard !scheduled, let wake else { return nil }
            scheduled = true
            return wake
        }
    }

    public let limit: Int
    /// Messages waiting from which a client counts as behind even with room in its socket: a quarter of the
    /// limit, at least four.
    public let farBehind: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        self.limit = limit
        farBehind = max(4, limit / 4)
    }

    /// Sets who writes this outbox: `wake` is called (never under a lock, never twice before the writer took
    /// everything) when there is something to take. Called at once if something is already waiting.
    public func setWriter(wake: @escaping @Sendable () -> Void) {
        let wakeNow = state.withLock { state -> (@Sendable () -> Void)? in
            state.wake = wake
            state.scheduled = false
            return state.queue.isEmpty && !state.closing ? nil : state.wakeIfNeeded()
        }
        wakeNow?()
    }

    /// Forgets the writer (its connection closed): nothing wakes it any more, and the writer, which holds this
    /// outbox, is released.
    public func removeWriter() {
        state.withLock { state in
            state.wake = nil
            state.scheduled = true
        }
    }

    /// Queues a message. Returns false when the client is (now) being disconnected.
    @discardableResult
    public func enqueue(_ message: ServerMessage) -> Bool {
        enqueue(line: message.line, eventType: message.eventType)
    }

    /// Queues an already serialized message for this client alone (a reply).
    @discardableResult
    public func enqueue(line: [UInt8], eventType: EventType?) -> Bool {
        enqueue(buffer: ByteBuffer(bytes: line), eventType: eventType)
    }

    /// Queues a serialized message whose buffer other clients' outboxes share (an event serialized once).
    @discardableResult
    public func enqueue(buffer line: ByteBuffer, eventType: EventType?) -> Bool {
        let (wake, accepted) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
            guard !state.closing else { return (nil, false) }
            if let type = eventType, type.isReplaceable, state.socketFull || state.queue.count >= farBehind,
                let index = state.queue.lastIndex(where: { $0.replaceable == type })
            {
                state.queue.remove(at: index)
                state.dropped += 1
            }
            if state.queue.count >= limit {
                state.queue.removeAll()
                state.closing = true
                state.overflowed = true
                state.finalLines = [
                    ByteBuffer(
                        bytes: ServerMessage.error(
                            id: nil, ProtocolError(.slowClient, "more than \(limit) messages were waiting for this client; disconnecting")
                        ).line)
                ]
                return (state.wakeIfNeeded(), false)
            }
            state.queue.append(Entry(line: line, replaceable: eventType?.isReplaceable == true ? eventType : nil))
            return (state.wakeIfNeeded(), true)
        }
        wake?()
        return accepted
    }

    /// Closes after the queued messages and `finalMessages` are written.
    public func close(after finalMessages: [ServerMessage] = []) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closing else { return nil }
            state.closing = true
            state.finalLines = state.queue.map(\.line) + finalMessages.map { ByteBuffer(bytes: $0.line) }
            state.queue.removeAll()
            return state.wakeIfNeeded()
        }
        wake?()
    }

    /// The writer found the client's socket full: until it next ``take()``s, the client is behind.
    public func markSocketFull() {
        state.withLock { $0.socketFull = true }
    }

    /// True once the queue overflowed (the client is too slow).
    public var overflowed: Bool { state.withLock { $0.overflowed } }

    /// True once the connection is being closed (slow client, shutdown, oversized line).
    public var isClosing: Bool { state.withLock { $0.closing } }

    /// How many trip_state messages were replaced before this client read them.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// What to write now: every queued line, or the last lines once closing (once). Nil when there is nothing:
    /// the next message wakes the writer again. The writer takes only when the socket has room, so taking ends
    /// ``markSocketFull()``.
    public func take() -> Next? {
        state.withLock { state in
            state.socketFull = false
            if state.queue.count == 1, let entry = state.queue.popFirst() { return .line(entry.line) }
            if !state.queue.isEmpty {
                defer { state.queue.removeAll(keepingCapacity: true) }
                return .lines(state.queue.map(\.line))
            }
            if state.closing, !state.finished {
                state.finished = true
                defer { state.finalLines.removeAll() }
                return .closing(state.finalLines)
            }
            state.scheduled = false
            return nil
        }
    }
}
