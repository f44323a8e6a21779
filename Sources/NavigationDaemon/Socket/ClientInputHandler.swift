import Logging
import NIOCore

/// Hands one client's frames (``LineFrame``) to its session as they are decoded, on the channel's event loop: a
/// command read from the socket reaches the navigation loop as a function call within the read, with no
/// asynchronous sequence or task in between (through `NIOAsyncChannel` its line was buffered, its consuming task
/// resumed and run by a later job on the same loop: 13–17 % of a `navigate`'s way from the read to the request).
///
/// - Read back-pressure: while the loop owes the client a queue's worth of answers (``Session/mustWait``), the
///   command lines read wait here in order and the socket is not read again; the client's next answer resumes
///   them (``resume()``). A client that sends faster than navd answers is thus not read, and its commands cannot
///   stand between the loop and the next fix.
/// - Frames read before the session is bound (a WebSocket's first frames come with its upgrade) wait the same way.
/// - End of input (the client shut down its side of the socket): once its commands ran, the answers still owed
///   are awaited up to ``answerGrace`` (the client's next answer or the deadline, no polling), then
///   ``Session/endInput`` closes the outbox, whose writer closes the connection after the last line.
final class ClientInputHandler: ChannelDuplexHandler {
    typealias InboundIn = LineFrame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What the frames go to: one client's session (``ClientSessions``).
    struct Session: Sendable {
        /// The client's id, as navd's log names it.
        var clientID: Int
        /// True while a command line must wait: the loop owes the client `client_queue_limit` answers or more, and
        /// the client is not being disconnected (a closing client's lines are read and dropped, not held).
        var mustWait: @Sendable () -> Bool
        /// True once nothing owed is left to wait for: every answer queued, or the client being disconnected.
        var isSettled: @Sendable () -> Bool
        /// Runs one frame: a command decoded and handed to the loop, a refused line answered, a line too long
        /// answered and the connection closed.
        var run: @Sendable (LineFrame) -> Void
        /// The client's input ended and its answers are queued (or the grace ran out): close its outbox.
        var endInput: @Sendable () -> Void
        /// True once the session is ending the connection itself (its outbox closing: a line too long, a slow
        /// client, navd stopping): its writer closes the channel after the last lines.
        var isEnding: @Sendable () -> Bool
    }

    /// How long a client that shut down its side waits for the answers still owed, at most.
    let answerGrace: TimeAmount
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var session: Session?
    private var pending = CircularBuffer<LineFrame>()
    /// A read the pipeline asked for while frames wait: asked of the channel once they ran.
    private var readHeld = false
    private var inputEnded = false
    /// The outbox was closed for the end of input (or the connection is gone): nothing more to do.
    private var finished = false
    private var closed = false
    /// True while frames are being run: an answer queued by one of them (``resume()`` called in place) does not run
    /// the next from inside it; the running loop looks again after each frame.
    private var running = false
    private var graceDeadline: Scheduled<Void>?

    init(answerGrace: TimeAmount = .seconds(10), logger: Logger) {
        self.answerGrace = answerGrace
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Binds the session: frames read so far run now, and the channel is read from here on. On the event loop.
    func start(_ session: Session) {
        guard !closed else { return }
        self.session = session
        resume()
    }

    /// Runs the frames that may run now, reads on when none waits, and ends the input once its answers are queued.
    /// Called for each frame read, and when the client's answer is queued (its session's answer observer). On the
    /// event loop.
    func resume() {
        guard let session, let context, !closed, !running else { return }
        running = true
        while let frame = pending.first {
            if case .line = frame, session.mustWait() { break }
            pending.removeFirst()
            session.run(frame)
        }
        running = false
        guard pending.isEmpty else { return }
        if readHeld {
            readHeld = false
            context.read()
        }
        if inputEnded { endInputOnceSettled(session) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending.append(unwrapInboundIn(data))
        resume()
    }

    func read(context: ChannelHandlerContext) {
        if session == nil || !pending.isEmpty {
            readHeld = true
        } else {
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputEnded = true
            resume()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        finished = true
        pending.removeAll()
        graceDeadline?.cancel()
        graceDeadline = nil
        // The session holds the client, whose force-close holds the channel: let go of it with the connection.
        session = nil
        context.fireChannelInactive()
    }

    /// An error reading the connection (a reset, a transport's framing error): the connection is closed and the
    /// session ends as if the client had left, unless the session is ending it already (a WebSocket frame over the
    /// limit is answered with `line_too_long` before the close, and the rest of its bytes are errors here).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let session, session.isEnding() { return }
        // Before its session is bound (a read error in the first moment) the client has no id here yet.
        logger.debug("client connection ended with an error", metadata: ["client": "\(session.map { String($0.clientID) } ?? "unbound")", "error": "\(error)"])
        context.close(promise: nil)
    }

    private func endInputOnceSettled(_ session: Session) {
        guard !finished else { return }
        if session.isSettled() {
            finished = true
            graceDeadline?.cancel()
            graceDeadline = nil
            session.endInput()
        } else if graceDeadline == nil, let context {
            graceDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: answerGrace) { [self] in
                guard !finished else { return }
                finished = true
                session.endInput()
            }
        }
    }
}
