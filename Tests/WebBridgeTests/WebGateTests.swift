import NavigationProtocol
import Testing
import WebBridge

/// Who may open what on navd's web listener: the page for anyone who reaches it, `/ws` for the page's own origin
/// (or one configured), control only with the token.
struct WebGateTests {
    static let gate = WebGate(origins: ["http://headunit.local:7070"], token: "s3cret-token", files: ["/", "/app.js", "/style.css"])

    static func request(_ target: String, method: String = "GET", _ headers: [String: String] = [:]) -> WebGate.Request {
        WebGate.Request(method: method, target: target, headers: headers)
    }

    static let upgrade = ["Upgrade": "websocket", "Host": "127.0.0.1:7070"]

    @Test(arguments: [
        (request("/"), WebGate.Decision.file("/")),
        (request("/app.js?v=2"), .file("/app.js")),
        (request("/../etc/passwd"), .refuse(status: 404, reason: "no such file")),
        (request("/", method: "POST"), .refuse(status: 405, reason: "only GET is served")),
        (request("/ws", ["Host": "127.0.0.1:7070"]), .refuse(status: 426, reason: "/ws speaks WebSocket only")),
        // The page's own origin, read only.
        (request("/ws", upgrade.merging(["Origin": "http://127.0.0.1:7070"]) { $1 }), .upgrade(control: false, subprotocol: nil)),
        // A configured origin.
        (request("/ws", upgrade.merging(["Origin": "http://headunit.local:7070"]) { $1 }), .upgrade(control: false, subprotocol: nil)),
        // Another site in the same browser.
        (request("/ws", upgrade.merging(["Origin": "http://evil.example"]) { $1 }),
         .refuse(status: 403, reason: "origin http://evil.example is not this page's nor one [web] origins allows")),
        // A tool without Origin.
        (request("/ws", upgrade), .upgrade(control: false, subprotocol: nil)),
        // The token as a subprotocol (browsers), echoed; as a bearer header (tools).
        (request("/ws", upgrade.merging(["Origin": "http://127.0.0.1:7070", "Sec-WebSocket-Protocol": "navd, navd-token.s3cret-token"]) { $1 }),
         .upgrade(control: true, subprotocol: "navd-token.s3cret-token")),
        (request("/ws", upgrade.merging(["Authorization": "Bearer s3cret-token"]) { $1 }), .upgrade(control: true, subprotocol: nil)),
        (request("/ws", upgrade.merging(["Sec-WebSocket-Protocol": "navd-token.guess"]) { $1 }), .refuse(status: 401, reason: "wrong token")),
        (request("/ws", upgrade.merging(["Sec-WebSocket-Protocol": "navd"]) { $1 }), .upgrade(control: false, subprotocol: "navd")),
    ])
    func aRequestIsServedUpgradedOrRefused(request: WebGate.Request, decision: WebGate.Decision) {
        #expect(Self.gate.decide(request) == decision)
    }

    /// DNS rebinding: a page from elsewhere whose name now resolves to 127.0.0.1 names itself in `Host` and
    /// `Origin` alike. Only addresses, localhost and the configured origins' hosts are this computer.
    @Test(arguments: [
        ("127.0.0.1:7070", true), ("[::1]:7070", true), ("localhost:7070", true), ("LOCALHOST", true), ("10.0.0.5", true),
        ("headunit.local:7070", true), ("evil.example:7070", false), ("127.0.0.1.evil.example", false), ("1270.0.0.1:7070", false),
        ("headunit.local.evil.example:7070", false),
    ])
    func onlyThisComputersNamesMayBeTheHost(host: String, allowed: Bool) {
        let own = Self.request("/ws", Self.upgrade.merging(["Host": host, "Origin": "http://\(host)"]) { $1 })
        #expect((Self.gate.decide(own) != .refuse(status: 403, reason: "host \(host) is not an address of this computer nor named in [web] origins")) == allowed)
        let page = Self.gate.decide(Self.request("/", ["Host": host]))
        #expect((page == .file("/")) == allowed, "\(page)")
    }

    @Test func withoutATokenFileNobodyControls() {
        let gate = WebGate(token: nil, files: ["/"])
        #expect(gate.decide(Self.request("/ws", Self.upgrade.merging(["Authorization": "Bearer anything"]) { $1 })) == .refuse(status: 401, reason: "wrong token"))
    }

    @Test(arguments: [
        (WebFrame.Opcode.text, Array(#"{"type":"status"}"#.utf8), nil as String?),
        (.binary, Array(#"{"type":"status"}"#.utf8), "invalid_message"),
        (.text, [UInt8](repeating: 0x20, count: 70_000), "line_too_long"),
        (.text, [0x7B, 0xFF, 0xFE, 0x7D], "invalid_json"),
    ])
    func aFrameIsALineOrTheSocketsError(opcode: WebFrame.Opcode, payload: [UInt8], code: String?) {
        switch WebFrame.line(opcode, payload, limit: 65_536) {
        case .success(let line): #expect(code == nil && line == payload)
        case .failure(let error): #expect(error.code.rawValue == code, "\(error)")
        }
    }

    @Test func thePagePolicyAllowsNothingFromElsewhere() {
        let policy = WebGate.contentSecurityPolicy
        #expect(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'") && !policy.contains("*") && !policy.contains("unsafe"))
    }
}
