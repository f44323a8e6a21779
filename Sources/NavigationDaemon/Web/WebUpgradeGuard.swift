import NIOCore
import NIOHTTP1
import WebBridge

/// Answers a WebSocket handshake that ``WebGate`` refuses (another site's origin, a wrong token) with its HTTP
/// status and reason, and closes: placed before NIO's upgrader, so that a refused handshake never waits on it.
final class WebUpgradeGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let gate: WebGate
    private var refused = false

    init(gate: WebGate) { self.gate = gate }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused { return }
        guard case .head(let head) = unwrapInboundIn(data), head.headers["upgrade"].first?.lowercased() == "websocket",
            case .refuse(let status, let reason) = gate.decide(WebServer.request(head))
        else {
            context.fireChannelRead(data)
            return
        }
        refused = true
        var headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(reason.utf8.count + 1)), ("Connection", "close"),
        ])
        headers.add(name: "Content-Security-Policy", value: WebGate.contentSecurityPolicy)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reason + "\n")))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
