import NavigationCore
import NIOCore
import NavigationProtocol
import Synchronization
import SystemSupport

/// The connected clients and the event sequence counter. Events are published only from the navigation loop,
/// so every client sees them in one order; each is serialized once, whatever the number of clients.
///
/// Most clients' lines are queued in place by the publisher (and written right after, on its thread). A client
/// with a ``ClientConnection/queueingLoop`` has them handed to that loop instead, one task per event for all the
/// clients there, queued and written there in the order handed: the loops write an event's clients at once.
public final class EventHub: Sendable {
    /// The clients queued on one other event loop, in the order they connected.
    private struct LoopClients {
        let loop: any EventLoop
        let writers: EventLoopWriters
        var clients: [ClientConnection] = []
    }

    private struct State {
        /// Queued in place, in the order they connected, which is the order an event is queued for them (and
        /// written). An array rather than a table: publishing takes it whole under the lock, which shares its
        /// buffer instead of copying (and retaining) every client per event.
        var clients: [ClientConnection] = []
        /// Queued on their own event loops.
        var elsewhere: [LoopClients] = []
        /// Ids holding one of the `max_clients` places, from their connection until they leave: taken at once,
        /// before the navigation loop adds the client, so simultaneous connections cannot all see room.
        var admitted: Set<Int> = []
        var sequencer = EventSequencer()
        var nextClientID = 1
    }
    private let state = Mutex(State())
    /// The clients' writers, one queue per event loop.
    public let writers = WriterScheduler()
    /// Called with a client whose queue overflowed (it is being disconnected as too slow), on the thread that
    /// queued the line: the navigation loop's, or the client's queueing loop.
    private let overflow = HandlerSlot<ClientConnection>()

    public init() {}

    /// Sets what happens to a client whose queue overflowed (the navigation loop's grace period and close).
    public func onOverflow(_ handler: @escaping @Sendable (ClientConnection) -> Void) { overflow.set(handler) }

    public func makeClientID() -> Int {
        state.withLock { state in
            defer { state.nextClientID += 1 }
            return state.nextClientID
        }
    }

    /// Takes a place for `client` when fewer than `limit` are taken; false when navd is full.
    public func admit(_ client: ClientConnection, limit: Int) -> Bool {
        state.withLock { state in
            guard state.admitted.count < limit else { return false }
            state.admitted.insert(client.id)
            return true
        }
    }

    public func add(_ client: ClientConnection) {
        let writers = client.queueingLoop.map { self.writers.queue(for: $0) }
        state.withLock { state in
            // Checked under the hub's lock: a client that left (closed, then removed) before this is not added.
            guard !client.outbox.isClosing else { return }
            guard let loop = client.queueingLoop, let writers else {
                guard !state.clients.contains(where: { $0 === client }) else { return }
                state.clients.append(client)
                return
            }
            let index =
                state.elsewhere.firstIndex { $0.loop === loop }
                ?? {
                    state.elsewhere.append(LoopClients(loop: loop, writers: writers))
                    return state.elsewhere.count - 1
                }()
            guard !state.elsewhere[index].clients.contains(where: { $0 === client }) else { return }
            state.elsewhere[index].clients.append(client)
        }
    }

    public func remove(_ client: ClientConnection) {
        state.withLock { state in
            state.clients.removeAll { $0 === client }
            for index in state.elsewhere.indices { state.elsewhere[index].clients.removeAll { $0 === client } }
            state.admitted.remove(client.id)
        }
    }

    /// The event and the clients queued in place that overflowed on it (they are being disconnected).
    public struct Published {
        /// The serialized event line, newline included.
        public var line: [UInt8]
        public var overflowed: [ClientConnection]
    }

    /// Assigns the next sequence number and queues the event for every subscribed client. Only the navigation
    /// loop publishes, so the line can be written after the number is taken, outside the lock.
    ///
    /// Consuming: the event moves into its message (passed on by reference into the lock's closure, it was
    /// copied there, a `trip_state` record and all it holds).
    @discardableResult
    public func publish(_ event: consuming NavigationEvent, routeId: String?) -> Published {
        let type = event.type
        let (seq, clients, elsewhere) = state.withLock { state in (state.sequencer.next(), state.clients, state.elsewhere) }
        let line = EventMessage.line(seq: seq, routeId: routeId, event: event)
        let buffer = ByteBuffer(bytes: line)  // one copy for every client
        // The other loops first: they queue and write their clients while this one does its own.
        let overflow = self.overflow
        for group in elsewhere where !group.clients.isEmpty {
            group.loop.execute {
                for client in group.clients where client.wants(type) {
                    if !client.outbox.enqueue(buffer: buffer, eventType: type), client.outbox.overflowed { overflow.call(client) }
                }
                group.writers.runNow()
            }
        }
        var overflowed: [ClientConnection] = []
        for client in clients where client.wants(type) {
            if !client.outbox.enqueue(buffer: buffer, eventType: type), client.outbox.overflowed { overflowed.append(client) }
        }
        return Published(line: line, overflowed: overflowed)
    }

    /// Queues a line for `client` alone (its hello, a reply) behind every event published for it before, then
    /// runs `queued` (the loop's answer is then no longer owed). A client whose queue overflows on it is handed
    /// to the overflow handler.
    public func deliver(_ line: [UInt8], to client: ClientConnection, queued: @escaping @Sendable () -> Void = {}) {
        guard let loop = client.queueingLoop else {
            Self.enqueue(line, for: client, overflow: overflow)
            return queued()
        }
        let (writers, overflow) = (self.writers.queue(for: loop), self.overflow)
        loop.execute {
            Self.enqueue(line, for: client, overflow: overflow)
            queued()
            writers.runNow()
        }
    }

    private static func enqueue(_ line: [UInt8], for client: ClientConnection, overflow: HandlerSlot<ClientConnection>) {
        if !client.outbox.enqueue(line: line, eventType: nil), client.outbox.overflowed { overflow.call(client) }
    }

    /// The sequence number of the last event published (a recording started now begins after it).
    public var seq: UInt64 { state.withLock { $0.sequencer.seq } }

    /// Says goodbye to every client (shutdown), after what was queued for it.
    public func closeAll(reason: String) {
        let (clients, elsewhere) = state.withLock { ($0.clients, $0.elsewhere) }
        for client in clients { client.outbox.close(after: [.bye(reason: reason)]) }
        for group in elsewhere {
            group.loop.execute {
                for client in group.clients { client.outbox.close(after: [.bye(reason: reason)]) }
            }
        }
    }
}
