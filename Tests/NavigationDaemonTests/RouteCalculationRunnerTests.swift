import Foundation
import NavigationCore
import NavigationDaemon
import NavigationProtocol
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

/// One engine of a test chain: how often it fails first and with what.
struct TestEngine {
    var name: String
    var failures: Int
    var error: RouteFetchError
    var maxAttempts: Int
    /// The engine cannot take the client's options.
    var refusesOptions = false
}

@Suite struct RouteCalculationRunnerTests {
    static let refused = RouteFetchError(server: "http://127.0.0.1:1", kind: .connectionFailed, detail: "Connection refused")
    static let lost = RouteFetchError(server: "http://127.0.0.1:1", kind: .connectionLost, detail: "reset")
    static let noRoute = RouteFetchError(server: "http://127.0.0.1:1", kind: .engineRefused, detail: "NoRoute")
    static let garbage = RouteFetchError(server: "http://127.0.0.1:1", kind: .invalidResponse, detail: "not JSON")

    struct Run {
        var outcome: RouteCalculationRunner.Outcome
        var reported: [RouteCalculationRunner.FailedAttempt]
        var waits: [Double]
        var calls: [Int]
    }

    /// Runs `sessions` sessions on one runner; the outcome and reports are the last session's.
    static func run(_ chain: [TestEngine], sessions: Int = 1) async throws -> Run {
        let executor = RouteHTTPExecutor()
        let route = try CoordinatorHarness.route()
        let providers = chain.map { FlakyProvider(failures: $0.failures, error: $0.error, route: route) }
        let engines = zip(chain, providers).map { engine, provider in
            RouteEndpoint(
                identity: .init(name: engine.name, server: "http://127.0.0.1:\(engine.name.count)"),
                fetcher: RouteFetcher(source: .custom(provider), executor: executor), matcher: nil, maxAttempts: engine.maxAttempts,
                requestOptions: { (options) throws(RouteOptionsError) in
                    if engine.refusesOptions, !options.avoid.isEmpty { throw RouteOptionsError(field: "options.avoid", message: "\(engine.name) cannot avoid") }
                    return [:]
                })
        }
        let waits = Mutex<[Double]>([])
        let runner = RouteCalculationRunner(engines: engines, retryDelay: 1, sleep: { seconds in waits.withLock { $0.append(seconds) } })
        let reported = Mutex<[RouteCalculationRunner.FailedAttempt]>([])
        let query = RouteQuery(
            origin: UserLocation(coordinate: .init(latitude: 60.17, longitude: 24.94), horizontalAccuracy: 5, timestamp: CoordinatorHarness.start),
            waypoints: [Waypoint(coordinate: .init(latitude: 60.171, longitude: 24.95))])
        var outcome: RouteCalculationRunner.Outcome!
        for _ in 0..<sessions {
            reported.withLock { $0 = [] }
            outcome = await runner.run(.route(query, options: RouteOptions(avoid: [.tolls]))) { failure in reported.withLock { $0.append(failure) } }
        }
        try await executor.shutdown()
        return Run(outcome: outcome, reported: reported.withLock { $0 }, waits: waits.withLock { $0 }, calls: providers.map { $0.calls.withLock { $0 } })
    }

    @Test func retryableFailuresAreRetriedWithDoublingBackoffThenSucceed() async throws {
        let run = try await Self.run([TestEngine(name: "valhalla", failures: 3, error: Self.refused, maxAttempts: 5)])
        #expect((try? run.outcome.result.get())?.count == 1)
        #expect(run.outcome.attempts == 4)
        #expect(run.reported.map(\.attempt) == [1, 2, 3])
        #expect(run.waits == [1, 2, 4])
        #expect(run.outcome.answeredBy?.name == "valhalla")
        #expect(run.outcome.failedEngines.isEmpty)
    }

    @Test func retriesStopAtTheBound() async throws {
        let run = try await Self.run([TestEngine(name: "valhalla", failures: 10, error: Self.refused, maxAttempts: 3)])
        guard case .failure(let error) = run.outcome.result else {
            Issue.record("succeeded")
            return
        }
        #expect(error.kind == .connectionFailed)
        #expect(run.outcome.attempts == 3)
        #expect(run.outcome.failedEngines.map(\.engine.name) == ["valhalla"])
    }

