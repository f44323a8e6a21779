import NIOCore
import Synchronization

/// Writes one client's outbox into its channel, on the channel's event loop.
///
/// The navigation loop queues an event and, when the writer was idle, hands the writer to its event loop's
/// ``WriterScheduler`` queue: one hop from the loop to the socket, and one task on each event loop for all the
/// clients it serves (an event for 100 clients costs the loop 100 appends, not 100 cross-thread tasks). There is
/// no Swift task per client in between.
///
/// A client whose socket is full (NIO's write buffer over its high-water mark) is not written to; its outbox
/// fills, and at the outbox's limit it is cut off as `slow_client`. The writer looks again every
/// ``retryInterval`` until the socket drains or the connection closes.
public final class ChannelWriter: Sendable {
    /// How often a client whose socket is full is looked at again.
    static let retryInterval = TimeAmount.milliseconds(5)

    private let channel: any Channel
    private let outbox: ClientOutbox
    /// Set once the channel closed (a channel that is not active yet is not closed: it is still being set up).
    private let closed = Atomic(false)

    public init(channel: any Channel, outbox: ClientOutbox) {
        self.channel = channel
        self.outbox = outbox
    }

    /// Starts writing: from now on every message queued in the outbox reaches the socket.
    public func start(scheduler: WriterScheduler) {
        let queue = scheduler.queue(for: channel.eventLoop)
        outbox.setWriter { [self] in queue.schedule(self) }
        // The outbox holds this writer (through its wake handler) and the writer holds the outbox: the cycle is
        // broken when the connection closes, or every connection's channel would stay in memory.
        channel.closeFuture.whenComplete { [self] _ in
            closed.store(true, ordering: .releasing)
            outbox.removeWriter()
        }
    }

    /// Writes everything queued; on the event loop.
    fileprivate func drain() {
        while true {
            if closed.load(ordering: .acquiring) { return }  // the peer left or navd closed it; the server cleans up
            // Not active yet (a new connection still being set up), or the socket is full: look again shortly.
            guard channel.isActive, channel.isWritable else {
                // A full socket means the client does not read: its queued trip_states may be replaced.
                if channel.isActive { outbox.markSocketFull() }
                channel.eventLoop.scheduleTask(in: Self.retryInterval) { self.drain() }
                return
            }
            switch outbox.take() {
            case nil:
                return
            case .lines(let lines):
                for line in lines { channel.write(line, promise: nil) }
                channel.flush()
            case .closing(let lines):
                guard let last = lines.last else {
                    channel.close(promise: nil)
                    return
                }
                for line in lines.dropLast() { channel.write(line, promise: nil) }
                // Close once the last line is written (or failed to be: the peer is gone either way).
                channel.writeAndFlush(last).whenComplete { [channel] _ in channel.close(promise: nil) }
                return
            }
        }
    }
}

/// One queue of writers to run per event loop, so that waking many clients on one event loop costs one task.
public final class WriterScheduler: Sendable {
    private let queues = Mutex<[ObjectIdentifier: EventLoopWriters]>([:])

    public init() {}

    func queue(for eventLoop: any EventLoop) -> EventLoopWriters {
        queues.withLock { queues in
            if let queue = queues[ObjectIdentifier(eventLoop)] { return queue }
            let queue = EventLoopWriters(eventLoop: eventLoop)
            queues[ObjectIdentifier(eventLoop)] = queue
            return queue
        }
    }
}

/// The writers waiting to drain on one event loop.
final class EventLoopWriters: Sendable {
    private struct State {
        var waiting: [ChannelWriter] = []
        /// A task is queued on the event loop that will run everything waiting.
        var scheduled = false
    }

    private let eventLoop: any EventLoop
    private let state = Mutex(State())

    init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func schedule(_ writer: ChannelWriter) {
        let needsTask = state.withLock { state in
            state.waiting.append(writer)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if needsTask { eventLoop.execute { self.runWaiting() } }
    }

    /// Runs the writers waiting now, on the event loop, instead of in the job queued for them (which then finds
    /// nothing, or what was queued since). `scheduled` stays as it is: while that job is pending, it runs
    /// whatever is queued next.
    func runNow() {
        eventLoop.assertInEventLoop()
        let writers = state.withLock { state in
            defer { state.waiting.removeAll(keepingCapacity: true) }
            return state.waiting
        }
        for writer in writers { writer.drain() }
    }

    private func runWaiting() {
        let writers = state.withLock { state in
            defer {
                state.waiting.removeAll(keepingCapacity: true)
                state.scheduled = false
            }
            return state.waiting
        }
        for writer in writers { writer.drain() }
    }
}
