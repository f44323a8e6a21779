import NavigationProtocol

/// Who may open what on navd's web listener (`[web]`), decided from a request's head alone. Pure: the request in,
/// the decision out; the NIO edge serves it.
///
/// - The page and its files are served to anyone who can reach the (loopback by default) address.
/// - `/ws` upgrades to the socket protocol over WebSocket. A browser's `Origin` must be the page's own
///   (`http://` + the `Host` it asked for) or one `[web] origins` names: another site in the driver's browser
///   must not read or steer navd. A client without `Origin` is not a browser and is let through.
/// - Control rights come only with the token (`[web] token_file`), given as the WebSocket subprotocol
///   `navd-token.<token>` (a browser cannot set other headers) or, for tools, `Authorization: Bearer <token>`.
public struct WebGate: Sendable {
    public struct Request: Sendable, Equatable {
        public var method: String
        /// The request target, path and query ("/ws?x=1").
        public var target: String
        /// Header names lowercase.
        public var headers: [String: String]

        public init(method: String, target: String, headers: [String: String]) {
            self.method = method
            self.target = target
            self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public enum Decision: Sendable, Equatable {
        /// Serve the embedded file at this path.
        case file(String)
        /// Upgrade to WebSocket; `control`: the token was right. `subprotocol`: echo it in the answer (browsers
        /// close a connection whose offered subprotocol is not accepted).
        case upgrade(control: Bool, subprotocol: String?)
        /// Refuse with this HTTP status and a one-line reason.
        case refuse(status: Int, reason: String)
    }

    /// The page's Content-Security-Policy: its own scripts, styles and WebSocket only; nothing from elsewhere.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Origins allowed besides the page's own (`[web] origins`), e.g. a kiosk's `http://headunit.local:7070`.
    public var origins: Set<String>
    /// The control token; nil: nobody controls navd over the web.
    public var token: String?
    /// The paths of the embedded files ("/", "/app.js", ...).
    public var files: Set<String>

    public init(origins: Set<String> = [], token: String?, files: Set<String>) {
        self.origins = origins
        self.token = token
        self.files = files
    }

    public func decide(_ request: Request) -> Decision {
        let path = String(request.target.prefix { $0 != "?" && $0 != "#" })
        guard request.method == "GET" || (request.method == "HEAD" && path != "/ws") else {
            return .refuse(status: 405, reason: "only GET is served")
        }
        guard Self.hostAllowed(request.headers["host"], origins: origins) else {
            return .refuse(status: 403, reason: "host \((request.headers["host"] ?? "").prefix(80)) is not an address of this computer nor named in [web] origins")
        }
        guard path == "/ws" else {
            return files.contains(path) ? .file(path) : .refuse(status: 404, reason: "no such file")
        }
        guard request.headers["upgrade"]?.lowercased() == "websocket" else {
            return .refuse(status: 426, reason: "/ws speaks WebSocket only")
        }
        if let origin = request.headers["origin"] {
            let own = request.headers["host"].map { "http://\($0)" }
            guard origin == own || origins.contains(origin) else {
                return .refuse(status: 403, reason: "origin \(origin.prefix(80)) is not this page's nor one [web] origins allows")
            }
        }
        let offered = (request.headers["sec-websocket-protocol"] ?? "").split(separator: ",").map { $0.trimmingSpaces }
        let tokenProtocol = offered.first { $0.hasPrefix("navd-token.") }
        let given = tokenProtocol.map { String($0.dropFirst("navd-token.".count)) }
            ?? request.headers["authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let given else { return .upgrade(control: false, subprotocol: offered.first { $0 == "navd" }) }
        guard let token, Self.sameBytes(given, token) else { return .refuse(status: 401, reason: "wrong token") }
        return .upgrade(control: true, subprotocol: tokenProtocol)
    }

    /// Whether the `Host` a request names is an address (IPv4, [IPv6]), `localhost`, or the host of an origin
    /// `[web] origins` allows. Any other name is how DNS rebinding reaches a loopback listener: a page from
    /// elsewhere whose name now resolves to 127.0.0.1 would otherwise pass as the page's own origin. A request
    /// without `Host` is not from a browser.
    static func hostAllowed(_ host: String?, origins: Set<String>) -> Bool {
        guard let host = host?.lowercased(), !host.isEmpty else { return true }
        let name: Substring
        if host.hasPrefix("[") {
            return host.contains("]")
        } else if let colon = host.lastIndex(of: ":") {
            name = host[..<colon]
        } else {
            name = host[...]
        }
        if name == "localhost" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) }) { return true }
        return origins.contains { origin in
            let afterScheme = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
            let originHost = afterScheme.hasPrefix("[") ? afterScheme : (afterScheme.split(separator: ":").first ?? "")
            return originHost.lowercased() == name
        }
    }

    /// Compares in time that depends on the length only, not on where the first difference is.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// A WebSocket frame as the socket protocol takes it: one text frame is one line. Pure.
public enum WebFrame {
    public enum Opcode: Sendable { case text, binary }

    /// The line a frame carries, or the error the socket gives the same bad input: a binary frame is not a line,
    /// a frame over `limit` bytes is `line_too_long` (and the connection closes, as on the socket), invalid UTF-8
    /// is `invalid_json`.
    public static func line(_ opcode: Opcode, _ payload: [UInt8], limit: Int) -> Result<[UInt8], ProtocolError> {
        guard opcode == .text else { return .failure(ProtocolError(.invalidMessage, "binary frames are not read: send each command as one text frame")) }
        guard payload.count <= limit else {
            return .failure(ProtocolError(.lineTooLong, "a frame of more than \(limit) bytes; closing the connection"))
        }
        guard String(validating: payload, as: UTF8.self) != nil else {
            return .failure(ProtocolError(.invalidJSON, "the frame is not valid UTF-8"))
        }
        return .success(payload)
    }
}