    @Test func aNonRetryableFailureEndsAtOnce() async throws {
        let run = try await Self.run([TestEngine(name: "valhalla", failures: 10, error: Self.noRoute, maxAttempts: 5)])
        #expect(run.outcome.attempts == 1)
        #expect(run.reported.isEmpty)
    }

    @Test(arguments: [refused, lost, RouteFetchError(server: "http://127.0.0.1:1", kind: .httpStatus(503), detail: "busy")])
    func aRetryableFailureAfterThePrimarysAttemptsMovesToTheFallback(_ error: RouteFetchError) async throws {
        let run = try await Self.run([
            TestEngine(name: "valhalla", failures: 100, error: error, maxAttempts: 2),
            TestEngine(name: "osrm", failures: 0, error: Self.refused, maxAttempts: 2),
        ])
        #expect((try? run.outcome.result.get())?.count == 1)
        #expect(run.calls == [2, 1])
        #expect(run.outcome.attempts == 3)
        #expect(run.outcome.answeredBy?.name == "osrm")
        #expect(run.outcome.failedEngines.map(\.engine.name) == ["valhalla"])
        #expect(run.outcome.failedEngines.first?.error.kind == error.kind)
        // One retry on the primary (after 1 s), then straight on to the fallback.
        #expect(run.waits == [1])
        #expect(run.reported.map(\.next?.name) == [nil, "osrm"])
        #expect(run.reported.map(\.retryIn) == [1, 0])
    }

    @Test(arguments: [noRoute, garbage])
    func aFailureAnotherEngineWouldNotMendDoesNotFallBack(_ error: RouteFetchError) async throws {
        let run = try await Self.run([
            TestEngine(name: "valhalla", failures: 100, error: error, maxAttempts: 3),
            TestEngine(name: "osrm", failures: 0, error: Self.refused, maxAttempts: 1),
        ])
        #expect(run.calls == [1, 0])
        guard case .failure(let failure) = run.outcome.result else {
            Issue.record("succeeded")
            return
        }
        #expect(failure.kind == error.kind)
    }

    @Test func aFallbackThatCannotTakeTheOptionsIsPassedOver() async throws {
        let run = try await Self.run([
            TestEngine(name: "valhalla", failures: 100, error: Self.refused, maxAttempts: 1),
            TestEngine(name: "graphhopper", failures: 0, error: Self.refused, maxAttempts: 1, refusesOptions: true),
            TestEngine(name: "osrm", failures: 0, error: Self.refused, maxAttempts: 1),
        ])
        #expect(run.outcome.answeredBy?.name == "osrm")
        #expect(run.calls == [1, 0, 1])
        #expect(run.outcome.failedEngines.map(\.engine.name) == ["valhalla", "graphhopper"])
        #expect(run.outcome.failedEngines.last?.error.kind == .invalidRequest)
    }

    @Test func whenEveryEngineFailsTheLastErrorEndsTheSessionAndAllAreNamed() async throws {
        let run = try await Self.run([
            TestEngine(name: "valhalla", failures: 100, error: Self.refused, maxAttempts: 2),
            TestEngine(name: "osrm", failures: 100, error: Self.lost, maxAttempts: 2),
        ])
        guard case .failure(let failure) = run.outcome.result else {
            Issue.record("succeeded")
            return
        }
        #expect(failure.kind == .connectionLost)
        #expect(run.outcome.attempts == 4)
        #expect(run.outcome.failedEngines.map(\.engine.name) == ["valhalla", "osrm"])
        #expect(run.waits == [1, 1], "each engine's backoff starts over")
    }

    @Test func theNextSessionStartsAtThePrimaryAgain() async throws {
        // The first session falls back; the second asks the primary first, which has recovered.
        let run = try await Self.run(
            [
                TestEngine(name: "valhalla", failures: 1, error: Self.refused, maxAttempts: 1),
                TestEngine(name: "osrm", failures: 0, error: Self.refused, maxAttempts: 1),
            ], sessions: 2)
        #expect(run.calls == [2, 1])
        #expect(run.outcome.answeredBy?.name == "valhalla")
        #expect(run.outcome.failedEngines.isEmpty)
    }
}
