import Foundation
import NavigationCore
import RouteAdapters
@testable import RouteClient
import Testing
import TestSupport

/// The engine HTTP client's connections: kept alive and reused, replaced when the server closed them, and https
/// with the system's trust roots or a fleet's own CA, against real local servers (a TLS one with a certificate
/// made by openssl for the test).
@Suite("HTTP connections: kept alive, TLS")
struct KeepAliveAndTLSTests {
    func routes(_ executor: RouteHTTPExecutor, _ url: String) async -> Result<[Route], RouteFetchError> {
        do {
            return .success(try await RouteFetcher(source: .http(.osrm(baseURL: url)), executor: executor).routes(for: HTTPExecutorTests.query))
        } catch {
            return .failure(error)
        }
    }

    /// The paths of the first `count` requests `server` received, or of those that came within five seconds.
    static func paths(_ server: TestHTTPServer, count: Int) async -> [String] {
        await withTaskGroup(of: [String]?.self) { group in
            group.addTask {
                var paths: [String] = []
                for await request in server.requests.prefix(count) { paths.append(request.uri) }
                return paths
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(5))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    /// Five requests to one engine go over one connection.
    @Test func requestsToOneServerShareOneConnection() async throws {
        let server = try await TestHTTPServer.start(.respond(status: 200, contentType: "application/json", body: try RepoPaths.routeFixture("helsinki_osrm_plain")))
        let executor = RouteHTTPExecutor()
        for _ in 0..<5 {
            guard case .success(let routes) = await routes(executor, server.baseURL) else { Issue.record("a request failed"); break }
            #expect(!routes.isEmpty)
        }
        #expect(server.connections == 1)
        try await executor.shutdown()
        await server.stop()
    }

    /// Requests to two engines in turn (a fallback engine, a URL parsed last and kept): each goes to its own
    /// server, on that server's one kept-alive connection, with its own path.
    @Test func requestsToTwoServersInTurnEachReachTheirOwn() async throws {
        let body = try RepoPaths.routeFixture("helsinki_osrm_plain")
        let first = try await TestHTTPServer.start(.respond(status: 200, contentType: "application/json", body: body))
        let second = try await TestHTTPServer.start(.respond(status: 200, contentType: "application/json", body: body))
        let executor = RouteHTTPExecutor()
        for (index, server) in [first, second, first, second, second, first].enumerated() {
            let url = "\(server.baseURL)/engine\(server === first ? 1 : 2)"
            guard case .success = await routes(executor, url) else {
                Issue.record("request \(index) failed")
                break
            }
        }
        #expect(first.connections == 1)
        #expect(second.connections == 1)
        let firstPaths = await Self.paths(first, count: 3)
        let secondPaths = await Self.paths(second, count: 3)
        #expect(firstPaths.count == 3 && firstPaths.allSatisfy { $0.hasPrefix("/engine1/") }, "\(firstPaths)")
        #expect(secondPaths.count == 3 && secondPaths.allSatisfy { $0.hasPrefix("/engine2/") }, "\(secondPaths)")
        try await executor.shutdown()
        await first.stop()
        await second.stop()
    }

    /// A server that closes each connection after its answer (an engine behind a proxy with a short idle
    /// timeout): every request still succeeds, each on a new connection.
    @Test func aConnectionTheServerClosedIsReplaced() async throws {
        let server = try await TestHTTPServer.start(.respondThenClose(body: try RepoPaths.routeFixture("helsinki_osrm_plain")))
        let executor = RouteHTTPExecutor()
        for _ in 0..<4 {
            guard case .success = await routes(executor, server.baseURL) else { Issue.record("a request failed after the server closed"); break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(server.connections == 4)
        try await executor.shutdown()
        await server.stop()
    }

    /// The URL's user and password go as Basic authorization, never in the request line.
    @Test func aURLsUserAndPasswordAreBasicAuthorization() async throws {
        let server = try await TestHTTPServer.start(.respond(status: 200, contentType: "application/json", body: try RepoPaths.routeFixture("helsinki_osrm_plain")))
        let executor = RouteHTTPExecutor()
        let url = "http://fleet:s%40cret@127.0.0.1:\(server.port)"
        guard case .success = await routes(executor, url) else { Issue.record("the request failed"); return }
        var iterator = server.requests.makeAsyncIterator()
        let request = try #require(await iterator.next())
        #expect(request.headers["authorization"] == "Basic " + Data("fleet:s@cret".utf8).base64EncodedString())
        #expect(request.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(!request.uri.contains("cret"))
        try await executor.shutdown()
        await server.stop()
    }

    /// https to an engine whose certificate the fleet's CA file vouches for: the answer comes, encrypted, by name
    /// and by address.
    @Test(arguments: ["localhost", "127.0.0.1"])
    func httpsWithTheFleetsCA(host: String) async throws {
        let certificate = try TLSTestCertificate()
        let server = try await TestHTTPServer.start(
            .respond(status: 200, contentType: "application/json", body: try RepoPaths.routeFixture("helsinki_osrm_plain")),
            tls: .init(certificate: certificate.certificate, key: certificate.key))
        let executor = RouteHTTPExecutor(configuration: .init(trustRootsFile: certificate.certificate))
        for _ in 0..<2 {
            guard case .success(let routes) = await routes(executor, "https://\(host):\(server.port)") else {
                Issue.record("https failed: \(await routes(executor, "https://\(host):\(server.port)"))")
                break
            }
            #expect(!routes.isEmpty)
        }
        #expect(server.connections == 1, "the TLS connection is kept alive")
        try await executor.shutdown()
        await server.stop()
    }

    /// https to a certificate nobody vouches for is refused with the reason; plain http to a TLS port is not an
    /// answer either.
    @Test func anUntrustedCertificateIsRefused() async throws {
        let certificate = try TLSTestCertificate()
        let server = try await TestHTTPServer.start(
            .respond(status: 200, contentType: "application/json", body: Data("{}".utf8)), tls: .init(certificate: certificate.certificate, key: certificate.key))
        let executor = RouteHTTPExecutor(configuration: .init(totalTimeout: .seconds(5)))
        guard case .failure(let error) = await routes(executor, "https://localhost:\(server.port)") else {
            Issue.record("an untrusted certificate was accepted")
            return
        }
        #expect(error.kind == .connectionFailed, "\(error)")
        #expect(error.description.contains("certificate"), "\(error)")
        guard case .failure(let plain) = await routes(executor, "http://127.0.0.1:\(server.port)") else {
            Issue.record("plain http to a TLS port gave routes")
            return
        }
        #expect([.connectionLost, .connectionFailed, .timedOut].contains(plain.kind), "\(plain)")
        try await executor.shutdown()
        await server.stop()
    }

    /// What the client connects to and asks for, from the URL; URLs it cannot use are refused with the reason.
    @Test(arguments: [
        ("http://127.0.0.1:8002", "127.0.0.1", 8002, "/", "127.0.0.1:8002", false),
        ("https://route.example.com/v1/route?json=%7B%7D#top", "route.example.com", 443, "/v1/route?json=%7B%7D", "route.example.com", true),
        ("http://[::1]:5000/route/v1/driving/1,2;3,4", "::1", 5000, "/route/v1/driving/1,2;3,4", "[::1]:5000", false),
        ("HTTP://Example.com:80?q=1", "Example.com", 80, "/?q=1", "Example.com", false),
        ("http://kartta.example/reitti/ä?x=1#ö", "kartta.example", 80, "/reitti/ä?x=1", "kartta.example", false),
        ("http://h:81//x://y", "h", 81, "//x://y", "h:81", false),
    ])
    func aURLsServerAndTarget(url: String, host: String, port: Int, target: String, hostHeader: String, tls: Bool) throws {
        let parsed = try HTTPTarget(url)
        #expect(parsed.server == HTTPTarget.Server(isTLS: tls, host: host, port: port))
        #expect(parsed.requestTarget == target)
        #expect(parsed.hostHeader == hostHeader)
        #expect(parsed.authorization == nil)
    }

    @Test(arguments: [
        "ftp://h/x", "127.0.0.1:8002", "http://", "http://h:0/", "http://h:99999/", "http://h:8o/", "http://[::1/x", "http://h/a b",
        "http://h/a\nb", "http://h/a\r\nb", "http://h/ä\u{2028}b", "http:/h/x", "h://x",
    ])
    func aURLTheClientCannotUseIsRefused(url: String) {
        #expect(throws: HTTPTarget.Invalid.self) { try HTTPTarget(url) }
    }
}
