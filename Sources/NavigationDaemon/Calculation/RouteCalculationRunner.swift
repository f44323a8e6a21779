import FoundationEssentials
import Glibc
import NavigationCore
import RouteAdapters
import RouteClient

/// Executes one calculation session's requests on a chain of engines: the primary, then each
/// `[[routing.fallback]]` in order. On each engine, retryable failures (connection refused or lost, timeout,
/// HTTP 5xx) are retried with exponential backoff up to that engine's attempts, each failed attempt reported;
/// when they run out the next engine is tried. A non-retryable failure (the engine cannot route, a broken
/// answer) ends the session at once: another engine would not know better. Every session starts at the primary.
public struct RouteCalculationRunner: Sendable {
    /// The engines, primary first.
    public var engines: [RouteEndpoint]
    /// Seconds before the first retry on an engine; doubles per attempt, at most 8 s.
    public var retryDelay: Double
    /// Waits between attempts; injected so tests need no real time.
    public var sleep: @Sendable (Double) async throws -> Void

    public init(
        engines: [RouteEndpoint], retryDelay: Double,
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) {
        precondition(!engines.isEmpty, "a runner needs at least one engine")
        self.engines = engines
        self.retryDelay = retryDelay
        self.sleep = sleep
    }

    /// The delay after failed attempt `attempt` (1-based) on one engine, seconds.
    public func delay(afterAttempt attempt: Int) -> Double {
        min(8, retryDelay * pow(2, Double(attempt - 1)))
    }

    /// A failed attempt the session goes on from: on the same engine after `retryIn` seconds, or on `next`.
    public struct FailedAttempt: Sendable {
        /// 1-based, counted over the whole session.
        public var attempt: Int
        public var engine: RouteEndpoint.Identity
        public var error: RouteFetchError
        /// Seconds until the next attempt on the same engine; 0 when moving on to `next`.
        public var retryIn: Double
        /// The engine tried next, when this one has no attempts left.
        public var next: RouteEndpoint.Identity?

        public init(attempt: Int, engine: RouteEndpoint.Identity, error: RouteFetchError, retryIn: Double, next: RouteEndpoint.Identity? = nil) {
            self.attempt = attempt
            self.engine = engine
            self.error = error
            self.retryIn = retryIn
            self.next = next
        }
    }

    /// How a session ended.
    public struct Outcome: Sendable {
        public var result: Result<[Route], RouteFetchError>
        /// Attempts over all engines.
        public var attempts: Int
        /// The engine that answered; nil when none did.
        public var answeredBy: RouteEndpoint.Identity?
        /// Engines that gave up before, in order, each with its last error.
        public var failedEngines: [EngineFailure]
        /// The first route's controller and text, made on Swift's pool when it is long (``PreparedRoute``).
        public var prepared: PreparedRoute?

        public init(
            result: Result<[Route], RouteFetchError>, attempts: Int, answeredBy: RouteEndpoint.Identity? = nil, failedEngines: [EngineFailure] = []
        ) {
            self.result = result
            self.attempts = attempts
            self.answeredBy = answeredBy
            self.failedEngines = failedEngines
        }
    }

    public struct EngineFailure: Sendable {
        public var engine: RouteEndpoint.Identity
        public var error: RouteFetchError

        public init(engine: RouteEndpoint.Identity, error: RouteFetchError) {
            self.engine = engine
            self.error = error
        }
    }

