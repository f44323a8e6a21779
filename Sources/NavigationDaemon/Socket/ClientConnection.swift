import NavigationCore
import NIOCore
import NavigationProtocol
import Synchronization
import SystemSupport

/// One connected client: who it is, what it subscribed to, and its outbox.
public final class ClientConnection: Sendable {
    public let id: Int
    public let peer: ClientPeer
    public let mayControl: Bool
    public let outbox: ClientOutbox
    /// The subscribed event types, a bit each (``EventType/topicBit``): asked for every client on every event,
    /// where a `Set` under a lock hashed the type's name each time.
    private let topicMask = Atomic<UInt32>(EventType.allCases.reduce(0) { $0 | $1.topicBit })
    private let closer = HandlerSlot<Void>()
    /// Messages the navigation loop still owes this client: its hello and replies to commands sent.
    private let owed = Mutex(0)

    public convenience init(id: Int, peer: PeerCredentials, mayControl: Bool, queueLimit: Int) {
        self.init(id: id, clientPeer: .unix(peer), mayControl: mayControl, queueLimit: queueLimit)
    }

    public init(id: Int, clientPeer: ClientPeer, mayControl: Bool, queueLimit: Int) {
        self.id = id
        self.peer = clientPeer
        self.mayControl = mayControl
        outbox = ClientOutbox(limit: queueLimit)
    }

    /// Event types this client receives (all until it subscribes).
    public var topics: Set<EventType> {
        get {
            let mask = topicMask.load(ordering: .acquiring)
            return Set(EventType.allCases.filter { mask & $0.topicBit != 0 })
        }
        set { topicMask.store(newValue.reduce(0) { $0 | $1.topicBit }, ordering: .releasing) }
    }

    public func wants(_ type: EventType) -> Bool { topicMask.load(ordering: .acquiring) & type.topicBit != 0 }

    private let disconnecting = Mutex(false)

    /// Marks the client as being disconnected; true the first time only.
    public func markDisconnecting() -> Bool {
        disconnecting.withLock { flag in
            defer { flag = true }
            return !flag
        }
    }

    /// The loop will answer one more time (hello or a reply).
    public func expectAnswer() { owed.withLock { $0 += 1 } }

    /// The loop answered.
    public func answered() { owed.withLock { $0 -= 1 } }

    /// Waits while the loop owes this client `limit` answers or more (its commands are queued for the loop), unless
    /// it is being disconnected: the server stops reading a client that sends faster than navd answers, so a flood of
    /// commands cannot stand between the loop and the next fix.
    public func waitWhileOwing(atLeast limit: Int) async {
        while owed.withLock({ $0 }) >= limit, !outbox.isClosing, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits (up to `timeout` seconds) until every hello and reply owed was queued: a client that sends its
    /// commands and shuts down its side of the socket still gets its answers.
    public func waitForAnswers(timeout: Double) async {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while owed.withLock({ $0 }) > 0, !outbox.isClosing, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// How to drop the connection at once (set by the server).
    public func setForceClose(_ close: @escaping @Sendable () -> Void) {
        closer.set { _ in close() }
    }

    /// Drops the connection without waiting for queued messages (a client that stopped reading).
    public func forceClose() {
        closer.call(())
    }
}

/// The connected clients and the event sequence counter. Events are published only from the navigation loop,
/// so every client sees them in one order; each is serialized once, whatever the number of clients.
public final class EventHub: Sendable {
    private struct State {
        /// In the order they connected, which is the order an event is queued for them (and written). An array
        /// rather than a table: publishing takes it whole under the lock, which shares its buffer instead of
        /// copying (and retaining) every client per event.
        var clients: [ClientConnection] = []
        /// Ids holding one of the `max_clients` places, from their connection until they leave: taken at once,
        /// before the navigation loop adds the client, so simultaneous connections cannot all see room.
        var admitted: Set<Int> = []
        var sequencer = EventSequencer()
        var nextClientID = 1
    }
    private let state = Mutex(State())
    /// The clients' writers, one queue per event loop.
    public let writers = WriterScheduler()

    public init() {}

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
        state.withLock { state in
            guard !state.clients.contains(where: { $0 === client }) else { return }
            state.clients.append(client)
        }
    }

    public func remove(_ client: ClientConnection) {
        state.withLock { state in
            state.clients.removeAll { $0 === client }
            state.admitted.remove(client.id)
        }
    }

    /// The event and the clients that overflowed on it (they are being disconnected).
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
        let (seq, clients) = state.withLock { state in (state.sequencer.next(), state.clients) }
        let line = EventMessage.line(seq: seq, routeId: routeId, event: event)
        var overflowed: [ClientConnection] = []
        let buffer = ByteBuffer(bytes: line)  // one copy for every client
        for client in clients where client.wants(type) {
            if !client.outbox.enqueue(buffer: buffer, eventType: type), client.outbox.overflowed { overflowed.append(client) }
        }
        return Published(line: line, overflowed: overflowed)
    }

    /// The sequence number of the last event published (a recording started now begins after it).
    public var seq: UInt64 { state.withLock { $0.sequencer.seq } }

    /// Says goodbye to every client (shutdown).
    public func closeAll(reason: String) {
        let clients = state.withLock { $0.clients }
        for client in clients { client.outbox.close(after: [.bye(reason: reason)]) }
    }
}
