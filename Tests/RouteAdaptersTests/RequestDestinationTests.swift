import Foundation
import NavigationCore
import RouteAdapters
import Testing

/// navd contacts only the engines in its configuration: whatever a client puts into a `navigate` (engine keys
/// named like an address, waypoint properties) never changes where the request goes.
@Suite("Request destinations")
struct RequestDestinationTests {
    static let configured = "http://127.0.0.1:8002"
    /// Keys a client might try to redirect a request with, each pointing elsewhere.
    static let hostile: [String: JSONValue] = [
        "url": "http://203.0.113.7:80/route", "baseURL": "http://203.0.113.7/", "base_url": "http://203.0.113.7/", "host": "203.0.113.7",
        "server": "http://203.0.113.7:5000", "endpoint": "http://203.0.113.7/x", "redirect": "http://203.0.113.7/",
    ]

    @Test(arguments: RoutingEngine.allCases)
    func clientOptionsNeverChangeTheServer(_ engine: RoutingEngine) throws {
        let origin = UserLocation(coordinate: .init(latitude: 60.1699, longitude: 24.9384), horizontalAccuracy: 5, timestamp: Date(timeIntervalSince1970: 0))
        let stop = Waypoint(coordinate: .init(latitude: 60.1686, longitude: 24.95), properties: Self.hostile)
        // Engine keys from the client are merged into the request (their documented purpose) ...
        let query = RouteQuery(origin: origin, waypoints: [stop], options: Self.hostile)
        let adapter = engine.adapter(baseURL: Self.configured, profile: engine.profile(""))
        let spec = try adapter.requestGenerator.routeRequest(for: query)
        // ... but the request still goes to the configured server, and nowhere else.
        #expect(spec.server == Self.configured, "\(engine): \(spec.url)")
        #expect(URLComponents(string: spec.url)?.host == "127.0.0.1")
        #expect(!spec.url.contains("203.0.113.7@") && URLComponents(string: spec.url)?.user == nil)
    }
}
