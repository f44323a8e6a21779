import Logging
import NavigationCore
import NavigationProtocol
import NIOCore

/// The client session of the socket protocol, whatever the transport (the Unix socket, WebSocket): the hello,
/// commands decoded and handed to the navigation loop with read back-pressure, the outbox written in order with
/// the slow-client cut-off, a line too long answered and the connection closed, the answers owed still written
/// after the client stops sending.
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

    /// Serves one connection until it ends: its hello, its commands to the loop, its outbox written.
    /// - Parameters:
    ///   - descriptor: the connection's socket when navd accepted it itself (its lines are sent to it directly,
    ///     ``ChannelWriter``); nil when NIO frames what is written (WebSocket).
    ///   - queueingLoop: the connection's event loop when its lines are queued there rather than in place by the
    ///     navigation loop (``ClientConnection/queueingLoop``).
    func serve(
        _ connection: NIOAsyncChannel<LineFrame, ByteBuffer>, peer: ClientPeer, mayControl: Bool, descriptor: CInt? = nil,
        queueingLoop: (any EventLoop)? = nil
    ) async {
        let client = ClientConnection(
            id: hub.makeClientID(), clientPeer: peer, mayControl: mayControl, queueLimit: settings.clientQueueLimit, queueingLoop: queueingLoop)
        let channel = connection.channel
        client.setForceClose { channel.close(promise: nil) }
        ChannelWriter(channel: channel, outbox: client.outbox, descriptor: descriptor).start(scheduler: hub.writers)
        if !hub.admit(client, limit: settings.maxClients) {
            logger.warning("too many clients; refusing one", metadata: ["peer": "\(peer)", "limit": "\(settings.maxClients)"])
            client.outbox.close(after: [.error(id: nil, ProtocolError(.tooManyClients, "navd already has \(settings.maxClients) clients"))])
        } else {
            client.expectAnswer()
            navigation.clientConnected(client)
        }
        do {
            try await connection.executeThenClose { inbound, _ in
                try await withThrowingDiscardingTaskGroup { group in
                    // The channel writer closes the channel after the last line; the connection ends then.
                    group.addTask { try? await channel.closeFuture.get() }
                    for try await frame in inbound {
                        switch frame {
                        case .line(let buffer):
                            // At most a queue's worth of this client's commands wait for the loop (read backpressure).
                            await client.waitWhileOwing(atLeast: settings.clientQueueLimit)
                            // A client being disconnected (too slow, a line too long, navd stopping) has no more
                            // commands run: a flooder cut off as too slow used to keep the loop busy with its backlog
                            // for the 10 s its connection stays open, and the fixes waited behind it.
                            if client.outbox.isClosing { continue }
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
                    await client.waitForAnswers(timeout: 10)
                    client.outbox.close()
                }
            }
        } catch {
            logger.debug("client connection ended with an error", metadata: ["client": "\(client.id)", "error": "\(error)"])
        }
        client.outbox.close()
        hub.remove(client)
        logger.info("client disconnected", metadata: ["client": "\(client.id)"])
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
