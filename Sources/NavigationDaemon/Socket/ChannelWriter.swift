import Glibc
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
///
/// A Unix socket client's lines go to its socket with one `send` each (its descriptor is navd's: navd accepts the
/// connection itself, ``UnixListener``), not through NIO's pipeline, whose handlers, promises and pending-writes
/// queue cost a client about as much as the system call. NIO still reads the socket, and is handed whatever the
/// socket does not take at once: a line the kernel took in part or refused (the client is behind), every line
/// after it while NIO holds any, and the last lines before a close. Lines therefore reach a client in the order
/// they were queued, and a client that stops reading fills NIO's buffer and is cut off exactly as before.
public final class ChannelWriter: Sendable {
    /// How often a client whose socket is full is looked at again.
    static let retryInterval = TimeAmount.milliseconds(5)

    private let channel: any Channel
    private let outbox: ClientOutbox
    /// The channel's socket, for lines sent without NIO; nil for a channel whose bytes NIO must frame (WebSocket).
    /// NIO owns it and closes it, on the channel's event loop, where the writer runs: the writer sends only while
    /// the channel is active, which it stops being in the same step as the descriptor is closed.
    private let descriptor: CInt?
    /// Set once the channel closed (a channel that is not active yet is not closed: it is still being set up).
    private let closed = Atomic(false)
    /// Lines handed to NIO that it has not yet written or failed: while there are any, a new line goes behind
    /// them, through NIO. Changed only on the channel's event loop.
    private let heldByNIO = Atomic(0)
    /// Lines sent straight to the socket, and the system calls that sent them, for tests and diagnostics.
    private let sentDirectly = Atomic(0)
    private let sendCalls = Atomic(0)

    /// - Parameter descriptor: the channel's socket descriptor when navd accepted it (lines are sent to it
    ///   directly), nil to write every line through the channel.
    public init(channel: any Channel, outbox: ClientOutbox, descriptor: CInt? = nil) {
        self.channel = channel
        self.outbox = outbox
        self.descriptor = descriptor
    }

    /// How many lines went to the socket without NIO.
    var linesSentDirectly: Int { sentDirectly.load(ordering: .relaxed) }
    /// How many system calls sent lines to the socket (one for all the lines taken together).
    var directSendCalls: Int { sendCalls.load(ordering: .relaxed) }

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
            // While NIO holds none of this client's lines, its buffer is empty and the channel writable: only
            // lines handed to NIO can have made it unwritable.
            let sendsDirectly = descriptor != nil && heldByNIO.load(ordering: .relaxed) == 0
            // Not active yet (a new connection still being set up), or the socket is full: look again shortly.
            guard channel.isActive, sendsDirectly || channel.isWritable else {
                // A full socket means the client does not read: its queued trip_states may be replaced.
                if channel.isActive { outbox.markSocketFull() }
                channel.eventLoop.scheduleTask(in: Self.retryInterval) { self.drain() }
                return
            }
            switch outbox.take() {
            case nil:
                return
            case .line(let line):
                write(CollectionOfOne(line))
            case .lines(let lines):
                write(lines)
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

    /// Writes lines in order: sent to the socket while it takes each whole and NIO holds none of this client's
    /// lines; from the first it does not take (its unsent part), through NIO. Lines taken together go in one
    /// system call (``linesPerSend`` at most): one wake-up of the client for an input's events, not one per line,
    /// so that a client woken by the first line does not take the core from navd before the rest are sent.
    private func write(_ lines: some Collection<ByteBuffer>) {
        var next = lines.startIndex
        var handed = false
        if let descriptor, heldByNIO.load(ordering: .relaxed) == 0 {
            var sent = 0
            while next != lines.endIndex {
                let batchEnd = lines.index(next, offsetBy: Self.linesPerSend, limitedBy: lines.endIndex) ?? lines.endIndex
                let batch = lines[next..<batchEnd]
                let result = batch.count == 1 ? Self.send(batch[next], to: descriptor) : Self.send(batch, to: descriptor)
                sendCalls.add(1, ordering: .relaxed)
                sent += result.whole
                next = lines.index(next, offsetBy: result.whole)
                guard let unsent = result.unsent else { continue }
                handToNIO(unsent)
                handed = true
                next = lines.index(after: next)
                break
            }
            if sent > 0 { sentDirectly.add(sent, ordering: .relaxed) }
        }
        while next != lines.endIndex {
            handToNIO(lines[next])
            handed = true
            next = lines.index(after: next)
        }
        if handed { channel.flush() }
    }

    /// What one system call took of the lines given to it: how many it took whole, in order, and what is left of
    /// the line after them (all of it when the socket refused it: full, or the peer is gone; NIO's write then meets
    /// the same condition and handles it as it always has, waiting for room or closing the channel on an error).
    /// `unsent` is nil when every line was taken whole.
    struct SendResult {
        var whole: Int
        var unsent: ByteBuffer?
    }

    /// The most lines one `sendmsg` carries (well under the system's `IOV_MAX` of 1024).
    static let linesPerSend = 64

    /// Sends one line with one `send`.
    private static func send(_ line: ByteBuffer, to descriptor: CInt) -> SendResult {
        let length = line.readableBytes
        while true {
            let result = line.withUnsafeReadableBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress, length, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            }
            if result == length { return SendResult(whole: 1, unsent: nil) }
            if result < 0, errno == EINTR { continue }
            var unsent = line
            if result > 0 { unsent.moveReaderIndex(forwardBy: result) }
            return SendResult(whole: 0, unsent: unsent)
        }
    }

    /// Sends lines with one `sendmsg`, a vector entry per line (no copy). Each line's storage is retained while
    /// the vector points into it (ByteBuffer's way to let its bytes' address outlive a closure, as NIO's own
    /// `writev` does), and released after the call.
    private static func send(_ lines: some Collection<ByteBuffer>, to descriptor: CInt) -> SendResult {
        let count = lines.count
        var total = 0
        let result = withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vector in
            withUnsafeTemporaryAllocation(of: Unmanaged<AnyObject>.self, capacity: count) { storages in
                for (slot, line) in zip(vector.indices, lines) {
                    line.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
                        storages.initializeElement(at: slot, to: storage.retain())
                        vector[slot] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
                    }
                    total += line.readableBytes
                }
                defer { for slot in 0..<count { storages[slot].release() } }
                var message = msghdr()
                message.msg_iov = vector.baseAddress
                message.msg_iovlen = count
                while true {
                    let result = sendmsg(descriptor, &message, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                    if result < 0, errno == EINTR { continue }
                    return result
                }
            }
        }
        if result == total { return SendResult(whole: count, unsent: nil) }
        // Taken in part, or refused (a negative result takes nothing): the lines taken whole, then what is left of
        // the line the socket stopped in.
        var taken = max(result, 0)
        var whole = 0
        for line in lines {
            guard taken >= line.readableBytes else {
                var unsent = line
                unsent.moveReaderIndex(forwardBy: taken)
                return SendResult(whole: whole, unsent: unsent)
            }
            taken -= line.readableBytes
            whole += 1
        }
        return SendResult(whole: whole, unsent: nil)  // not reached: the socket took fewer bytes than were given
    }

    /// Writes a line through the channel (not flushed); counted, on a socket of navd's own, until NIO has
    /// written or failed it.
    private func handToNIO(_ line: ByteBuffer) {
        guard descriptor != nil else {
            channel.write(line, promise: nil)
            return
        }
        heldByNIO.add(1, ordering: .relaxed)
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [self] _ in heldByNIO.subtract(1, ordering: .relaxed) }
        channel.write(line, promise: written)
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
