import Foundation
import NavigationCore

/// An HTTP request as a value: what a request generator returns and the HTTP executor at the edge performs.
public struct HTTPRequestSpec: Hashable, Sendable {
    public enum Method: String, Hashable, Sendable { case get = "GET", post = "POST" }

    public var method: Method
    /// Absolute URL, query included.
    public var url: String
    public var headers: [String: String]
    public var body: Data?

    public init(method: Method, url: String, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// `scheme://host:port` of ``url``, used to say which server failed.
    public var server: String {
        guard let components = URLComponents(string: url), let host = components.host else { return url }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(components.scheme ?? "http")://\(host)\(port)"
    }
}

/// Errors a generator raises before any request is sent.
public enum RouteRequestError: Error, Hashable, Sendable, CustomStringConvertible {
    case noWaypoints
    case invalidBaseURL(String)
    case invalidCoordinate(GeographicCoordinate)
    case traceTooShort(count: Int)
    /// An engine option whose value the request cannot carry (an object in an OSRM query string).
    case unsupportedOption(key: String, reason: String)

    public var description: String {
        switch self {
        case .noWaypoints: "a route needs at least one waypoint besides the start"
        case .invalidBaseURL(let url): "'\(url)' is not an http or https URL"
        case .invalidCoordinate(let c): "coordinate \(c.latitude),\(c.longitude) is outside the world (latitude -90...90, longitude -180...180)"
        case .traceTooShort(let count): "map matching needs at least 2 trace points, got \(count)"
        case .unsupportedOption(let key, let reason): "engine option '\(key)' cannot be sent: \(reason)"
        }
    }
}

/// Joins a base URL and a path, validating the base.
func makeURL(base: String, path: String, query: [URLQueryItem] = []) throws(RouteRequestError) -> String {
    var trimmed = base
    while trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard var components = URLComponents(string: trimmed + path),
        let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https", components.host != nil
    else { throw .invalidBaseURL(base) }
    if !query.isEmpty {
        components.percentEncodedQuery = query.map { item in
            "\(percentEncode(item.name))=\(percentEncode(item.value ?? ""))"
        }.joined(separator: "&")
    }
    guard let url = components.string else { throw .invalidBaseURL(base) }
    return url
}

/// Percent-encodes a query component, keeping the characters OSRM-style APIs use unencoded (`,` `;` `.` `-`).
func percentEncode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~,;")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}

/// Encodes a JSON value with sorted keys: the same request always gives the same bytes.
func encodeJSONBody(_ value: JSONValue) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding a JSONValue cannot fail: it holds only JSON-representable values.
    return (try? encoder.encode(value)) ?? Data("{}".utf8)
}

/// Formats coordinates for OSRM-style paths: `lon,lat;lon,lat` with 6 decimals.
func osrmCoordinateList(_ coordinates: [GeographicCoordinate]) -> String {
    coordinates.map { "\(fixed6($0.longitude)),\(fixed6($0.latitude))" }.joined(separator: ";")
}

func fixed6(_ value: Double) -> String {
    String(format: "%.6f", value)
}
