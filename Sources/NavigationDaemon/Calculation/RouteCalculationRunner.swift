import Foundation
import NavigationCore
import RouteAdapters
import RouteClient

/// Executes one calculation session's requests: retries retryable failures (connection refused, timeout,
/// HTTP 5xx) with exponential backoff up to `maxAttempts`, reporting each failed attempt; a non-retryable
/// failure ends the session at once.
public struct RouteCalculationRunner: Sendable {
    public var fetcher: RouteFetcher
    public var matcher: MapMatcher?
    public var maxAttempts: Int
    /// Seconds before the first retry; doubles per attempt, at most 8 s.
    public var retryDelay: Double
    /// Waits between attempts; injected so tests need no real time.
    public var sleep: @Sendable (Double) async throws -> Void

    public init(
        fetcher: RouteFetcher, matcher: MapMatcher?, maxAttempts: Int, retryDelay: Double,
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) {
        self.fetcher = fetcher
        self.matcher = matcher
        self.maxAttempts = maxAttempts
        self.retryDelay = retryDelay
        self.sleep = sleep
    }

    /// The delay after failed attempt `attempt` (1-based), seconds.
    public func delay(afterAttempt attempt: Int) -> Double {
        min(8, retryDelay * pow(2, Double(attempt - 1)))
    }

    /// Runs the session. `attemptFailed(attempt, error, retryIn)` is called before each retry.
    public func run(
        _ request: TripCoordinator.CalculationRequest, attemptFailed: @Sendable (Int, RouteFetchError, Double) async -> Void
    ) async -> (result: Result<[Route], RouteFetchError>, attempts: Int) {
        var attempt = 0
        while true {
            attempt += 1
            do throws(RouteFetchError) {
                switch request {
                case .route(let query):
                    return (.success(try await fetcher.routes(for: query)), attempt)
                case .match(let trace):
                    guard let matcher else {
                        throw RouteFetchError(server: "routing server", kind: .invalidRequest, detail: "this engine has no map matching")
                    }
                    return (.success(try await matcher.match(trace)), attempt)
                }
            } catch {
                if Task.isCancelled { return (.failure(RouteFetchError(server: error.server, kind: .cancelled, detail: "cancelled")), attempt) }
                guard error.isRetryable, attempt < maxAttempts else { return (.failure(error), attempt) }
                let wait = delay(afterAttempt: attempt)
                await attemptFailed(attempt, error, wait)
                do {
                    try await sleep(wait)
                } catch {
                    return (.failure(RouteFetchError(server: "routing server", kind: .cancelled, detail: "cancelled")), attempt)
                }
            }
        }
    }
}
