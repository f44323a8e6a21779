import Foundation
import NavigationCore
import Testing
import TestSupport

/// navd's web listener, real navd, real TCP on 127.0.0.1: the page with its policy, `/ws` speaking the socket
/// protocol read only or with the token, refusals, and bad frames answered as on the socket.
@Suite(.serialized)
struct WebBridgeDaemonTests {
    static func navd(port: Int, token: String, tokenFileMode: Int = 0o640, rate: Double = 1, extraSocket: String = "") throws -> NavdInstance {
        let tokenPath = "/tmp/navd-web-token-\(UUID().uuidString.prefix(8))"
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: tokenPath))
        try FileManager.default.setAttributes([.posixPermissions: tokenFileMode], ofItemAtPath: tokenPath)
        return try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = 60.165574, lon = 24.9406 }
                speed = 1
                rate = \(rate)
                [routing]
                engine = "valhalla"
                url = "\(try Engines.valhallaURL())"
                [web]
                listen = "127.0.0.1:\(port)"
                token_file = "\(tokenPath)"
                """, extraSocket: extraSocket)
    }

    /// A browser that floods commands and never reads is cut off as a slow client, as on the socket; a Unix-socket
    /// reader of the same navd goes on getting its states.
    @Test func aWebSocketClientThatNeverReadsIsCutOffAsTooSlow() throws {
        let port = freePort()
        let navd = try Self.navd(port: port, token: "t0ken-\(UUID().uuidString)", rate: 10, extraSocket: "client_queue_limit = 64")
        try navd.start()
        #expect(waitForTCPListener(port: port, timeout: 10))
        let reader = try navd.connect()
        let flooder = try WebSocketTestClient(port: port)
        let sending = Thread {
            for i in 0..<20_000 { flooder.send(#"{"type":"status","id":"f\#(i)"}"#) }
        }
        sending.start()
        var states = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 4 {
            while let message = reader.next(timeout: 0.01) { if message.type == "trip_state" { states += 1 } }
        }
        #expect(states >= 25, "the Unix-socket reader got \(states) states in 4 s")
        // navd writes `slow_client` and closes. Over TCP, closing with the flooder's bytes still unread sends a
        // reset, which may discard that last line before the test reads it (a Unix socket has no such reset): the
        // proof is the connection ended by navd and its log, the error line when it arrives.
        let deadline = Date().addingTimeInterval(20)
        var sawSlowClient = false
        while let frame = flooder.nextFrame(timeout: deadline.timeIntervalSinceNow) {
            if frame.opcode == 1, String(decoding: frame.payload, as: UTF8.self).contains(#""code":"slow_client""#) { sawSlowClient = true }
        }
        #expect(Date() < deadline, "the flooder was never cut off")
        #expect(navd.log.contains("client too slow"))
        print("web slow client: cut off, slow_client line read before the close: \(sawSlowClient)")
        #expect(reader.command(#"{"type":"status","id":"ok"}"#, id: "ok")?.type == "reply")
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
        // Events reach a client from its hello on: before it, navd may not have taken the connection in yet.
        #expect(socket.waitFor(timeout: 5) { $0.type == "hello" } != nil)
        let controller = try WebSocketTestClient(port: port, headers: ["Origin": origin, "Sec-WebSocket-Protocol": "navd-token.\(token)"])
        #expect(controller.status == 101 && controller.responseHead.contains("navd-token.\(token)"))
        controller.send(#"{"type":"voice","id":3,"mode":"alerts_only"}"#)
        #expect(controller.waitFor(timeout: 5) { $0.type == "reply" }?["result"]?["mode"]?.stringValue == "alerts_only")
        let overWeb = reader.waitFor(timeout: 5) { $0.type == "voice" }
        let overSocket = socket.waitFor(timeout: 5) { $0.type == "voice" }
        #expect(overWeb != nil && overWeb == overSocket, "web \(String(describing: overWeb)), socket \(String(describing: overSocket))")
        #expect(navd.process?.isRunning == true)
    }

    /// The socket's hostile-input cases (ProtocolTests.badLines), each as one text frame with control rights:
    /// the same error codes, and the connection goes on serving; then a frame over the line limit is answered
    /// `line_too_long` and closes that connection only.
    @Test func theSocketsBadLinesGetTheSameErrorsOverWebSocket() throws {
        let port = freePort()
        let token = "t0ken-\(UUID().uuidString)"
        let navd = try Self.navd(port: port, token: token)
        try navd.start()
        #expect(waitForTCPListener(port: port, timeout: 10))
        let client = try WebSocketTestClient(port: port, headers: ["Authorization": "Bearer \(token)"])
        #expect(client.waitFor(timeout: 5) { $0.type == "hello" }?["control"] == .bool(true))
        for bad in ProtocolTests.badLines {
            client.send(bad.line)
            let error = client.waitFor(timeout: 5) { $0.type == "error" }
            #expect(error?["code"]?.stringValue == bad.code, "\(bad.name): got \(String(describing: error))")
        }
        client.send(#"{"type":"route","id":"r"}"#)
        let route = client.waitFor(timeout: 5) { $0.type == "reply" }
        #expect(route?["result"] == .object(["routeId": .null, "route": .null]), "\(String(describing: route))")

        let other = try WebSocketTestClient(port: port)
        #expect(other.waitFor(timeout: 5) { $0.type == "hello" } != nil)
        client.send([UInt8](repeating: UInt8(ascii: "x"), count: 200_000))
        #expect(client.waitFor(timeout: 5) { $0.type == "error" }?["code"]?.stringValue == "line_too_long")
        var closed = false
        while let frame = client.nextFrame(timeout: 5) { if frame.opcode == 8 { closed = true; break } }
        #expect(closed, "no close frame after the oversized frame")
        other.send(#"{"type":"status","id":"s"}"#)
        #expect(other.waitFor(timeout: 5) { $0.type == "reply" } != nil, "the other connection was not served")
        #expect(navd.process?.isRunning == true)
    }

    /// A token file every user can read gives control to nobody: navd says why and serves read only.
    @Test func aTokenFileEveryoneCanReadIsRefused() throws {
        let port = freePort()
        let token = "t0ken-\(UUID().uuidString)"
        let navd = try Self.navd(port: port, token: token, tokenFileMode: 0o644)
        try navd.start()
        #expect(waitForTCPListener(port: port, timeout: 10))
        #expect(try WebSocketTestClient(port: port, headers: ["Authorization": "Bearer \(token)"]).status == 401)
        let reader = try WebSocketTestClient(port: port)
        #expect(reader.waitFor(timeout: 5) { $0.type == "hello" }?["control"] == .bool(false))
        #expect(navd.log.contains("web.token_file can be read or written by every user"), "\(navd.log.suffix(2000))")
    }

    /// `[socket] max_clients` counts both transports: one client too many over WebSocket is told so.
    @Test func theClientLimitCountsWebSocketClientsToo() throws {
        let port = freePort()
        let navd = try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = 60.165574, lon = 24.9406 }
                [routing]
                engine = "valhalla"
                url = "\(try Engines.valhallaURL())"
                [web]
                listen = "127.0.0.1:\(port)"
                """, extraSocket: "max_clients = 2")
        try navd.start()
        #expect(waitForTCPListener(port: port, timeout: 10))
        let unix = try navd.connect()
        #expect(unix.waitFor(timeout: 5) { $0.type == "hello" } != nil)
        unix.drain(for: 0.5)  // the harness's readiness probe is gone by now
        let web = try WebSocketTestClient(port: port)
        #expect(web.waitFor(timeout: 5) { $0.type == "hello" } != nil, "\(navd.log.suffix(2000))")
        let third = try WebSocketTestClient(port: port)
        var frames: [(UInt8, String)] = []
        while let frame = third.nextFrame(timeout: 5) {
            frames.append((frame.opcode, String(decoding: frame.payload, as: UTF8.self)))
            if frame.opcode == 8 { break }
        }
        #expect(frames.first?.1.contains(#""code":"too_many_clients""#) == true && frames.last?.0 == 8, "\(frames)\n\(navd.log.suffix(2000))")
        #expect(web.waitFor(timeout: 5) { $0.type == "trip_state" } != nil, "the admitted client is still served")
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
