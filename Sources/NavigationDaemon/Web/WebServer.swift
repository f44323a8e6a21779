import FoundationEssentials
import Logging
import NavigationCore
import NavigationProtocol
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import WebBridge

/// navd's web listener (`[web] listen`): the socket protocol over WebSocket at `/ws`, served by the same client
/// sessions as the Unix socket, and the dashboard's embedded files. Who may open what is ``WebGate``'s decision.
public final class WebServer: DaemonService {
    private let web: NavdConfig.Web
    private let sessions: ClientSessions
    private let gate: WebGate
    private let files: [String: (type: String, bytes: [UInt8])]
    /// The Unix socket's loop chooser: a WebSocket client is counted as one of the navigation loop's clients.
    private let clientLoops: ClientLoopChooser?
    private let logger: Logger

    enum Connection {
        case websocket(any Channel, input: NIOLoopBound<ClientInputHandler>, control: Bool)
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>)
    }

    init(
        web: NavdConfig.Web, token: String?, sessions: ClientSessions, files: [String: (type: String, bytes: [UInt8])], clientLoops: ClientLoopChooser? = nil,
        logger: Logger
    ) {
        self.web = web
        self.sessions = sessions
        self.files = files
        self.clientLoops = clientLoops
        gate = WebGate(origins: Set(web.origins), token: token, files: Set(files.keys))
        self.logger = logger
    }

    public func run() async throws {
        guard let address = web.address else { return }
        let gate = self.gate
        let limit = sessions.settings.maxLineLength
        let sessions = self.sessions
        let server: NIOAsyncChannel<EventLoopFuture<Connection>, Never> = try await ServerBootstrap(
            group: MultiThreadedEventLoopGroup.singleton, childGroup: sessions.clientEventLoops)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(host: address.host, port: address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
                        // A frame over the line limit is refused from its header, before its payload is buffered;
                        // the codec answers it as the socket answers a long line (line_too_long, then close).
                        maxFrameSize: limit, enableAutomaticErrorHandling: false,
                        shouldUpgrade: { channel, head in
                            guard case .upgrade(_, let subprotocol) = gate.decide(WebServer.request(head)) else {
                                return channel.eventLoop.makeSucceededFuture(nil)
                            }
                            var headers = HTTPHeaders()
                            if let subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
                            return channel.eventLoop.makeSucceededFuture(headers)
                        },
                        upgradePipelineHandler: { channel, head in
                            channel.eventLoop.makeCompletedFuture {
                                guard case .upgrade(let control, _) = gate.decide(WebServer.request(head)) else {
                                    throw SocketServerError("upgrade without a decision to upgrade")
                                }
                                // The guard reads HTTP; after the upgrade the bytes are WebSocket frames.
                                let guardHandler = try channel.pipeline.syncOperations.handler(type: WebUpgradeGuard.self)
                                channel.pipeline.syncOperations.removeHandler(guardHandler, promise: nil)
                                try channel.pipeline.syncOperations.addHandler(WebSocketLineCodec(limit: limit))
                                let input = sessions.makeInputHandler(on: channel)
                                try channel.pipeline.syncOperations.addHandler(input.value)
                                return .websocket(channel, input: input, control: control)
                            }
                        })
                    let configuration = NIOTypedHTTPServerUpgradeConfiguration(
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.eventLoop.makeCompletedFuture {
                                return .http(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                            }
                        })
                    let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                    let upgradeHandler = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPServerUpgradeHandler<Connection>.self)
                    try channel.pipeline.syncOperations.addHandler(WebUpgradeGuard(gate: gate), position: .before(upgradeHandler))
                    return negotiated
                }
            }
        logger.info("web listening", metadata: ["address": "\(web.listen)", "control": "\(gate.token != nil)"])
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    private func serve(_ negotiated: EventLoopFuture<Connection>) async {
        do {
            switch try await negotiated.get() {
            case .websocket(let channel, let input, let control):
                let address = channel.remoteAddress.map { "\($0)" } ?? "?"
                // Its connection lives on the navigation loop (the listener's child group), which queues its lines.
                clientLoops?.takeHome()
                defer { clientLoops?.release(nil) }
                await sessions.serve(channel, input: input, peer: .web(address: address), mayControl: control)
            case .http(let channel):
                try await answer(channel)
            }
        } catch {
            logger.debug("web connection ended with an error", metadata: ["error": "\(error)"])
        }
    }

    /// One HTTP request: a file, or the refusal with its reason.
    private func answer(_ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async throws {
        try await channel.executeThenClose { inbound, outbound in
            for try await part in inbound {
                guard case .head(let head) = part else { continue }
                var headers = HTTPHeaders([
                    ("Content-Security-Policy", WebGate.contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
                    ("Cache-Control", "no-store"), ("Connection", "close"),
                ])
                let status: HTTPResponseStatus
                var body: [UInt8]
                switch gate.decide(Self.request(head)) {
                case .file(let path):
                    let file = files[path]!
                    status = .ok
                    headers.add(name: "Content-Type", value: file.type)
                    body = file.bytes
                case .refuse(let code, let reason):
                    status = HTTPResponseStatus(statusCode: code)
                    headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
                    body = Array((reason + "\n").utf8)
                case .upgrade:
                    // The upgrader takes these; one that reaches here lacked a WebSocket handshake's headers.
                    status = .badRequest
                    headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
                    body = Array("not a WebSocket handshake\n".utf8)
                }
                if head.method == .HEAD { body = [] }
                headers.add(name: "Content-Length", value: String(body.count))
                try await outbound.write(.head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                try await outbound.write(.end(nil))
                return
            }
        }
    }

    static func request(_ head: HTTPRequestHead) -> WebGate.Request {
        WebGate.Request(
            method: head.method.rawValue, target: head.uri,
            headers: Dictionary(head.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }))
    }
}
