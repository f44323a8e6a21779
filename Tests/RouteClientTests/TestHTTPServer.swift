import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP server on 127.0.0.1 with scripted behaviour, for testing the HTTP edge against real sockets.
final class TestHTTPServer: Sendable {
    enum Behavior: Sendable {
        /// Answer every request with this status, content type and body.
        case respond(status: Int, contentType: String, body: Data)
        /// Read the request and never answer.
        case hang
        /// Send the head (announcing `body.count` bytes) and the first `sent` bytes of `body`, then close the
        /// connection: an answer cut in the middle.
        case cutMidAnswer(body: Data, sent: Int)
        /// Send the head (announcing `announced` bytes) and the first `sent` bytes of `body`, then nothing more,
        /// keeping the connection open: a stalled server.
        case stallBody(body: Data, announced: Int, sent: Int)
        /// Answer with `status` and a `Location` header; `location` may contain `{port}`, this server's port.
        case redirect(status: Int, location: String)
        /// Redirect `/route` (or any path but `target`) to `target` on this server, and answer `target` with
        /// `body`: a same-server redirect a client may follow.
        case redirectThenRespond(target: String, body: Data)
        /// Answer as `respond` (keep-alive, as HTTP/1.1 has it) and close the connection right after: a server
        /// that ends idle connections sooner than its client expects.
        case respondThenClose(body: Data)
    }

    /// A certificate and its key (PEM files) for https.
    struct TLSFiles: Sendable {
        var certificate: String
        var key: String
    }

    /// Connections accepted.
    final class Counter: Sendable {
        let value = Atomic(0)
    }

    /// What the server received.
    struct ReceivedRequest: Sendable {
        var method: String
        var uri: String
        var headers: [String: String]
        var body: Data
    }

    let port: Int
    let requests: AsyncStream<ReceivedRequest>
    let isTLS: Bool
    private let channel: any Channel
    private let accepted: Counter

    var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }
    /// Connections accepted so far.
    var connections: Int { accepted.value.load(ordering: .relaxed) }

    private init(port: Int, requests: AsyncStream<ReceivedRequest>, isTLS: Bool, channel: any Channel, accepted: Counter) {
        self.port = port
        self.requests = requests
        self.isTLS = isTLS
        self.channel = channel
        self.accepted = accepted
    }

    static func start(_ behavior: Behavior, tls: TLSFiles? = nil) async throws -> TestHTTPServer {
        let (stream, continuation) = AsyncStream.makeStream(of: ReceivedRequest.self)
        let accepted = Counter()
        let context = try tls.map {
            try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile($0.certificate).map { .certificate($0) }, privateKey: .file($0.key)))
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                accepted.value.add(1, ordering: .relaxed)
                return child.eventLoop.makeCompletedFuture {
                    if let context { try child.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(Handler(behavior: behavior, received: continuation))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TestHTTPServer(port: channel.localAddress?.port ?? 0, requests: stream, isTLS: tls != nil, channel: channel, accepted: accepted)
    }

    func stop() async {
        try? await channel.close()
    }

    /// A port on 127.0.0.1 that refuses connections: bound but not listening, and kept bound until the value is
    /// released, so that no other test's server can take it meanwhile.
    final class RefusingPort: @unchecked Sendable {
        let port: Int
        private let fd: Int32

        init() throws {
            let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) } }
            guard socketFD >= 0, bound == 0 else { throw CancellationError() }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) } }
            fd = socketFD
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let behavior: Behavior
        let received: AsyncStream<ReceivedRequest>.Continuation
        var head: HTTPRequestHead?
        var body = Data()

        init(behavior: Behavior, received: AsyncStream<ReceivedRequest>.Continuation) {
            self.behavior = behavior
            self.received = received
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = Data()
            case .body(let buffer):
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                guard let head else { return }
                received.yield(
                    ReceivedRequest(
                        method: head.method.rawValue, uri: head.uri,
                        headers: Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a }),
                        body: body))
                if case .cutMidAnswer(let full, let sent) = behavior {
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: "application/json")
                    headers.add(name: "Content-Length", value: String(full.count))
                    context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
                    context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: full.prefix(sent))))), promise: nil)
                    context.close(promise: nil)
                    return
                }
                if case .stallBody(let full, let announced, let sent) = behavior {
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: "application/json")
                    headers.add(name: "Content-Length", value: String(announced))
                    context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
                    context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: full.prefix(sent))))), promise: nil)
                    return
                }
                if case .redirect(let status, let location) = behavior {
                    respond(context, head, status: status, location: location.replacingOccurrences(of: "{port}", with: String(port(context))))
                    return
                }
                if case .redirectThenRespond(let target, let responseBody) = behavior {
                    if head.uri == target {
                        respond(context, head, status: 200, body: responseBody)
                    } else {
                        respond(context, head, status: 307, location: target)
                    }
                    return
                }
                if case .respondThenClose(let responseBody) = behavior {
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: "application/json")
                    headers.add(name: "Content-Length", value: String(responseBody.count))
                    context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .ok, headers: headers))), promise: nil)
                    context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: responseBody)))), promise: nil)
                    let channel = context.channel
                    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
                    return
                }
                guard case .respond(let status, let contentType, let responseBody) = behavior else { return }
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: contentType)
                headers.add(name: "Content-Length", value: String(responseBody.count))
                let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers)
                context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: responseBody)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }

        func port(_ context: ChannelHandlerContext) -> Int { context.channel.localAddress?.port ?? 0 }

        func respond(_ context: ChannelHandlerContext, _ head: HTTPRequestHead, status: Int, location: String? = nil, body: Data = Data()) {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.count))
            if let location { headers.add(name: "Location", value: location) }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
