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
    /// The event loop this client's lines are queued on, when it is not the publisher's (a client past the
    /// navigation loop's share, ``ClientLoopChooser``): its events, replies and hello are handed to that loop in
    /// the loop's order and queued and written there. Nil: queued in place by the navigation loop.
    public let queueingLoop: (any EventLoop)?
    /// The subscribed event types, a bit each (``EventType/topicBit``): asked for every client on every event,
    /// where a `Set` under a lock hashed the type's name each time.
    private let topicMask = Atomic<UInt32>(EventType.allCases.reduce(0) { $0 | $1.topicBit })
    private let closer = HandlerSlot<Void>()
    private let answerObserver = HandlerSlot<Void>()
    /// Messages the navigation loop still owes this client: its hello and replies to commands sent.
    private let owed = Mutex(0)

    public convenience init(id: Int, peer: PeerCredentials, mayControl: Bool, queueLimit: Int) {
        self.init(id: id, clientPeer: .unix(peer), mayControl: mayControl, queueLimit: queueLimit)
    }

    public init(id: Int, clientPeer: ClientPeer, mayControl: Bool, queueLimit: Int, queueingLoop: (any EventLoop)? = nil) {
        self.id = id
        self.peer = clientPeer
        self.mayControl = mayControl
        self.queueingLoop = queueingLoop
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

    /// The loop answered (queued a hello or a reply): the client's input handler is told, which resumes commands
    /// held back while `limit` answers were owed, or ends a finished input once nothing is owed.
    public func answered() {
        owed.withLock { $0 -= 1 }
        answerObserver.call(())
    }

    /// True while the loop owes this client `limit` answers or more (its commands are queued for the loop) and it
    /// is not being disconnected: the server then stops reading it, so a flood of commands cannot stand between
    /// the loop and the next fix.
    public func mustWait(limit: Int) -> Bool {
        owed.withLock { $0 } >= limit && !outbox.isClosing
    }

    /// True when every hello and reply owed was queued, or the client is being disconnected.
    public var isSettled: Bool { owed.withLock { $0 } <= 0 || outbox.isClosing }

    /// Called after each answer (``answered()``), on whatever thread queued it; nil: none.
    public func setAnswerObserver(_ observer: (@Sendable () -> Void)?) {
        guard let observer else { return answerObserver.set(nil) }
        answerObserver.set { (_: Void) in observer() }
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
