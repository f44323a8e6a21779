import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A lean HTTP/1.1 client for routing engines on NIO: one request at a time per connection, connections kept
/// alive per server and reused (a reroute to a local engine is one write and one read on an open socket), and
/// TLS through NIOSSL for https (the system's trust roots, plus a CA file for a fleet's own endpoint). The answer
/// is collected into one buffer on the connection's event loop and refused past the size limit as it comes; a
/// `Content-Length` over the limit is refused before the body. Redirects, the total timeout and the typed errors
/// are ``RouteHTTPExecutor``'s.
final class EngineHTTPClient: Sendable {
    /// An answer: status, headers and the whole body.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer
        /// The connection may carry another request.
        var keepAlive: Bool
    }

    /// Why an exchange failed, before ``RouteHTTPExecutor`` names it for the driver.
    enum Failure: Error {
        /// The answer is larger than the limit; `announced` is its `Content-Length` when that said so.
        case tooLarge(announced: Int?)
        /// The connection closed before the answer was complete; `answering`: after the answer's head.
        case closed(answering: Bool)
        /// The connection failed (`answering`: after the answer's head).
        case broken(any Error, answering: Bool)
        /// The URL cannot be requested.
        case invalidURL(String)
        /// No TLS context (the CA file cannot be read, say).
        case tls(any Error)
        case shutDown
        /// The exchange's deadline (the total timeout) passed before its answer was complete.
        case deadline
    }

    /// Idle connections kept per server.
    static let idlePerServer = 4

    private let group: any EventLoopGroup
    private let connectTimeout: TimeAmount
    private let maximumResponseSize: Int
    private let trustRootsFile: String?
    private let tlsContext = Mutex<NIOSSLContext?>(nil)
    private struct Pool {
        var idle: [HTTPTarget.Server: [any Channel]] = [:]
        var shutDown = false
    }
    private let pool = Mutex(Pool())
    /// The URL parsed last and its target: an engine's requests mostly go to one URL (Valhalla's `/route`, every
    /// reroute), which is then parsed once, not once a request.
    private let lastTarget = Mutex<(url: String, target: HTTPTarget)?>(nil)

    /// `group`: where connections live (nil: NIO's shared event loops).
    init(group: (any EventLoopGroup)? = nil, connectTimeout: Duration, maximumResponseSize: Int, trustRootsFile: String? = nil) {
        self.group = group ?? MultiThreadedEventLoopGroup.singleton
        self.connectTimeout = TimeAmount(connectTimeout)
        self.maximumResponseSize = maximumResponseSize
        self.trustRootsFile = trustRootsFile
    }

    /// Closes the idle connections; requests after this fail.
    func shutdown() async {
        let channels = pool.withLock { pool in
            pool.shutDown = true
            defer { pool.idle = [:] }
            return pool.idle.values.flatMap { $0 }
        }
        for channel in channels { try? await channel.close() }
    }

    /// Sends one request and collects its answer, whatever the status, by `deadline` (connecting included). A
    /// kept-alive connection the server had closed meanwhile is noticed when nothing of an answer came: the request
    /// goes once more on a new one.
    func execute(method: HTTPMethod, url: String, headers: [String: String], body: Data?, deadline: NIODeadline) async throws -> Answer {
        let target = try target(of: url)
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: target.requestTarget)
        head.headers.add(name: "Host", value: target.hostHeader)
        if let authorization = target.authorization, headers.keys.allSatisfy({ $0.lowercased() != "authorization" }) {
            head.headers.add(name: "Authorization", value: authorization)
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head.headers.add(name: name, value: value) }
        if let body { head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count)) }
        let bodyBuffer = body.map { ByteBuffer(bytes: $0) }
        while true {
            try Task.checkCancellation()
            let (channel, reused) = try await connection(to: target, deadline: deadline)
            do {
                let answer = try await exchange(on: channel, head: head, body: bodyBuffer, deadline: deadline)
                if answer.keepAlive { checkIn(channel, server: target.server) } else { channel.close(promise: nil) }
                return answer
            } catch Failure.closed(answering: false) where reused {
                continue  // the server had closed this idle connection: a new one (a new connection is not retried)
            } catch {
                channel.close(promise: nil)
                throw error
            }
        }
    }

    /// Where `url` sends a request: the target parsed last when it is the same URL, else parsed now.
    private func target(of url: String) throws(Failure) -> HTTPTarget {
        if let last = lastTarget.withLock({ $0 }), last.url == url { return last.target }
        let target: HTTPTarget
        do {
            target = try HTTPTarget(url)
        } catch {
            throw Failure.invalidURL(error.description)
        }
        lastTarget.withLock { $0 = (url, target) }
        return target
    }

    /// One request on `channel`, which no other request uses meanwhile. Cancelling the task, or `deadline` passing
    /// first, closes the connection.
    private func exchange(on channel: any Channel, head: HTTPRequestHead, body: ByteBuffer?, deadline: NIODeadline) async throws -> Answer {
        let promise = channel.eventLoop.makePromise(of: Answer.self)
        return try await withTaskCancellationHandler {
            // Written at once when the task already runs on the connection's event loop (navd's calculations do):
            // not queued behind what that loop has to do next.
            let send: @Sendable () -> Void = {
                guard let handler = try? channel.pipeline.syncOperations.handler(type: HTTPExchangeHandler.self) else {
                    return promise.fail(Failure.closed(answering: false))
                }
                handler.start(promise)
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil) }
                let bound = NIOLoopBound(handler, eventLoop: channel.eventLoop)
                let timeout = channel.eventLoop.scheduleTask(deadline: deadline) { bound.value.fail(.deadline) }
                promise.futureResult.whenComplete { _ in timeout.cancel() }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil)).whenFailure { error in bound.value.fail(.broken(error, answering: false)) }
            }
            if channel.eventLoop.inEventLoop { send() } else { channel.eventLoop.execute(send) }
            return try await promise.futureResult.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// An idle kept-alive connection to the target's server, or a new one connected by `deadline` (and within the
    /// connect timeout).
    private func connection(to target: HTTPTarget, deadline: NIODeadline) async throws -> (any Channel, reused: Bool) {
        let reusable = try pool.withLock { pool throws(Failure) -> (any Channel)? in
            guard !pool.shutDown else { throw Failure.shutDown }
            while let channel = pool.idle[target.server]?.popLast() {
                if channel.isActive { return channel }
            }
            return nil
        }
        if let reusable { return (reusable, true) }
        let remaining = deadline - .now()
        guard remaining > .zero else { throw Failure.deadline }
        // The deadline comes first: a connect that runs out of time is the whole exchange's timeout.
        let deadlineFirst = remaining < connectTimeout
        let tls = try target.server.isTLS ? context() : nil
        let limit = maximumResponseSize
        // The channel, once it exists, so that cancelling can close it while it connects.
        let connecting = ChannelSlot()
        // NIO's client bootstrap sets TCP_NODELAY itself (a request is one write; its answer is not held back).
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(deadlineFirst ? remaining : connectTimeout)
            .channelInitializer { channel in
                connecting.channel.withLock { $0 = channel }
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: target.serverName)) }
                    try pipeline.addHTTPClientHandlers()
                    try pipeline.addHandler(HTTPExchangeHandler(limit: limit))
                }
            }
        do {
            let channel = try await withTaskCancellationHandler {
                try await bootstrap.connect(host: target.server.host, port: target.server.port).get()
            } onCancel: {
                connecting.channel.withLock { $0 }?.close(promise: nil)
            }
            return (channel, false)
        } catch ChannelError.connectTimeout where deadlineFirst {
            throw Failure.deadline
        }
    }

    private func checkIn(_ channel: any Channel, server: HTTPTarget.Server) {
        let kept = pool.withLock { pool in
            guard !pool.shutDown, pool.idle[server, default: []].count < Self.idlePerServer else { return false }
            pool.idle[server, default: []].append(channel)
            return true
        }
        if !kept { channel.close(promise: nil) }
    }

    /// Makes the TLS context now (it is made at the first https request otherwise).
    func prepareTLS() throws(Failure) {
        _ = try context()
    }

    /// The TLS context, made once: the system's trust roots and the CA file, if any.
    private func context() throws(Failure) -> NIOSSLContext {
        do {
            return try tlsContext.withLock { context in
                if let context { return context }
                var configuration = TLSConfiguration.makeClientConfiguration()
                if let trustRootsFile { configuration.additionalTrustRoots = [.file(trustRootsFile)] }
                let made = try NIOSSLContext(configuration: configuration)
                context = made
                return made
            }
        } catch {
            throw .tls(error)
        }
    }
}

