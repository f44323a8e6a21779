import Foundation
import NavigationCore
import NIOCore
import RouteAdapters
@testable import RouteClient
import Testing

/// The engine client keeps the last answer it parsed for a rehearsal of an answer's way (navd's navigation loop,
/// docs/daemon.md *An answer's way rehearsed*), against the real engines on 127.0.0.1.
@Suite("The last answer, parsed again for a rehearsal")
struct AnswerRehearsalTests {
    /// Nothing is kept before the first answer; parsed again, the kept answer gives the routes of the last fetch
    /// (the second trip's, not the first's); an engine's refusal after it leaves it as it was.
    @Test(arguments: LiveEngine.allCases)
    func theLastAnswerParsedIsKeptAndARefusalLeavesIt(engine: LiveEngine) async throws {
        let executor = RouteHTTPExecutor()
        defer { Task { try? await executor.shutdown() } }
        #expect(executor.rehearseLastAnswer() == 0, "an answer was kept before any came")
        #expect(executor.lastAnswerReceived == nil)
        let before = NIODeadline.now()
        let fetcher = RouteFetcher(source: .http(LiveEngineTests.adapter(engine, url: try engine.url())), executor: executor)
        func routes(_ trip: LiveEngineTests.Trip) async throws -> [Route] {
            try await fetcher.routes(for: RouteQuery(origin: LiveEngineTests.origin(trip.from), waypoints: [Waypoint(coordinate: trip.to)]))
        }
        let first = try await routes(LiveEngineTests.trips[0])
        #expect(executor.rehearseLastAnswer() == first.count)
        let received = try #require(executor.lastAnswerReceived)
        #expect(received > before && received <= NIODeadline.now(), "the answer's time is not when it came")
        let second = try await routes(LiveEngineTests.trips[1])
        #expect(second.first?.geometry != first.first?.geometry, "the two trips have the same route: the test shows less than it says")
        func kept() throws -> [Route] {
            let answer = try #require(executor.lastAnswer.withLock { $0 })
            return try answer.parser.parseRoutes(from: answer.body)
        }
        #expect(try kept().map(\.geometry) == second.map(\.geometry))
        let (_, from, to) = try #require(LiveEngineTests.unroutable.first { $0.0 == engine })
        await #expect(throws: RouteFetchError.self) {
            _ = try await fetcher.routes(for: RouteQuery(origin: LiveEngineTests.origin(from), waypoints: [Waypoint(coordinate: to)]))
        }
        #expect(try kept().map(\.geometry) == second.map(\.geometry), "a refusal replaced the kept answer")
        #expect(executor.lastAnswerReceived! > received, "the second answer's time was not kept")
        #expect(executor.rehearseLastAnswer() == second.count)
    }
}
