import FoundationEssentials
import Glibc
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
    public var server: String { Self.server(of: url) }

    /// `scheme://host:port` of `url`: no credentials, path or query (which may carry an API key).
    public static func server(of url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return "(not a URL)" }
        let port = components.port.map { ":\($0)" } ?? ""
        return "\(components.scheme ?? "http")://\(host)\(port)"
    }

    /// Words that make a name (a query parameter, a header, a JSON member, a config key) name a secret.
    public static let secretWords = ["key", "token", "secret", "password", "auth", "signature"]

    /// True when `name` names a secret (``secretWords``), whatever its case.
    public static func namesSecret(_ name: some StringProtocol) -> Bool {
        let lowered = name.lowercased()
        return secretWords.contains(where: lowered.contains)
    }

    /// Values in this request that must not appear in a log, an event, an error message or a recording: the
    /// URL's password, query values whose name says key, token, secret, password, auth or signature, header
    /// values whose name says so, and string members of a JSON body whose name says so, at any depth (Valhalla
    /// takes `api_key` in its POST body).
    public var secrets: [String] {
        var found: [String] = []
        if let components = URLComponents(string: url) {
            if let password = components.password, !password.isEmpty { found.append(password) }
            for item in components.queryItems ?? [] where Self.namesSecret(item.name) {
                if let value = item.value, !value.isEmpty { found.append(value) }
            }
        }
        for (name, value) in headers where Self.namesSecret(name) && !value.isEmpty {
            found.append(value)
            // "Bearer abc": the token alone may be echoed too.
            if let token = value.split(separator: " ").last, token.count < value.count { found.append(String(token)) }
        }
        if let body, let json = try? JSONParser.parse(body) { Self.collectSecrets(in: json, into: &found) }
        return found
    }

    static func collectSecrets(in value: JSONValue, into found: inout [String]) {
        switch value {
        case .object(let members):
            for (name, member) in members {
                if namesSecret(name), case .string(let text) = member, !text.isEmpty { found.append(text) } else { collectSecrets(in: member, into: &found) }
            }
        case .array(let items): for item in items { collectSecrets(in: item, into: &found) }
        default: break
        }
    }

    /// `text` with every one of ``secrets`` replaced by `***`.
    public func scrubbed(_ text: String) -> String {
        secrets.sorted { $0.count > $1.count }.reduce(text) { $0.replacing($1, with: "***") }
    }

    /// `url` fit for logs and messages: user and password removed, every query value replaced by `***`
    /// (an API key travels as a query value: `?key=…`, `?access_token=…`).
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.host != nil else { return "(not a URL)" }
        components.user = nil
        components.password = nil
        components.queryItems = components.queryItems?.map { URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "***") }
        return components.string ?? "(not a URL)"
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
    // A hosted engine's base URL may carry a query (`https://api.example.com/valhalla?api_key=…`): the request's
    // path goes after the base's path, and the base's query stays, before the request's own parameters.
    // Cut at the first `?` by its byte: splitting the text by characters took half the request's URL.
    let questionMark = base.utf8.firstIndex(of: UInt8(ascii: "?"))
    var trimmed = String(base[..<(questionMark ?? base.endIndex)])
    while trimmed.utf8.last == UInt8(ascii: "/") { trimmed.unicodeScalars.removeLast() }
    let baseQuery = questionMark.map { String(base[base.utf8.index(after: $0)...]) } ?? ""
    guard var components = URLComponents(string: trimmed + path),
        let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https", components.host != nil
    else { throw .invalidBaseURL(base) }
    let requestQuery = query.map { item in "\(percentEncode(item.name))=\(percentEncode(item.value ?? ""))" }.joined(separator: "&")
    let combined = [baseQuery, requestQuery].filter { !$0.isEmpty }.joined(separator: "&")
    if !combined.isEmpty {
        guard URLComponents(string: "http://h/?" + combined) != nil else { throw .invalidBaseURL(base) }
        components.percentEncodedQuery = combined
    }
    guard let url = components.string else { throw .invalidBaseURL(base) }
    return url
}

/// Percent-encodes a query component: ASCII letters and digits and the characters OSRM-style APIs use unencoded
/// (`-` `.` `_` `~` `,` `;`) stay as they are, every other byte of the UTF-8 is `%XX`.
func percentEncode(_ text: String) -> String {
    let kept = Set("-._~,;".utf8)
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            out.append(byte)
        case _ where kept.contains(byte):
            out.append(byte)
        default:
            out.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// Encodes a JSON value with sorted keys: the same request always gives the same bytes. ``JSONText`` writes it (navd's
/// own writer, the bytes Foundation's `JSONEncoder` wrote with sorted keys and unescaped slashes for every request
/// navd makes: the golden recordings' request bodies replay unchanged), without Foundation's encoder on the way to
/// every route request.
func encodeJSONBody(_ value: JSONValue) -> Data {
    var out = JSONOutput(capacity: 512)
    JSONText.append(value, into: &out)
    return out.withUnsafeBytes { Data($0) }
}

/// Formats coordinates for OSRM-style paths: `lon,lat;lon,lat` with 6 decimals.
func osrmCoordinateList(_ coordinates: [GeographicCoordinate]) -> String {
    coordinates.map { "\(fixed6($0.longitude)),\(fixed6($0.latitude))" }.joined(separator: ";")
}

func fixed6(_ value: Double) -> String {
    String(cFormat: "%.6f", value)
}