    /// Runs the session. `attemptFailed` is called before every retry and every move to the next engine.
    public func run(
        _ request: TripCoordinator.CalculationRequest, attemptFailed: @Sendable (FailedAttempt) async -> Void
    ) async -> Outcome {
        var attempts = 0
        var failed: [EngineFailure] = []
        for (index, engine) in engines.enumerated() {
            let next = index + 1 < engines.count ? engines[index + 1].identity : nil
            var attemptOnEngine = 0
            while true {
                attempts += 1
                attemptOnEngine += 1
                do throws(RouteFetchError) {
                    let routes = try await engine.answer(request)
                    return Outcome(result: .success(routes), attempts: attempts, answeredBy: engine.identity, failedEngines: failed)
                } catch {
                    if Task.isCancelled || error.kind == .cancelled {
                        return Outcome(result: .failure(Self.cancelled(error.server)), attempts: attempts, failedEngines: failed)
                    }
                    // A request this engine cannot take (an option it lacks, no map matching) passes to the next.
                    let passes = error.isRetryable || (error.kind == .invalidRequest && index > 0)
                    guard passes else { return Outcome(result: .failure(error), attempts: attempts, failedEngines: failed) }
                    if error.isRetryable, attemptOnEngine < engine.maxAttempts {
                        let wait = delay(afterAttempt: attemptOnEngine)
                        await attemptFailed(FailedAttempt(attempt: attempts, engine: engine.identity, error: error, retryIn: wait, next: nil))
                        do { try await sleep(wait) } catch {
                            return Outcome(result: .failure(Self.cancelled(engine.identity.server)), attempts: attempts, failedEngines: failed)
                        }
                        continue
                    }
                    failed.append(EngineFailure(engine: engine.identity, error: error))
                    guard let next else { return Outcome(result: .failure(error), attempts: attempts, failedEngines: failed) }
                    await attemptFailed(FailedAttempt(attempt: attempts, engine: engine.identity, error: error, retryIn: 0, next: next))
                    break
                }
            }
        }
        preconditionFailure("the loop returns on the last engine")
    }

    static func cancelled(_ server: String) -> RouteFetchError {
        RouteFetchError(server: server, kind: .cancelled, detail: "cancelled")
    }
}

/// One engine of the chain (the primary or a fallback): how to ask it for routes or a map match, and how often
/// to try.
public struct RouteEndpoint: Sendable {
    /// Which engine, as events name it: its kind and `scheme://host:port` (never a path or query, which may
    /// carry a key).
    public struct Identity: Sendable, Equatable {
        /// `valhalla`, `osrm`, `graphhopper` or `custom`.
        public var name: String
        public var server: String

        public init(name: String, server: String) {
            self.name = name
            self.server = server
        }
    }

    public var identity: Identity
    public var fetcher: RouteFetcher
    public var matcher: MapMatcher?
    public var maxAttempts: Int
    /// Turns a client's engine-independent options into this engine's request keys; throws when it cannot.
    public var requestOptions: @Sendable (RouteOptions) throws(RouteOptionsError) -> [String: JSONValue]
    /// Where the engine can re-cost a route's own geometry (Valhalla's edge walk): the matcher for a trip's
    /// request keys. nil: a refresh asks for the route again.
    public var refresher: (@Sendable ([String: JSONValue]) -> MapMatcher)?
    /// The language and units the engine is asked for and its answers checked against (`[guidance]`).
    public var locale: InstructionLocale = .english
    /// The same engine asked in another language and units (a trip's own `options.language`, `units`); nil for a
    /// custom provider, which is asked as it is.
    public var relocalized: (@Sendable (InstructionLocale) -> RouteEndpoint)?

    public init(
        identity: Identity, fetcher: RouteFetcher, matcher: MapMatcher?, maxAttempts: Int,
        requestOptions: @escaping @Sendable (RouteOptions) throws(RouteOptionsError) -> [String: JSONValue],
        refresher: (@Sendable ([String: JSONValue]) -> MapMatcher)? = nil
    ) {
        self.identity = identity
        self.fetcher = fetcher
        self.matcher = matcher
        self.maxAttempts = maxAttempts
        self.requestOptions = requestOptions
        self.refresher = refresher
    }

