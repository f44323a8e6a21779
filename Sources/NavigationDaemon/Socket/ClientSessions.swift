import Logging
import NavigationCore
import NavigationProtocol
import NIOCore

/// The client session of the socket protocol, whatever the transport (the Unix socket, WebSocket): the hello,
/// commands decoded and handed to the navigation loop as they are read, with read back-pressure
/// (``ClientInputHandler``), the outbox written in order with the slow-client cut-off, a line too long answered and
/// the connection closed, the answers owed still written after the client stops sending.
final class ClientSessions: Sendable {
    let settings: NavdConfig.Socket
    let router: CommandRouter
    let hub: EventHub
    let navigation: NavigationService
    let logger: Logger
    /// Where clients' connections live unless they are given a loop of their own (``ClientLoopChooser``): the
    /// navigation loop's event loop in navd (its events are written on the thread that made them), NIO's shared
    /// group otherwise.
    let clientEventLoops: any EventLoopGroup

    init(
        settings: NavdConfig.Socket, router: CommandRouter, hub: EventHub, navigation: NavigationService, logger: Logger,
        clientEventLoops: any EventLoopGroup
    ) {
        self.clientEventLoops = clientEventLoops
        self.settings = settings
        self.router = router
        self.hub = hub
        self.navigation = navigation
        self.logger = logger
    }

    /// The handler that reads a connection's frames into its session: added to the channel's pipeline when the
    /// channel is set up (after the line decoder), bound by ``serve(_:input:peer:mayControl:descriptor:queueingLoop:)``.
    /// On the channel's event loop.
    func makeInputHandler(on channel: any Channel) -> NIOLoopBound<ClientInputHandler> {
        NIOLoopBound(ClientInputHandler(logger: logger), eventLoop: channel.eventLoop)
    }

    /// Serves one connection until it ends: its hello, its commands to the loop (read by `input`, which is in the
    /// channel's pipeline), its outbox written.
    /// - Parameters:
    ///   - descriptor: the connection's socket when navd accepted it itself (its lines are sent to it directly,
    ///     ``ChannelWriter``); nil when NIO frames what is written (WebSocket).
    ///   - queueingLoop: the connection's event loop when its lines are queued there rather than in place by the
    ///     navigation loop (``ClientConnection/queueingLoop``).
    func serve(
        _ channel: any Channel, input: NIOLoopBound<ClientInputHandler>, peer: ClientPeer, mayControl: Bool, descriptor: CInt? = nil,
        queueingLoop: (any EventLoop)? = nil
    ) async {
        let client = ClientConnection(
            id: hub.makeClientID(), clientPeer: peer, mayControl: mayControl, queueLimit: settings.clientQueueLimit, queueingLoop: queueingLoop)
        client.setForceClose { channel.close(promise: nil) }
        ChannelWriter(channel: channel, outbox: client.outbox, descriptor: descriptor).start(scheduler: hub.writers)
        if !hub.admit(client, limit: settings.maxClients) {
            logger.warning("too many clients; refusing one", metadata: ["peer": "\(peer)", "limit": "\(settings.maxClients)"])
            client.outbox.close(after: [.error(id: nil, ProtocolError(.tooManyClients, "navd already has \(settings.maxClients) clients"))])
        } else {
            client.expectAnswer()
            navigation.clientConnected(client)
        }
        let limit = settings.clientQueueLimit
        let session = ClientInputHandler.Session(
            clientID: client.id, mustWait: { client.mustWait(limit: limit) }, isSettled: { client.isSettled },
            run: { [self] frame in run(frame, from: client) }, endInput: { client.outbox.close() },
            isEnding: { client.outbox.isClosing })
        let eventLoop = channel.eventLoop
        // Answers are queued on the channel's event loop in navd (the navigation loop's, or the client's own
        // queueing loop), where the handler is called in place; elsewhere (a refused line of a client on another
        // loop) it is called there.
        client.setAnswerObserver {
            if eventLoop.inEventLoop { input.value.resume() } else { eventLoop.execute { input.value.resume() } }
        }
        // After the client was handed to the loop: its commands reach the loop after it, and its hello first.
        eventLoop.execute { input.value.start(session) }
        // The channel writer closes the channel after the last line, or the client left; the session ends then.
        try? await channel.closeFuture.get()
        client.setAnswerObserver(nil)
        client.outbox.close()
        hub.remove(client)
        logger.info("client disconnected", metadata: ["client": "\(client.id)"])
    }

    /// One frame of a client's input, in the order read (``ClientInputHandler``).
    private func run(_ frame: LineFrame, from client: ClientConnection) {
        switch frame {
        case .line(let buffer):
            // A client being disconnected (too slow, a line too long, navd stopping) has no more commands run: a
            // flooder cut off as too slow used to keep the loop busy with its backlog for the 10 s its connection
            // stays open, and the fixes waited behind it.
            if client.outbox.isClosing { return }
            handle(buffer, from: client)
        case .refused(let error):
            client.expectAnswer()
            navigation.refuse(error, id: nil, client: client)
        case .tooLong(let length):
            logger.warning("line too long; disconnecting", metadata: ["client": "\(client.id)", "bytes": "\(length)"])
            client.outbox.close(after: [
                .error(id: nil, ProtocolError(.lineTooLong, "a line of more than \(settings.maxLineLength) bytes; closing the connection"))
            ])
        }
    }

    private func handle(_ buffer: ByteBuffer, from client: ClientConnection) {
        if buffer.readableBytes == 0 { return }
        let parsed: (id: JSONValue?, type: String, fields: CommandFields)
        do throws(ProtocolError) {
            parsed = try JSONLine.parseCommand(buffer.readableBytesView)
        } catch {
            client.expectAnswer()
            navigation.refuse(error, id: nil, client: client)
            return
        }
        do throws(ProtocolError) {
            let command = try router.prepare(type: parsed.type, fields: parsed.fields, mayControl: client.mayControl)
            client.expectAnswer()
            navigation.submit(command, id: parsed.id, client: client)
        } catch {
            if error.code == .notAuthorized {
                logger.notice("command refused: no control rights", metadata: ["client": "\(client.id)", "peer": "\(client.peer)", "command": "\(parsed.type)"])
            }
            client.expectAnswer()
            navigation.refuse(error, id: parsed.id, client: client)
        }
    }
}
