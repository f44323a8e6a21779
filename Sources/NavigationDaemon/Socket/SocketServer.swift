import CNavdSystem
import FoundationEssentials
import Glibc
import Logging
import NavigationCore
import NavigationProtocol
import NIOCore
import NIOPosix
import Synchronization

/// The Unix domain socket: accepts clients (``UnixListener``, navd's own accept), reads their command lines
/// through NIO, hands decoded commands to the navigation loop within the read (``ClientInputHandler``), and writes each client's outbox (``ChannelWriter``,
/// on the client's event loop: in navd, the navigation loop's own for the first clients, then the loop
/// ``ClientLoopChooser`` gives; lines are sent to the socket directly). One child task per connection in a
/// discarding task group.
/// On shutdown every client gets a `bye` line and the socket file is removed.
public final class SocketServer: DaemonService {
    private let settings: NavdConfig.Socket
    private let policy: Mutex<AccessPolicy>
    private let router: CommandRouter
    private let hub: EventHub
    private let navigation: NavigationService
    private let readiness: Readiness
    private let logger: Logger
    /// Every connected client's session (shared with the WebSocket transport).
    let sessions: ClientSessions
    /// Which event loop each new client lives on (nil: `clientEventLoops` chooses, its lines queued in place).
    let clientLoops: ClientLoopChooser?

    public init(
        settings: NavdConfig.Socket, policy: AccessPolicy, router: CommandRouter, hub: EventHub, navigation: NavigationService,
        readiness: Readiness, logger: Logger, clientEventLoops: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        clientLoops: ClientLoopChooser? = nil
    ) {
        self.clientLoops = clientLoops
        self.settings = settings
        self.policy = Mutex(policy)
        self.router = router
        self.hub = hub
        self.navigation = navigation
        self.readiness = readiness
        self.logger = logger
        sessions = ClientSessions(
            settings: settings, router: router, hub: hub, navigation: navigation, logger: logger, clientEventLoops: clientEventLoops)
    }

    /// New control lists (SIGHUP); connected clients keep the rights they connected with.
    public func update(policy: AccessPolicy) {
        self.policy.withLock { $0 = policy }
    }

    public func run() async throws {
        let path = settings.path
        let limit = settings.maxLineLength
        try FileManager.default.createDirectory(
            atPath: PathText.deletingLastComponent(of: path), withIntermediateDirectories: true)
        let listener = try UnixListener(path: path, backlog: 64, logger: logger)
        defer { unlink(path) }
        let connections = listener.connections()
        defer { listener.stop() }
        try applyOwnership(path)
        logger.info("listening", metadata: ["socket": "\(path)", "mode": "\(String(settings.mode, radix: 8))"])
        readiness.socketListening()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await accepted in connections {
                    // On the loop's event loop, where the connection is: a command line is read, decoded
                    // and queued for the loop on one thread (0.35-0.5 ms less per command than on the pool).
                    group.addTask(executorPreference: sessions.navigation.sessionExecutor) {
                        await self.serve(accepted, lineLimit: limit)
                    }
                }
            }
        } onGracefulShutdown: {
            self.hub.closeAll(reason: "navd is stopping")
            listener.stop()
        }
        logger.info("socket closed", metadata: ["socket": "\(path)"])
    }

    /// True when something accepts connections at `path` (a running navd); false for no file or a stale one (a
    /// killed navd's socket file refuses connections, and binding replaces it).
    public static func isServed(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let result = UnixListener.withAddress(path, { connect(fd, $0, $1) }) else { return false }
        return result == 0
    }

    private func applyOwnership(_ path: String) throws {
        if !settings.group.isEmpty {
            let gid: gid_t
            if let number = gid_t(settings.group) {
                gid = number
            } else if let entry = getgrnam(settings.group) {
                gid = entry.pointee.gr_gid
            } else {
                throw SocketServerError("socket.group '\(settings.group)' is not a group on this system")
            }
            // Under the shipped unit (Group=navd) the socket is created with navd's group already, and chown is
            // outside the unit's system-call filter (@privileged): only a different group needs the call.
            var status = stat()
            guard stat(path, &status) == 0 else {
                throw SocketServerError("cannot stat \(path): \(String(cString: strerror(errno)))")
            }
            if status.st_gid != gid, chown(path, uid_t.max, gid) != 0 {
                let reason = String(cString: strerror(errno))
                throw SocketServerError(
                    "cannot give \(path) to group \(settings.group): \(reason) (navd must be a member of the group, and a "
                        + "system-call filter must allow chown; under systemd, run navd with Group=\(settings.group) instead)")
            }
        }
        guard chmod(path, mode_t(settings.mode)) == 0 else {
            throw SocketServerError("cannot chmod \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Hands an accepted socket to NIO (reading, and what its writer cannot send at once) and serves it.
    private func serve(_ accepted: UnixListener.Accepted, lineLimit: Int) async {
        let connection: (channel: any Channel, input: NIOLoopBound<ClientInputHandler>)
        // Past the navigation loop's share of clients, another loop queues and writes this one's lines.
        let queueingLoop = clientLoops?.take()
        defer { clientLoops?.release(queueingLoop) }
        let sessions = self.sessions
        do {
            // A client may send its commands and shut down its side; its answers are still written.
            let bootstrap = ClientBootstrap(group: queueingLoop ?? sessions.clientEventLoops).channelOption(.allowRemoteHalfClosure, value: true)
            connection = try await bootstrap.withConnectedSocket(accepted.descriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let input = sessions.makeInputHandler(on: channel)
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(BoundedLineDecoder(limit: lineLimit)))
                    try channel.pipeline.syncOperations.addHandler(input.value)
                    return (channel, input)
                }
            }
        } catch {
            // NIO closed the socket with the channel it could not set up.
            logger.warning("a client's connection could not be set up", metadata: ["peer": "\(accepted.peer)", "error": "\(error)"])
            return
        }
        let mayControl = policy.withLock { $0.mayControl(accepted.peer) }
        await sessions.serve(
            connection.channel, input: connection.input, peer: .unix(accepted.peer), mayControl: mayControl, descriptor: accepted.descriptor,
            queueingLoop: queueingLoop)
    }
}

public struct SocketServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
