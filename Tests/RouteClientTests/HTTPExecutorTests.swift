import Foundation
import NavigationCore
import RouteAdapters
import RouteClient
import Testing

@Suite("HTTP edge against a real local server")
struct HTTPExecutorTests {
    static let query = RouteQuery(
        origin: UserLocation(
            coordinate: GeographicCoordinate(latitude: 60.1699, longitude: 24.9384), horizontalAccuracy: 5,
            timestamp: Date(timeIntervalSince1970: 1_795_241_290)),
        waypoints: [Waypoint(coordinate: GeographicCoordinate(latitude: 60.1686, longitude: 24.95))])

    func fetch(
        _ behavior: TestHTTPServer.Behavior, engine: (String) -> RouteAdapter = { .valhalla(baseURL: $0) },
        configuration: RouteHTTPExecutor.Configuration = .init()
    ) async throws -> (Result<[Route], RouteFetchError>, TestHTTPServer) {
        let server = try await TestHTTPServer.start(behavior)
        let executor = RouteHTTPExecutor(configuration: configuration)
        let result: Result<[Route], RouteFetchError>
        do {
            result = .success(try await RouteFetcher(source: .http(engine(server.baseURL)), executor: executor).routes(for: Self.query))
        } catch {
            result = .failure(error)
        }
        try await executor.shutdown()
        await server.stop()
        return (result, server)
    }

