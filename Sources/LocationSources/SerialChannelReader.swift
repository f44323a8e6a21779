import FoundationEssentials
import Glibc
import NIOCore
import NIOPosix
import NMEA
import NavigationCore

/// Reads an open serial device on a NIO event loop: bytes, epochs and readings on the loop's own thread.
///
/// Why an event loop and not a reader thread: navd runs its navigation loop and writes its clients' sockets on
/// the same event loop (``SerialNMEASource/eventLoop``), so a fix goes from the receiver's bytes to a client's
/// socket without waking another thread (each wake is a futex and a schedule, 0.05–0.2 ms on a busy machine).
/// Opening the device, detecting the baud rate and waiting out an unplugged device stay on the source's thread:
/// they block, and only the reading is on the hot path.
final class SerialChannelReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    /// Holds the epoch assembler, which survives reconnects (its learned cycle and counts), and the feed.
    private let source: SerialNMEASource
    /// Nanoseconds (the event loop's clock) of the last bytes read.
    private var lastBytesAt = NIODeadline.now()
    /// A check is scheduled that flushes the epoch in progress once the receiver is quiet.
    private var quietCheckScheduled = false
    /// Why the channel closed, when it closed on an error (the device went away: EIO on a hung-up tty).
    private(set) var closingError: (any Error)?
    /// The last bytes read (kept, not copied), which ``rehearse()`` assembles again.
    private var lastRead: ByteBuffer?

    init(source: SerialNMEASource) {
        self.source = source
    }

    private var feed: GNSSFeed { source.feed }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = Self.unwrapInboundIn(data)
        lastBytesAt = .now()
        lastRead = buffer
        if feed.isRawObserved { feed.yieldRaw(.serialBytes(Array(buffer.readableBytesView))) }
        let (readings, pending) = source.assembler.withLock { assembler in
            // The host's clock dates the epochs of receivers that never send a date (GGA-only).
            assembler.hostTime = Date()
            return (buffer.withUnsafeReadableBytes { assembler.append(bytes: $0) }, assembler.hasPendingEpoch)
        }
        for reading in readings { feed.yield(reading) }
        if pending { scheduleQuietCheck(context.eventLoop, at: lastBytesAt + Self.quietEndsEpoch) }
    }

    /// Assembles the last bytes read again on a copy of the assembler and drops what came of it: the navigation
    /// loop's rehearsal of the next fix's way (``GNSSFeed/rehearseNextReading()``). The assembler itself, and what
    /// the receiver sends next, are untouched.
    func rehearse() {
        guard let bytes = lastRead else { return }
        var assembler = source.assembler.withLock { $0 }
        assembler.hostTime = Date()
        _ = bytes.withUnsafeReadableBytes { assembler.append(bytes: $0) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        closingError = error
        context.close(promise: nil)
    }

    /// A quiet receiver has finished its epoch: flush it, unless bytes came since (then look again later).
    private func scheduleQuietCheck(_ eventLoop: any EventLoop, at deadline: NIODeadline) {
        guard !quietCheckScheduled else { return }
        quietCheckScheduled = true
        eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            quietCheckScheduled = false
            let quietSince = lastBytesAt + Self.quietEndsEpoch
            if quietSince > .now() {
                scheduleQuietCheck(eventLoop, at: quietSince)
                return
            }
            let readings = source.assembler.withLock { $0.flush() }
            for reading in readings { feed.yield(reading) }
        }
    }

    /// ``SerialNMEASource/quietEndsEpoch`` as the event loop measures it.
    static let quietEndsEpoch = TimeAmount.nanoseconds(Int64(SerialNMEASource.quietEndsEpoch * 1e9))

    /// Starts reading `descriptor` (a duplicate the channel owns and closes) on `eventLoop`. Blocks until the
    /// channel is registered; throws NIO's error when the descriptor cannot be read this way (then it is closed).
    static func start(
        descriptor: Int32, on eventLoop: any EventLoop, for source: SerialNMEASource
    ) throws -> (channel: any Channel, reader: NIOLoopBound<SerialChannelReader>) {
        let reader = try eventLoop.submit {
            NIOLoopBound(SerialChannelReader(source: source), eventLoop: eventLoop)
        }.wait()
        do {
            let channel = try NIOPipeBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(reader.value) }
                }
                .takingOwnershipOfDescriptor(input: descriptor)
                .wait()
            return (channel, reader)
        } catch {
            // A failed bootstrap leaves the descriptor to its caller.
            _ = Glibc.close(descriptor)
            throw error
        }
    }
}
