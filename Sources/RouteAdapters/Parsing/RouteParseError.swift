/// Why a routing server's answer could not be turned into routes. Every case says what was wrong in words
/// a person can act on.
public enum RouteParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not JSON at all (an HTML error page, a proxy's text, binary garbage).
    case notJSON(excerpt: String, looksLikeHTML: Bool)
    /// JSON that breaks off or is corrupt.
    case malformedJSON(detail: String)
    /// The engine answered with an error of its own, e.g. OSRM's `NoRoute` or a Valhalla error code.
    case engineError(code: String, message: String?)
    /// The answer has a `routes` (or `matchings`) array, but it is empty.
    case noRoutes
    /// Something required is missing, named by its JSON path.
    case missingField(String)
    /// A field holds the wrong kind of value (a string where a number belongs, ...).
    case typeMismatch(path: String, expected: String)
    /// A geometry that cannot be right: undecodable, outside the world, or inconsistent with the route's length.
    case invalidGeometry(String)
    /// The answer is larger than the configured limit.
    case responseTooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .notJSON(let excerpt, let html):
            html
                ? "the server answered with an HTML page instead of JSON (is the URL right?): \(excerpt)"
                : "the server's answer is not JSON: \(excerpt)"
        case .malformedJSON(let detail): "the server's answer is not valid JSON (truncated or corrupt): \(detail)"
        case .engineError(let code, let message):
            "the routing engine could not route: \(code)\(message.map { " (\($0))" } ?? "")"
        case .noRoutes: "the routing engine returned no routes"
        case .missingField(let path): "the server's answer has no '\(path)'"
        case .typeMismatch(let path, let expected): "the server's answer has an unexpected value at '\(path)' (expected \(expected))"
        case .invalidGeometry(let detail): "invalid route geometry: \(detail)"
        case .responseTooLarge(let bytes, let limit): "the answer is \(bytes) bytes, over the limit of \(limit) bytes"
        }
    }
}

/// A printable excerpt of a byte buffer: at most `limit` characters of its start, control characters
/// replaced, for error messages.
public func textExcerpt<C: Collection>(_ bytes: C, limit: Int = 160) -> String where C.Element == UInt8 {
    let prefix = bytes.prefix(limit * 4)
    var text = String(decoding: prefix, as: UTF8.self)
    text = String(text.unicodeScalars.map { $0.value < 32 || $0.value == 127 ? " " : Character($0) })
    var collapsed = ""
    var lastWasSpace = false
    for ch in text {
        if ch == " " {
            if !lastWasSpace { collapsed.append(ch) }
            lastWasSpace = true
        } else {
            collapsed.append(ch)
            lastWasSpace = false
        }
    }
    collapsed = collapsed.trimmingSpaces()
    if collapsed.count > limit { return String(collapsed.prefix(limit)) + "…" }
    return bytes.count > prefix.count ? collapsed + "…" : collapsed
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