    func failure(_ result: Result<[Route], RouteFetchError>) throws -> RouteFetchError {
        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got routes")
            throw CancellationError()
        }
        return error
    }

    @Test func sendsTheGeneratedRequestAndParsesTheAnswer() async throws {
        let body = try RepoPaths.routeFixture("valhalla_extended_osrm_response")
        let server = try await TestHTTPServer.start(.respond(status: 200, contentType: "application/json", body: body))
        let executor = RouteHTTPExecutor()
        let routes = try await RouteFetcher(source: .http(.valhalla(baseURL: server.baseURL)), executor: executor).routes(for: Self.query)
        try await executor.shutdown()
        var iterator = server.requests.makeAsyncIterator()
        let received = try #require(await iterator.next())
        await server.stop()
        #expect(routes.first?.steps.count == 8)
        #expect(received.method == "POST")
        #expect(received.uri == "/route")
        #expect(received.headers["content-type"] == "application/json")
        let sent = try #require(try JSONSerialization.jsonObject(with: received.body) as? [String: Any])
        #expect(sent["format"] as? String == "osrm")
        #expect((sent["locations"] as? [Any])?.count == 2)
    }

    /// navd's `avoid` for GraphHopper (a custom model) reaches the server: a POST /navigate whose body holds it.
    @Test func aGraphHopperCustomModelReachesTheServer() async throws {
        let body = try RepoPaths.routeFixture("helsinki_osrm_plain")
        let server = try await TestHTTPServer.start(.respond(status: 200, contentType: "application/json", body: body))
        let executor = RouteHTTPExecutor()
        var query = Self.query
        query.options = ["custom_model": ["priority": [["if": "toll != NO", "multiply_by": "0"]]], "ch.disable": true]
        let routes = try await RouteFetcher(source: .http(.graphHopper(baseURL: server.baseURL)), executor: executor).routes(for: query)
        try await executor.shutdown()
        var iterator = server.requests.makeAsyncIterator()
        let received = try #require(await iterator.next())
        await server.stop()
        #expect(!routes.isEmpty)
        #expect(received.method == "POST")
        #expect(received.uri == "/navigate")
        let sent = try #require(try JSONSerialization.jsonObject(with: received.body) as? [String: Any])
        let model = try #require(sent["custom_model"] as? [String: Any])
        let rules = try #require(model["priority"] as? [[String: Any]])
        #expect(rules.first?["if"] as? String == "toll != NO")
        #expect(sent["ch.disable"] as? Bool == true)
        #expect(sent["type"] as? String == "mapbox")
    }

    @Test func connectionRefusedNamesTheServer() async throws {
        let refusing = try TestHTTPServer.RefusingPort()
        let port = refusing.port
        let executor = RouteHTTPExecutor()
        await #expect {
            try await RouteFetcher(source: .http(.osrm(baseURL: "http://127.0.0.1:\(port)")), executor: executor).routes(for: Self.query)
        } throws: { error in
            guard let error = error as? RouteFetchError else { return false }
            return error.kind == .connectionFailed && error.isRetryable && error.server == "http://127.0.0.1:\(port)"
                && error.description.contains("connection refused")
        }
        try await executor.shutdown()
        withExtendedLifetime(refusing) {}
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let (result, _) = try await fetch(.hang, configuration: .init(connectTimeout: .seconds(2), totalTimeout: .milliseconds(500)))
        let error = try failure(result)
        #expect(error.kind == .timedOut)
        #expect(error.isRetryable)
        #expect(error.description.contains("did not answer in time"))
    }

    @Test func anHTMLErrorPageIsAnHTTPStatusWithItsTitle() async throws {
        let page = Data("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>".utf8)
        let (result, server) = try await fetch(.respond(status: 502, contentType: "text/html", body: page))
        let error = try failure(result)
        #expect(error.kind == .httpStatus(502))
        #expect(error.isRetryable)
        #expect(error.description == "routing server \(server.baseURL) answered HTTP 502: 502 Bad Gateway")
    }

    @Test func aKeyTheServerEchoesBackNeverReachesTheError() async throws {
        // A hosted engine's 401 page quoting the request, API key and all.
        let secret = "k3y-0f-the-fleet-account"
        let page = Data("Invalid key '\(secret)' for /route?key=\(secret)".utf8)
        let (result, _) = try await fetch(
            .respond(status: 401, contentType: "text/plain", body: page),
            engine: { .graphHopper(baseURL: $0, options: ["key": .string(secret)]) })
        let error = try failure(result)
        #expect(error.kind == .httpStatus(401))
        #expect(!error.description.contains(secret), "\(error)")
        #expect(error.description.contains("Invalid key '***'"))
    }

    @Test(arguments: [
        ("https://u:pw-secret@h.example.com:8443/v1?api_key=abc-secret&costing=auto", "https://h.example.com:8443/v1?api_key=***&costing=***"),
        ("http://127.0.0.1:8002", "http://127.0.0.1:8002"),
    ])
    func aRedactedURLKeepsWhereItGoesAndDropsWhatIsSecret(_ url: String, _ expected: String) {
        #expect(HTTPRequestSpec.redacted(url) == expected)
        #expect(!HTTPRequestSpec.server(of: url).contains("secret"))
    }

    /// Found by the fault-injection suite: a 500 whose JSON body has an `error` key was taken for a routing
    /// refusal and never retried.
    @Test func aServerErrorWithAJSONBodyIsRetryableNotARefusal() async throws {
        let body = Data(#"{"error":"worker crashed"}"#.utf8)
        let (result, _) = try await fetch(.respond(status: 500, contentType: "application/json", body: body))
        let error = try failure(result)
        #expect(error.kind == .httpStatus(500))
        #expect(error.isRetryable)
        #expect(error.detail.contains("worker crashed"))
    }

    @Test func anEngineRefusalIsNotRetried() async throws {
        let body = Data(#"{"code":"NoRoute","message":"Impossible route between points"}"#.utf8)
        let (result, _) = try await fetch(.respond(status: 400, contentType: "application/json", body: body), engine: { .osrm(baseURL: $0) })
        let error = try failure(result)
        #expect(error.kind == .engineRefused)
        #expect(!error.isRetryable)
        #expect(error.detail.contains("NoRoute"))
        #expect(error.detail.contains("Impossible route between points"))
    }

    @Test func garbageWithStatus200IsAnInvalidResponse() async throws {
        let (result, _) = try await fetch(.respond(status: 200, contentType: "application/json", body: Data("\u{0}\u{1}garbage".utf8)))
        let error = try failure(result)
        #expect(error.kind == .invalidResponse)
        #expect(error.description.contains("not JSON"))
    }

    @Test func truncatedJSONIsAnInvalidResponse() async throws {
        let body = try RepoPaths.routeFixture("helsinki_osrm_plain").prefix(500)
        let (result, _) = try await fetch(.respond(status: 200, contentType: "application/json", body: Data(body)), engine: { .osrm(baseURL: $0) })
        let error = try failure(result)
        #expect(error.kind == .invalidResponse)
        #expect(error.detail.contains("not valid JSON"))
    }

    /// The engine accepted the connection and began answering, then the connection broke: not "cannot connect".
    @Test func anAnswerCutInTheMiddleIsAConnectionLost() async throws {
        let body = try RepoPaths.routeFixture("helsinki_osrm_plain")
        let (result, _) = try await fetch(.cutMidAnswer(body: body, sent: 2000), engine: { .osrm(baseURL: $0) })
        let error = try failure(result)
        #expect(error.kind == .connectionLost, "\(error)")
        #expect(error.isRetryable)
        #expect(error.description.contains("connection to routing server") && error.description.contains("broke"), "\(error)")
        #expect(!error.description.contains("cannot connect"))
    }

    /// The head and 13 bytes of a 100 000-byte body, then silence with the connection open: the total timeout
    /// bounds the whole exchange (before, the body was awaited for ever: `navctl route fetch --timeout 2` hung
    /// for 40 s until killed, and inside navd the reroute stayed in flight for the rest of the trip).
    @Test(arguments: [0, 13])
    func aStalledBodyTimesOut(sent: Int) async throws {
        let body = try RepoPaths.routeFixture("helsinki_osrm_plain")
        let started = ContinuousClock.now
        let (result, _) = try await fetch(
            .stallBody(body: body, announced: 100_000, sent: sent), engine: { .osrm(baseURL: $0) },
            configuration: .init(connectTimeout: .seconds(1), totalTimeout: .milliseconds(800)))
        let error = try failure(result)
        #expect(error.kind == .timedOut, "\(error)")
        #expect(error.isRetryable)
        #expect(started.duration(to: .now) < .seconds(10), "the timeout bounds the exchange")
    }

    /// A redirect on the same server is followed (up to 3 hops); one to another host, or from https to http,
    /// is not: a redirect must not send a request, and the key in it, elsewhere.
    @Test func aRedirectOnTheSameServerIsFollowed() async throws {
        let body = try RepoPaths.routeFixture("helsinki_osrm_plain")
        let (result, _) = try await fetch(.redirectThenRespond(target: "/moved/route", body: body), engine: { .osrm(baseURL: $0) })
        guard case .success(let routes) = result else { throw try failure(result) }
        #expect(!routes.isEmpty)
    }

    @Test(arguments: [
        "http://127.0.0.2:{port}/route/v1/driving/x", "http://localhost:{port}/elsewhere", "//127.0.0.3/x", "ftp://127.0.0.1/x",
    ])
    func aRedirectToAnotherServerIsNotFollowed(location: String) async throws {
        let (result, server) = try await fetch(.redirect(status: 302, location: location), engine: { .osrm(baseURL: $0) })
        let error = try failure(result)
        #expect(error.kind == .httpStatus(302), "\(error)")
        #expect(error.detail.contains("not followed"), "\(error.detail)")
        #expect(!error.isRetryable)
        _ = server
    }

    @Test func aRedirectLoopStopsAfterThreeHops() async throws {
        let (result, _) = try await fetch(.redirect(status: 307, location: "/again"), engine: { .osrm(baseURL: $0) })
        let error = try failure(result)
        #expect(error.kind == .httpStatus(307), "\(error)")
        #expect(error.detail.contains("3 redirects"), "\(error.detail)")
    }

    @Test func aResponseOverTheSizeLimitIsRefused() async throws {
        let big = Data(repeating: UInt8(ascii: " "), count: 300_000)
        let (result, _) = try await fetch(
            .respond(status: 200, contentType: "application/json", body: big), configuration: .init(maximumResponseSize: 100_000))
        let error = try failure(result)
        #expect(error.kind == .responseTooLarge(limit: 100_000))
        #expect(!error.isRetryable)
    }

    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let server = try await TestHTTPServer.start(.hang)
        let executor = RouteHTTPExecutor(configuration: .init(totalTimeout: .seconds(60)))
        let fetcher = RouteFetcher(source: .http(.valhalla(baseURL: server.baseURL)), executor: executor)
        let task = Task { () -> RouteFetchError? in
            do {
                _ = try await fetcher.routes(for: Self.query)
                return nil
            } catch {
                return error as? RouteFetchError
            }
        }
        // Cancel once the server has the request in hand, so the cancel hits an in-flight request.
        var iterator = server.requests.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        let error = await task.value
        #expect(error?.kind == .cancelled)
        try await executor.shutdown()
        await server.stop()
    }

    @Test func customProvidersStandInForServers() async throws {
        struct Fixed: CustomRouteProvider {
            let data: Data
            func routes(for query: RouteQuery) async throws -> [Route] {
                try Route.fromOSRMResponse(data, polylinePrecision: 6)
            }
        }
        struct Broken: CustomRouteProvider {
            struct Failure: Error, CustomStringConvertible { var description: String { "local graph not loaded" } }
            func routes(for query: RouteQuery) async throws -> [Route] { throw Failure() }
        }
        let executor = RouteHTTPExecutor()
        let routes = try await RouteFetcher(source: .custom(Fixed(data: try RepoPaths.routeFixture("helsinki_osrm_plain"))), executor: executor)
            .routes(for: Self.query)
        #expect(routes.first?.steps.count == 10)
        await #expect {
            try await RouteFetcher(source: .custom(Broken()), executor: executor).routes(for: Self.query)
        } throws: { error in
            "\(error)" == "the custom route provider failed: local graph not loaded"
        }
        try await executor.shutdown()
    }
}
