import Foundation
import NavigationCore
import NavigationDaemon
import RouteAdapters
import RouteClient
import Synchronization
import Testing

/// A provider that fails a given number of times, then answers.
final class FlakyProvider: CustomRouteProvider {
    let failures: Int
    let error: RouteFetchError
    let calls = Mutex(0)
    let route: Route

    init(failures: Int, error: RouteFetchError, route: Route) {
        self.failures = failures
        self.error = error
        self.route = route
    }

    func routes(for query: RouteQuery) async throws -> [Route] {
        let call = calls.withLock { $0 += 1; return $0 }
        if call <= failures { throw error }
        return [route]
    }
}

@Suite struct RouteCalculationRunnerTests {
    static let refused = RouteFetchError(server: "http://127.0.0.1:1", kind: .connectionFailed, detail: "Connection refused")
    static let noRoute = RouteFetchError(server: "http://127.0.0.1:1", kind: .engineRefused, detail: "NoRoute")

    static func run(failures: Int, error: RouteFetchError, maxAttempts: Int) async throws
        -> (result: Result<[Route], RouteFetchError>, attempts: Int, reported: [Int], waits: [Double])
    {
        let executor = RouteHTTPExecutor()
        let provider = FlakyProvider(failures: failures, error: error, route: try CoordinatorHarness.route())
        let waits = Mutex<[Double]>([])
        let runner = RouteCalculationRunner(
            fetcher: RouteFetcher(source: .custom(provider), executor: executor), matcher: nil, maxAttempts: maxAttempts, retryDelay: 1,
            sleep: { seconds in waits.withLock { $0.append(seconds) } })
        let reported = Mutex<[Int]>([])
        let query = RouteQuery(
            origin: UserLocation(coordinate: .init(latitude: 60.17, longitude: 24.94), horizontalAccuracy: 5, timestamp: CoordinatorHarness.start),
            waypoints: [Waypoint(coordinate: .init(latitude: 60.171, longitude: 24.95))])
        let outcome = await runner.run(.route(query)) { attempt, _, _ in reported.withLock { $0.append(attempt) } }
        try await executor.shutdown()
        return (outcome.result, outcome.attempts, reported.withLock { $0 }, waits.withLock { $0 })
    }

    @Test func retryableFailuresAreRetriedWithDoublingBackoffThenSucceed() async throws {
        let outcome = try await Self.run(failures: 3, error: Self.refused, maxAttempts: 5)
        #expect((try? outcome.result.get())?.count == 1)
        #expect(outcome.attempts == 4)
        #expect(outcome.reported == [1, 2, 3])
        #expect(outcome.waits == [1, 2, 4])
    }

    @Test func retriesStopAtTheBound() async throws {
        let outcome = try await Self.run(failures: 10, error: Self.refused, maxAttempts: 3)
        guard case .failure(let error) = outcome.result else {
            Issue.record("succeeded")
            return
        }
        #expect(error.kind == .connectionFailed)
        #expect(outcome.attempts == 3)
    }

    @Test func aNonRetryableFailureEndsAtOnce() async throws {
        let outcome = try await Self.run(failures: 10, error: Self.noRoute, maxAttempts: 5)
        #expect(outcome.attempts == 1)
        #expect(outcome.reported.isEmpty)
    }
}
