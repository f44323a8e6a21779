import FoundationEssentials
import Glibc
import NavigationCore
import NIOCore
import RouteAdapters

/// Where routes come from: a routing server through a route adapter, or application code.
public enum RouteSource: Sendable {
    case http(RouteAdapter)
    case custom(any CustomRouteProvider)
}

/// Fetches routes for a query: builds the request with the adapter's generator, sends it with the
/// executor, and parses the answer; or asks a custom provider. Every failure is a ``RouteFetchError``.
public struct RouteFetcher: Sendable {
    public var source: RouteSource
    public let executor: RouteHTTPExecutor

    public init(source: RouteSource, executor: RouteHTTPExecutor) {
        self.source = source
        self.executor = executor
    }

    public func routes(for query: RouteQuery) async throws(RouteFetchError) -> [Route] {
        switch source {
        case .custom(let provider):
            do {
                return query.withOriginSnapDistance(try await provider.routes(for: query))
            } catch let error as RouteFetchError {
                throw error
            } catch is CancellationError {
                throw RouteFetchError(server: "custom provider", kind: .cancelled, detail: "cancelled")
            } catch {
                throw RouteFetchError(server: "custom provider", kind: .providerFailed, detail: "\(error)")
            }
        case .http(let adapter):
            let request: HTTPRequestSpec
            do {
                request = try adapter.requestGenerator.routeRequest(for: query)
            } catch {
                throw RouteFetchError(server: "routing server", kind: .invalidRequest, detail: "\(error)")
            }
            return query.withOriginSnapDistance(try await executor.fetchRoutes(request, parser: adapter.responseParser))
        }
    }
}

/// Snaps a trace to the road network through a map-matching request and returns navigable routes.
public struct MapMatcher: Sendable {
    public var generator: any MapMatchingRequestGenerator
    public var parser: any RouteResponseParser
    public let executor: RouteHTTPExecutor

    public init(generator: any MapMatchingRequestGenerator, parser: any RouteResponseParser = OSRMResponseParser(), executor: RouteHTTPExecutor) {
        self.generator = generator
        self.parser = parser
        self.executor = executor
    }

    public func match(_ trace: [TracePoint]) async throws(RouteFetchError) -> [Route] {
        let request: HTTPRequestSpec
        do {
            request = try generator.matchRequest(for: trace)
        } catch {
            throw RouteFetchError(server: "map-matching server", kind: .invalidRequest, detail: "\(error)")
        }
        return try await executor.fetchRoutes(request, parser: parser)
    }
}

extension RouteHTTPExecutor {
    /// Answers larger than this are parsed on Swift's pool, not where the request was made, bytes: about 2.5 ms of
    /// parsing here. navd makes its requests on the navigation loop's event loop, and a long route's answer (7 MB
    /// for 1000 km, about 70 ms) must not hold fixes back there.
    static let inlineParseLimit = 256 << 10

    /// Sends any request (route or map matching) and parses the answer into routes.
    /// Error details never carry the request's secrets (an API key the server echoes back, for one).
    public func fetchRoutes(_ request: HTTPRequestSpec, parser: any RouteResponseParser) async throws(RouteFetchError) -> [Route] {
        do {
            return try await fetchRoutesUnscrubbed(request, parser: parser)
        } catch {
            var scrubbed = error
            scrubbed.detail = request.scrubbed(error.detail)
            throw scrubbed
        }
    }

    private func fetchRoutesUnscrubbed(_ request: HTTPRequestSpec, parser: any RouteResponseParser) async throws(RouteFetchError) -> [Route] {
        let response = try await execute(request)
        let received = NIODeadline.now()
        // Named only in an error: working it out of the URL took about 7,000 instructions an answer.
        var server: String { request.server }
        guard (200..<300).contains(response.status) else {
            let engineError = parser.engineError(in: response.body)
            // Engines report routing failures (OSRM NoRoute, Valhalla error codes) with 4xx statuses and a JSON body.
            // A 5xx is the server failing, whatever its body says: retryable, with the engine's words as detail.
            if let engineError, (400..<500).contains(response.status) {
                throw RouteFetchError(server: server, kind: .engineRefused, detail: "HTTP \(response.status), \(engineError)")
            }
            throw RouteFetchError(
                server: server, kind: .httpStatus(response.status), detail: engineError.map { "\($0)" } ?? Self.bodyExcerpt(response.body))
        }
        let parsed: Result<[Route], any Error>
        if response.body.count > Self.inlineParseLimit {
            let body = response.body
            parsed = await withTaskExecutorPreference(globalConcurrentExecutor) { Result { try parser.parseRoutes(from: body) } }
        } else {
            parsed = Result { try parser.parseRoutes(from: response.body) }
            if case .success = parsed {
                let answer = ParsedAnswer(body: response.body, parser: parser, received: received)
                lastAnswer.withLock { $0 = answer }
            }
        }
        do {
            return try parsed.get()
        } catch let error as RouteParseError {
            if case .engineError = error {
                throw RouteFetchError(server: server, kind: .engineRefused, detail: "\(error)")
            }
            throw RouteFetchError(server: server, kind: .invalidResponse, detail: "\(error)")
        } catch {
            throw RouteFetchError(server: server, kind: .invalidResponse, detail: "\(error)")
        }
    }

    /// Parses the last answer parsed here again and drops the routes: a rehearsal of an answer's way, run shortly
    /// before an engine's next answer is due so that its parse finds the parser's code and data in the caches
    /// (navd's navigation loop, docs/daemon.md, *An answer's way rehearsed*). Only answers parsed where their
    /// request was made are kept (at most ``inlineParseLimit`` bytes), the last one. Returns the routes parsed:
    /// 0 when no answer was kept.
    @discardableResult
    public func rehearseLastAnswer() -> Int {
        guard let answer = lastAnswer.withLock({ $0 }) else { return 0 }
        return (try? answer.parser.parseRoutes(from: answer.body).count) ?? 0
    }

    static func bodyExcerpt(_ body: Data) -> String {
        if body.isEmpty { return "(empty body)" }
        if body.first(where: { $0 > 32 }) == UInt8(ascii: "<") { return OSRMResponseParser.htmlSummary(body) }
        return textExcerpt(body)
    }
}