    /// An engine behind an HTTP routing server of `kind` at `url`, writing its instructions in `locale`.
    public static func http(
        _ kind: RoutingEngine, url: String, profile: String, options: [String: JSONValue], maxAttempts: Int, executor: RouteHTTPExecutor,
        locale: InstructionLocale = .english
    ) -> RouteEndpoint {
        var endpoint = RouteEndpoint(
            identity: Identity(name: kind.rawValue, server: HTTPRequestSpec.server(of: url)),
            fetcher: RouteFetcher(source: .http(kind.adapter(baseURL: url, profile: profile, options: options, locale: locale)), executor: executor),
            matcher: kind.mapMatchingGenerator(baseURL: url, profile: profile, locale: locale).map { MapMatcher(generator: $0, executor: executor) },
            maxAttempts: maxAttempts,
            requestOptions: { (options) throws(RouteOptionsError) in try kind.requestOptions(for: options, profile: profile) },
            refresher: refresher(kind, url: url, profile: profile, options: options, executor: executor, locale: locale))
        endpoint.locale = locale
        endpoint.relocalized = { other in
            .http(kind, url: url, profile: profile, options: options, maxAttempts: maxAttempts, executor: executor, locale: other)
        }
        return endpoint
    }

    /// The edge-walk matcher of an engine that has one, for a trip's request keys (merged over the configured ones).
    static func refresher(
        _ kind: RoutingEngine, url: String, profile: String, options: [String: JSONValue], executor: RouteHTTPExecutor, locale: InstructionLocale
    ) -> (@Sendable ([String: JSONValue]) -> MapMatcher)? {
        guard kind.refreshGenerator(baseURL: url, profile: profile) != nil else { return nil }
        return { (keys: [String: JSONValue]) -> MapMatcher in
            let merged = options.merging(keys) { _, trip in trip }
            return MapMatcher(generator: kind.refreshGenerator(baseURL: url, profile: profile, options: merged, locale: locale)!, executor: executor)
        }
    }

    /// The primary engine and the fallbacks of `routing`, in order, each writing its instructions in `locale`.
    public static func chain(_ routing: NavdConfig.Routing, executor: RouteHTTPExecutor, locale: InstructionLocale = .english) -> [RouteEndpoint] {
        [
            .http(routing.engine, url: routing.url, profile: routing.effectiveProfile, options: routing.options,
                  maxAttempts: routing.maxAttempts, executor: executor, locale: locale)
        ]
            + routing.fallbacks.map {
                .http($0.engine, url: $0.url, profile: $0.effectiveProfile, options: $0.options, maxAttempts: $0.maxAttempts, executor: executor, locale: locale)
            }
    }

    func answer(_ request: TripCoordinator.CalculationRequest) async throws(RouteFetchError) -> [Route] {
        if let wanted = request.locale, wanted != locale, let relocalized { return try await relocalized(wanted).answer(request) }
        switch request {
        case .route(var query, let options):
            do throws(RouteOptionsError) {
                query.options = try requestOptions(options)
            } catch {
                throw RouteFetchError(server: identity.server, kind: .invalidRequest, detail: "\(error)")
            }
            return try await fetcher.routes(for: query)
        case .refresh(let refresh):
            let keys: [String: JSONValue]
            do throws(RouteOptionsError) {
                keys = try requestOptions(refresh.options)
            } catch {
                throw RouteFetchError(server: identity.server, kind: .invalidRequest, detail: "\(error)")
            }
            if let refresher, (2...TripCoordinator.RefreshRequest.edgeWalkPointLimit).contains(refresh.shape.count) {
                return try await refresher(keys).match(refresh.shape.map { TracePoint(coordinate: $0) })
            }
            var query = refresh.query
            query.options = keys
            return try await fetcher.routes(for: query)
        case .match(let trace):
            guard let matcher else {
                throw RouteFetchError(server: identity.server, kind: .invalidRequest, detail: "\(identity.name) has no map matching")
            }
            return try await matcher.match(trace)
        }
    }
}

extension TripCoordinator.CalculationRequest {
    /// A trip's own language and units (`navigate` `options.language`, `units`); nil: the engine's configured ones.
    var locale: InstructionLocale? {
        switch self {
        case .route(_, let options): options.locale
        case .refresh(let refresh): refresh.options.locale
        case .match: nil
        }
    }
}