/// A channel being connected, for the cancellation handler.
private final class ChannelSlot: Sendable {
    let channel = Mutex<(any Channel)?>(nil)
}

/// Collects one answer at a time on its connection's event loop.
final class HTTPExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let limit: Int
    private var promise: EventLoopPromise<EngineHTTPClient.Answer>?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    private var context: ChannelHandlerContext?
    /// What broke a new connection before its first exchange began (a TLS handshake refused while the request was
    /// still on its way to the event loop): that exchange fails with it, not with a bare "closed". An idle
    /// kept-alive connection that breaks is only closed: its next request goes on a new one.
    private var brokenBeforeStart: EngineHTTPClient.Failure?
    private var hasExchanged = false

    init(limit: Int) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// On the event loop: the request is being written; its answer completes `promise`.
    func start(_ promise: EventLoopPromise<EngineHTTPClient.Answer>) {
        if let brokenBeforeStart { return promise.fail(brokenBeforeStart) }
        hasExchanged = true
        guard let context, context.channel.isActive else { return promise.fail(EngineHTTPClient.Failure.closed(answering: false)) }
        self.promise = promise
        head = nil
        body = context.channel.allocator.buffer(capacity: 0)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard promise != nil else { return }  // nothing asked: an answer nobody waits for is dropped
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx answers are interim; the final one follows.
            if (100..<200).contains(head.status.code), head.status.code != 101 { return }
            if let announced = head.headers.first(name: "content-length").flatMap(Int.init), announced > limit {
                return fail(.tooLarge(announced: announced))
            }
            self.head = head
            body.reserveCapacity(min(head.headers.first(name: "content-length").flatMap(Int.init) ?? 0, limit))
        case .body(var part):
            guard head != nil else { return }
            guard body.readableBytes + part.readableBytes <= limit else { return fail(.tooLarge(announced: nil)) }
            body.writeBuffer(&part)
        case .end:
            guard let head, let promise else { return }
            self.promise = nil
            self.head = nil
            let answer = EngineHTTPClient.Answer(status: Int(head.status.code), headers: head.headers, body: body, keepAlive: head.isKeepAlive)
            body = context.channel.allocator.buffer(capacity: 0)
            promise.succeed(answer)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.closed(answering: head != nil))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if promise == nil, !hasExchanged, brokenBeforeStart == nil { brokenBeforeStart = .broken(error, answering: false) }
        fail(.broken(error, answering: head != nil))
        context.close(promise: nil)
    }

    /// Fails the exchange in progress (if any) and closes the connection: what is left of the answer is unread.
    func fail(_ failure: EngineHTTPClient.Failure) {
        guard let promise else { return }
        self.promise = nil
        head = nil
        promise.fail(failure)
        context?.close(promise: nil)
    }
}
