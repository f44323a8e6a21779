import Foundation
import NavigationCore
import Testing
import TestSupport

/// navd's web listener, real navd, real TCP on 127.0.0.1: the page with its policy, `/ws` speaking the socket
/// protocol read only or with the token, refusals, and bad frames answered as on the socket.
@Suite(.serialized)
struct WebBridgeDaemonTests {
    static func navd(port: Int, token: String) throws -> NavdInstance {
        let tokenPath = "/tmp/navd-web-token-\(UUID().uuidString.prefix(8))"
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: tokenPath))
        return try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = 60.165574, lon = 24.9406 }
                speed = 1
                [routing]
                engine = "valhalla"
                url = "\(try Engines.valhallaURL())"
                [web]
                listen = "127.0.0.1:\(port)"
                token_file = "\(tokenPath)"
                """)
    }

    @Test func theSocketProtocolOverWebSocketWithItsRightsAndRefusals() throws {
        let port = freePort()
        let token = "t0ken-\(UUID().uuidString)"
        let navd = try Self.navd(port: port, token: token)
        try navd.start()
        #expect(waitForTCPListener(port: port, timeout: 10))
        let origin = "http://127.0.0.1:\(port)"

        // Read only: hello first, the status, control refused, bad frames answered with the socket's errors.
        let reader = try WebSocketTestClient(port: port, headers: ["Origin": origin])
        #expect(reader.status == 101, "\(reader.responseHead)")
        #expect(reader.waitFor(timeout: 5) { _ in true }?.type == "hello")
        reader.send(#"{"type":"status","id":1}"#)
        #expect(reader.waitFor(timeout: 5) { $0.type == "reply" }?["command"]?.stringValue == "status")
        for (payload, opcode, code) in [
            (Array(#"{"type":"voice","id":2,"mode":"muted"}"#.utf8), UInt8(1), "not_authorized"),
            (Array(#"{"type":"status"}"#.utf8), 2, "invalid_message"),
            ([0x7B, 0xFF, 0x7D], 1, "invalid_json"),
            (Array(#"{"type":"#.utf8), 1, "invalid_json"),
        ] {
            reader.send(payload, opcode: opcode)
            let error = reader.waitFor(timeout: 5) { $0.type == "error" }
            #expect(error?["code"]?.stringValue == code, "\(String(describing: error))")
        }

        // Refused handshakes get their status, never an upgrade.
        #expect(try WebSocketTestClient(port: port, headers: ["Origin": "http://evil.example"]).status == 403)
        #expect(try WebSocketTestClient(port: port, headers: ["Sec-WebSocket-Protocol": "navd-token.wrong-token-guess"]).status == 401)

        // With the token: control; a Unix-socket client of the same navd sees the same event.
        let socket = try navd.connect()
        let controller = try WebSocketTestClient(port: port, headers: ["Origin": origin, "Sec-WebSocket-Protocol": "navd-token.\(token)"])
        #expect(controller.status == 101 && controller.responseHead.contains("navd-token.\(token)"))
        controller.send(#"{"type":"voice","id":3,"mode":"alerts_only"}"#)
        #expect(controller.waitFor(timeout: 5) { $0.type == "reply" }?["result"]?["mode"]?.stringValue == "alerts_only")
        let overWeb = reader.waitFor(timeout: 5) { $0.type == "voice" }
        let overSocket = socket.waitFor(timeout: 5) { $0.type == "voice" }
        #expect(overWeb != nil && overWeb == overSocket, "web \(String(describing: overWeb)), socket \(String(describing: overSocket))")
        #expect(navd.process?.isRunning == true)
    }

    @Test func thePageIsServedWithItsPolicyAndNothingElse() throws {
        let port = freePort()
        let navd = try Self.navd(port: port, token: "t0ken-\(UUID().uuidString)")
        try navd.start()
        #expect(waitForTCPListener(port: port, timeout: 10))
        let page = try ToolRun.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-i", "http://127.0.0.1:\(port)/"])
        #expect(page.stdout.hasPrefix("HTTP/1.1 200") && page.stdout.contains("Content-Security-Policy: default-src 'none'"), "\(page.stdout)")
        let missing = try ToolRun.run(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/etc/passwd"])
        #expect(missing.stdout == "404")
    }
}
