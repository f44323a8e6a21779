import FoundationEssentials
import Glibc
import NavigationCore

/// Turns a route query into an HTTP request value. Pure: it performs no I/O.
public protocol RouteRequestGenerator: Sendable {
    func routeRequest(for query: RouteQuery) throws -> HTTPRequestSpec
}

/// Turns a trace into a map-matching HTTP request value. Pure.
public protocol MapMatchingRequestGenerator: Sendable {
    func matchRequest(for trace: [TracePoint]) throws -> HTTPRequestSpec
}

/// Turns the bytes of a server's answer into routes. Pure.
public protocol RouteResponseParser: Sendable {
    func parseRoutes(from data: Data) throws -> [Route]
    /// The engine's own refusal in an answer (OSRM `NoRoute`, a Valhalla error code), in words; nil when the
    /// answer is not one. Lets the HTTP edge tell "the engine cannot route" from "the server failed".
    func engineError(in data: Data) -> String?
}

extension RouteResponseParser {
    public func engineError(in data: Data) -> String? { nil }
}

/// A routing engine as navd sees it: a request generator plus a response parser. Either half can be
/// replaced by application code.
public struct RouteAdapter: Sendable {
    public var requestGenerator: any RouteRequestGenerator
    public var responseParser: any RouteResponseParser

    public init(requestGenerator: any RouteRequestGenerator, responseParser: any RouteResponseParser) {
        self.requestGenerator = requestGenerator
        self.responseParser = responseParser
    }

    /// Valhalla's `/route` with OSRM-format output.
    public static func valhalla(
        baseURL: String, profile: String = RoutingEngine.valhalla.defaultProfile, options: [String: JSONValue] = [:]
    ) -> RouteAdapter {
        RouteAdapter(
            requestGenerator: ValhallaRequestGenerator(baseURL: baseURL, profile: profile, options: options),
            responseParser: OSRMResponseParser(polylinePrecision: 6))
    }

    /// OSRM's `/route/v1`.
    public static func osrm(baseURL: String, profile: String = RoutingEngine.osrm.defaultProfile, options: [String: JSONValue] = [:]) -> RouteAdapter {
        RouteAdapter(
            requestGenerator: OSRMRequestGenerator(baseURL: baseURL, profile: profile, options: options),
            responseParser: OSRMResponseParser(polylinePrecision: 6))
    }

    /// GraphHopper's Mapbox-compatible `/navigate/directions/v5/gh`.
    public static func graphHopper(baseURL: String, profile: String = RoutingEngine.graphhopper.defaultProfile, options: [String: JSONValue] = [:]) -> RouteAdapter {
        RouteAdapter(
            requestGenerator: GraphHopperRequestGenerator(baseURL: baseURL, profile: profile, options: options),
            responseParser: OSRMResponseParser(polylinePrecision: 6))
    }
}

/// Application code that produces routes itself (a local router, a cached route, another API).
/// navd calls it where it would otherwise send an HTTP request.
public protocol CustomRouteProvider: Sendable {
    func routes(for query: RouteQuery) async throws -> [Route]
}
