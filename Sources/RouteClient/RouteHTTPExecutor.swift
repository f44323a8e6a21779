import FoundationEssentials
import Glibc
import NIOCore
import NIOSSL
import RouteAdapters
import Synchronization
import SystemSupport

/// Performs ``HTTPRequestSpec`` values over HTTP/1.1 (``EngineHTTPClient``: kept-alive connections, TLS for
/// https): a connect timeout, a total timeout over the whole exchange (connect, head and body: a server that
/// stalls mid-body is `timed_out`), a response size limit, redirects only on the same server
/// (``RedirectPolicy``), and cancellation through Swift task cancellation.
///
/// Owns its connections: call ``shutdown()`` when done.
public final class RouteHTTPExecutor: Sendable {
    public struct Configuration: Sendable {
        /// Time to establish a TCP connection.
        public var connectTimeout: Duration
        /// Time for the whole exchange, from sending the request to the last byte of the answer.
        public var totalTimeout: Duration
        /// Larger answers are refused, bytes.
        public var maximumResponseSize: Int
        /// A PEM file of certificate authorities trusted for https besides the system's (a fleet's own CA).
        public var trustRootsFile: String?

        public init(
            connectTimeout: Duration = .seconds(5), totalTimeout: Duration = .seconds(30), maximumResponseSize: Int = 32 << 20,
            trustRootsFile: String? = nil
        ) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.maximumResponseSize = maximumResponseSize
            self.trustRootsFile = trustRootsFile
        }
    }

    /// The status and body of an answer.
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
    }

    /// One request and how it ended: what the flight recorder keeps. Its texts come with every secret of the
    /// request (``HTTPRequestSpec/secrets``) replaced by `***`, made when read: the request path hands the
    /// observer the bytes as they are, and the recorder turns them into text on its own thread.
    public struct Exchange: Sendable {
        /// The request as sent, secrets and all: read through ``url`` and ``requestBody``.
        let spec: HTTPRequestSpec
        /// HTTP status; nil when no answer came.
        public var status: Int?
        /// The answer's bytes as received: read through ``responseBody``.
        var responseBytes: Data?
        public var error: RouteFetchError?
        /// From sending the request to the end of the answer (or the failure), seconds.
        public var seconds: Double

        public var method: String { spec.method == .get ? "GET" : "POST" }
        public var url: String { spec.scrubbed(spec.url) }
        public var requestBody: String? { spec.body.map { spec.scrubbed(String(decoding: $0, as: UTF8.self)) } }
        public var responseBody: String? { responseBytes.map { spec.scrubbed(String(decoding: $0, as: UTF8.self)) } }
    }

    public let configuration: Configuration
    private let client: EngineHTTPClient
    private let observer = HandlerSlot<Exchange>()
    /// The last answer parsed where its request was made (one of at most ``inlineParseLimit`` bytes) and its
    /// parser: what ``rehearseLastAnswer()`` parses again shortly before the next answer is due.
    let lastAnswer = Mutex<ParsedAnswer?>(nil)

    struct ParsedAnswer: Sendable {
        var body: Data
        var parser: any RouteResponseParser
        /// When its last byte came (before the parse).
        var received: NIODeadline
    }

    /// When the last answer parsed here (``rehearseLastAnswer()``) came, its last byte, before its parse: how long
    /// an engine took is this less when its request was sent. nil before the first.
    public var lastAnswerReceived: NIODeadline? { lastAnswer.withLock { $0?.received } }

    /// Who sees every exchange (the flight recorder); nil: nobody.
    public func observe(_ observer: (@Sendable (Exchange) -> Void)?) {
        self.observer.set(observer)
    }

    /// `eventLoop`: where the engines' connections live and their answers arrive (navd's navigation loop, so that
    /// a calculation running there crosses no thread); nil: any of NIO's shared event loops.
    public init(configuration: Configuration = Configuration(), eventLoop: (any EventLoop)? = nil) {
        self.configuration = configuration
        // Redirects are followed by send(_:) under RedirectPolicy. A refused connection is reported at once:
        // callers (route calculation sessions) retry with their own backoff and publish each failure.
        client = EngineHTTPClient(
            group: eventLoop, connectTimeout: configuration.connectTimeout, maximumResponseSize: configuration.maximumResponseSize,
            trustRootsFile: configuration.trustRootsFile)
    }

    public func shutdown() async throws {
        await client.shutdown()
    }

    /// Why https requests cannot work (the CA file cannot be read or is not PEM), nil when they can: for a
    /// check at start. Reading it again is tried on every https request until it works.
    public func tlsProblem() -> String? {
        do {
            try client.prepareTLS()
            return nil
        } catch {
            return classify(error, server: "").detail
        }
    }

    /// Sends the request and collects the answer, whatever its status.
    public func execute(_ spec: HTTPRequestSpec) async throws(RouteFetchError) -> Response {
        guard let observer = observer.handler else { return try await send(spec) }
        let started = ContinuousClock.now
        func seconds() -> Double {
            let elapsed = started.duration(to: .now).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
        var exchange = Exchange(spec: spec, seconds: 0)
        do {
            let response = try await send(spec)
            exchange.status = response.status
            exchange.responseBytes = response.body
            exchange.seconds = seconds()
            observer(exchange)
            return response
        } catch {
            exchange.error = error
            exchange.seconds = seconds()
            observer(exchange)
            throw error
        }
    }

    /// Sends the request, following same-server redirects, within the total timeout: one deadline over the whole
    /// exchange, connection and body included, kept by the connection's event loop (no timer task or thread).
    private func send(_ spec: HTTPRequestSpec) async throws(RouteFetchError) -> Response {
        do {
            return try await sendFollowingRedirects(spec, deadline: .now() + TimeAmount(configuration.totalTimeout))
        } catch {
            throw classify(error, server: spec.server)
        }
    }

    private func sendFollowingRedirects(_ spec: HTTPRequestSpec, deadline: NIODeadline) async throws(RouteFetchError) -> Response {
        var current = spec
        var hops = 0
        while true {
            let (response, location) = try await sendOnce(current, deadline: deadline)
            guard RedirectPolicy.statuses.contains(response.status), let location else { return response }
            guard hops < RedirectPolicy.maximumHops else {
                throw RouteFetchError(
                    server: spec.server, kind: .httpStatus(response.status), detail: "more than \(RedirectPolicy.maximumHops) redirects, not followed")
            }
            switch RedirectPolicy.decide(from: current.url, location: location) {
            case .follow(let url): current.url = url
            case .refuse(let why): throw RouteFetchError(server: spec.server, kind: .httpStatus(response.status), detail: "\(why), not followed")
            }
            hops += 1
        }
    }

    /// One request: the answer, and its `Location` when it redirects.
    private func sendOnce(_ spec: HTTPRequestSpec, deadline: NIODeadline) async throws(RouteFetchError) -> (Response, String?) {
        do {
            let answer = try await client.execute(
                method: spec.method == .get ? .GET : .POST, url: spec.url, headers: spec.headers, body: spec.body, deadline: deadline)
            return (Response(status: answer.status, body: Data(answer.body.readableBytesView)), answer.headers.first(name: "location"))
        } catch {
            throw classify(error, server: spec.server)
        }
    }

    private func classify(_ error: any Error, server: String) -> RouteFetchError {
        if let error = error as? RouteFetchError { return error }
        if error is CancellationError || Task.isCancelled {
            return RouteFetchError(server: server, kind: .cancelled, detail: "cancelled")
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return RouteFetchError(server: server, kind: .timedOut, detail: "no connection within \(configuration.connectTimeout)")
        }
        guard let failure = error as? EngineHTTPClient.Failure else {
            return RouteFetchError(server: server, kind: .connectionFailed, detail: Self.readable(error))
        }
        switch failure {
        case .deadline:
            return RouteFetchError(server: server, kind: .timedOut, detail: "no complete answer within \(configuration.totalTimeout)")
        case .tooLarge(let announced):
            return RouteFetchError(
                server: server, kind: .responseTooLarge(limit: configuration.maximumResponseSize),
                detail: announced.map { "Content-Length \($0)" } ?? "body too large")
        case .closed(let answering):
            return RouteFetchError(
                server: server, kind: .connectionLost, detail: answering ? "the server closed the connection in the middle of the answer" : "the server closed the connection")
        case .broken(let underlying, let answering):
            if let channelError = underlying as? ChannelError, case .connectTimeout = channelError {
                return RouteFetchError(server: server, kind: .timedOut, detail: "no connection within \(configuration.connectTimeout)")
            }
            return RouteFetchError(server: server, kind: answering ? .connectionLost : .connectionFailed, detail: Self.readable(underlying))
        case .invalidURL(let why):
            return RouteFetchError(server: server, kind: .invalidRequest, detail: why)
        case .tls(let underlying):
            return RouteFetchError(server: server, kind: .connectionFailed, detail: "no TLS: \(underlying)")
        case .shutDown:
            return RouteFetchError(server: server, kind: .connectionFailed, detail: "the HTTP client was shut down")
        }
    }

    /// NIO's connection errors describe every attempted address; keep the part a person needs.
    static func readable(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("Connection refused") || text.contains("connection refused") || text.contains("ECONNREFUSED") {
            return "connection refused (is the routing engine running?)"
        }
        if text.contains("Connection reset") { return "connection reset by the server" }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed") || text.contains("unableToValidateCertificate") {
            return "the server's TLS certificate is not trusted (neither by the system's CAs nor by routing.ca_file): \(text)"
        }
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        return text
    }
}
