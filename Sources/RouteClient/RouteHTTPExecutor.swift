import AsyncHTTPClient
import FoundationEssentials
import Glibc
import NIOCore
import RouteAdapters
import Synchronization
import SystemSupport

/// Performs ``HTTPRequestSpec`` values with AsyncHTTPClient: a connect timeout, a total timeout over the whole
/// exchange (connect, head and body: a server that stalls mid-body is `timed_out`), a response size limit,
/// redirects only on the same server (``RedirectPolicy``), and cancellation through Swift task cancellation.
///
/// Owns its HTTP client: call ``shutdown()`` when done.
public final class RouteHTTPExecutor: Sendable {
    public struct Configuration: Sendable {
        /// Time to establish a TCP connection.
        public var connectTimeout: Duration
        /// Time for the whole exchange, from sending the request to the last byte of the answer.
        public var totalTimeout: Duration
        /// Larger answers are refused, bytes.
        public var maximumResponseSize: Int

        public init(connectTimeout: Duration = .seconds(5), totalTimeout: Duration = .seconds(30), maximumResponseSize: Int = 32 << 20) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.maximumResponseSize = maximumResponseSize
        }
    }

    /// The status and body of an answer.
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
    }

    /// One request and how it ended, with every secret of the request (``HTTPRequestSpec/secrets``) replaced by
    /// `***`: what the flight recorder keeps.
    public struct Exchange: Sendable {
        public var method: String
        public var url: String
        public var requestBody: String?
        /// HTTP status; nil when no answer came.
        public var status: Int?
        public var responseBody: String?
        public var error: RouteFetchError?
        /// From sending the request to the end of the answer (or the failure), seconds.
        public var seconds: Double
    }

    public let configuration: Configuration
    private let client: HTTPClient
    private let observer = HandlerSlot<Exchange>()

    /// Who sees every exchange (the flight recorder); nil: nobody.
    public func observe(_ observer: (@Sendable (Exchange) -> Void)?) {
        self.observer.set(observer)
    }

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.timeout = .init(connect: .init(configuration.connectTimeout))
        // Redirects are followed by send(_:) under RedirectPolicy: AsyncHTTPClient would follow them to any host.
        clientConfiguration.redirectConfiguration = .disallow
        // Report a refused connection at once instead of retrying until the connect timeout: callers
        // (route calculation sessions) retry with their own backoff and publish each failure.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Sends the request and collects the answer, whatever its status.
    public func execute(_ spec: HTTPRequestSpec) async throws(RouteFetchError) -> Response {
        guard let observer = observer.handler else { return try await send(spec) }
        let started = ContinuousClock.now
        func seconds() -> Double {
            let elapsed = started.duration(to: .now).components
            return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        }
        var exchange = Exchange(
            method: spec.method == .get ? "GET" : "POST", url: spec.scrubbed(spec.url),
            requestBody: spec.body.map { spec.scrubbed(String(decoding: $0, as: UTF8.self)) }, seconds: 0)
        do {
            let response = try await send(spec)
            exchange.status = response.status
            exchange.responseBody = spec.scrubbed(String(decoding: response.body, as: UTF8.self))
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

    /// Sends the request, following same-server redirects, within the total timeout: the deadline races the
    /// whole exchange, body included (AsyncHTTPClient's own deadline ends with the response head).
    private func send(_ spec: HTTPRequestSpec) async throws(RouteFetchError) -> Response {
        let server = spec.server
        let limit = configuration.totalTimeout
        let deadline = ContinuousClock.now + limit
        do {
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await self.sendFollowingRedirects(spec, deadline: deadline) }
                group.addTask {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw RouteFetchError(server: server, kind: .timedOut, detail: "no complete answer within \(limit)")
                }
                return response
            }
        } catch {
            throw classify(error, server: server, answering: false)
        }
    }

    private func sendFollowingRedirects(_ spec: HTTPRequestSpec, deadline: ContinuousClock.Instant) async throws(RouteFetchError) -> Response {
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
    private func sendOnce(_ spec: HTTPRequestSpec, deadline: ContinuousClock.Instant) async throws(RouteFetchError) -> (Response, String?) {
        let server = spec.server
        var request = HTTPClientRequest(url: spec.url)
        request.method = spec.method == .get ? .GET : .POST
        for (name, value) in spec.headers.sorted(by: { $0.key < $1.key }) { request.headers.add(name: name, value: value) }
        if let body = spec.body { request.body = .bytes(ByteBuffer(bytes: body)) }
        var answering = false
        do {
            try Task.checkCancellation()
            let remaining = ContinuousClock.now.duration(to: deadline)
            let response = try await client.execute(request, timeout: .init(max(remaining, .milliseconds(1))))
            answering = true
            let expected = response.headers.first(name: "content-length").flatMap(Int.init)
            if let expected, expected > configuration.maximumResponseSize {
                throw RouteFetchError(
                    server: server, kind: .responseTooLarge(limit: configuration.maximumResponseSize),
                    detail: "Content-Length \(expected)")
            }
            let buffer = try await response.body.collect(upTo: configuration.maximumResponseSize)
            let status = Int(response.status.code)
            return (Response(status: status, body: Data(buffer.readableBytesView)), response.headers.first(name: "location"))
        } catch {
            throw classify(error, server: server, answering: answering)
        }
    }

    /// `answering`: the response head had arrived, so any connection error broke an answer in progress.
    private func classify(_ error: any Error, server: String, answering: Bool) -> RouteFetchError {
        if let error = error as? RouteFetchError { return error }
        if error is CancellationError || Task.isCancelled {
            return RouteFetchError(server: server, kind: .cancelled, detail: "cancelled")
        }
        if error is NIOTooManyBytesError {
            return RouteFetchError(
                server: server, kind: .responseTooLarge(limit: configuration.maximumResponseSize), detail: "body too large")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return RouteFetchError(server: server, kind: .timedOut, detail: "limit \(configuration.totalTimeout)")
            case .connectTimeout:
                return RouteFetchError(server: server, kind: .timedOut, detail: "no connection within \(configuration.connectTimeout)")
            case .cancelled:
                return RouteFetchError(server: server, kind: .cancelled, detail: "cancelled")
            case .invalidURL, .emptyHost, .emptyScheme:
                return RouteFetchError(server: server, kind: .invalidRequest, detail: "\(error)")
            default:
                break
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return RouteFetchError(server: server, kind: .timedOut, detail: "no connection within \(configuration.connectTimeout)")
        }
        if answering || (error as? HTTPClientError) == .remoteConnectionClosed || "\(error)".contains("Connection reset") {
            return RouteFetchError(server: server, kind: .connectionLost, detail: Self.readable(error))
        }
        return RouteFetchError(server: server, kind: .connectionFailed, detail: Self.readable(error))
    }

    /// NIO's connection errors describe every attempted address; keep the part a person needs.
    static func readable(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("Connection refused") || text.contains("connection refused") || text.contains("ECONNREFUSED") {
            return "connection refused (is the routing engine running?)"
        }
        if text.contains("Connection reset") { return "connection reset by the server" }
        if text.contains("remoteConnectionClosed") { return "the server closed the connection" }
        return text
    }
}
