import Foundation
import Synchronization
import NavigationCore
import Testing
import TestSupport

/// Bad input, access control and many clients, against the real navd process.
@Suite(.serialized)
struct ProtocolTests {
    static func navd(socketMode: String = "0600", extraSocket: String = "", rate: Double = 2) throws -> NavdInstance {
        try NavdInstance.simulated(
            valhalla: try Engines.valhallaURL(),
            simulate: """
                start = { lat = 60.1680, lon = 24.9480 }
                rate = \(rate)
                time_scale = 1
                """, socketMode: socketMode, extraSocket: extraSocket)
    }

    struct BadLine: CustomTestStringConvertible, Sendable {
        var name: String
        var line: String
        var code: String
        var testDescription: String { name }
    }

    static let badLines: [BadLine] = [
        BadLine(name: "not JSON", line: "navigate please", code: "invalid_json"),
        BadLine(name: "truncated JSON", line: #"{"type":"status","id":"x""#, code: "invalid_json"),
        BadLine(name: "not an object", line: "[1,2,3]", code: "invalid_message"),
        BadLine(name: "no type", line: #"{"id":"x"}"#, code: "missing_field"),
        BadLine(name: "unknown command", line: #"{"type":"fly","id":"x"}"#, code: "unknown_command"),
        BadLine(name: "navigate without waypoints", line: #"{"type":"navigate","id":"x"}"#, code: "missing_field"),
        BadLine(name: "waypoint off the globe", line: #"{"type":"navigate","id":"x","waypoints":[{"lat":95,"lon":0}]}"#, code: "invalid_field"),
        BadLine(name: "waypoint without lon", line: #"{"type":"navigate","id":"x","waypoints":[{"lat":60}]}"#, code: "missing_field"),
        BadLine(name: "unknown avoid", line: #"{"type":"navigate","id":"x","waypoints":[{"lat":60.17,"lon":24.94}],"options":{"avoid":["cows"]}}"#, code: "invalid_field"),
        BadLine(name: "unknown topic", line: #"{"type":"subscribe","id":"x","topics":["weather"]}"#, code: "invalid_field"),
        BadLine(name: "advance without trip", line: #"{"type":"advance","id":"x"}"#, code: "no_active_trip"),
        BadLine(name: "cancel unknown session", line: #"{"type":"cancel_calculation","id":"x","session":99}"#, code: "no_such_calculation"),
        BadLine(name: "add_stop without a waypoint", line: #"{"type":"add_stop","id":"x"}"#, code: "missing_field"),
        BadLine(name: "add_stop at index -1", line: #"{"type":"add_stop","id":"x","waypoint":{"lat":60.17,"lon":24.94},"index":-1}"#, code: "invalid_field"),
        BadLine(name: "add_stop at index 1e300", line: #"{"type":"add_stop","id":"x","waypoint":{"lat":60.17,"lon":24.94},"index":1e300}"#, code: "invalid_field"),
        BadLine(name: "add_stop without a trip", line: #"{"type":"add_stop","id":"x","waypoint":{"lat":60.17,"lon":24.94}}"#, code: "no_active_trip"),
        BadLine(name: "remove_stop without index", line: #"{"type":"remove_stop","id":"x"}"#, code: "missing_field"),
        BadLine(name: "remove_stop without a trip", line: #"{"type":"remove_stop","id":"x","index":0}"#, code: "no_active_trip"),
        BadLine(name: "skip_waypoint without a trip", line: #"{"type":"skip_waypoint","id":"x"}"#, code: "no_active_trip"),
        BadLine(name: "choose_route without index", line: #"{"type":"choose_route","id":"x"}"#, code: "missing_field"),
        BadLine(name: "choose_route index 9", line: #"{"type":"choose_route","id":"x","index":9}"#, code: "invalid_field"),
        BadLine(name: "choose_route with nothing offered", line: #"{"type":"choose_route","id":"x","index":0}"#, code: "no_choice"),
        BadLine(name: "navigate with 7 alternatives", line: #"{"type":"navigate","id":"x","waypoints":[{"lat":60.17,"lon":24.94}],"alternatives":7}"#, code: "invalid_field"),
        BadLine(name: "voice mode loud", line: #"{"type":"voice","id":"x","mode":"loud"}"#, code: "invalid_field"),
        BadLine(name: "voice mode a number", line: #"{"type":"voice","id":"x","mode":3}"#, code: "invalid_field"),
        BadLine(name: "repeat without a trip", line: #"{"type":"repeat","id":"x"}"#, code: "no_active_trip"),
        BadLine(name: "navigate in no language", line: #"{"type":"navigate","id":"x","waypoints":[{"lat":60.17,"lon":24.94}],"options":{"language":"!!"}}"#, code: "invalid_field"),
        BadLine(name: "navigate in furlongs", line: #"{"type":"navigate","id":"x","waypoints":[{"lat":60.17,"lon":24.94}],"options":{"units":"furlongs"}}"#, code: "invalid_field"),
        BadLine(name: "deeply nested", line: String(repeating: "[", count: 5000), code: "invalid_json"),
        BadLine(name: "invalid UTF-8", line: "{\"type\":\"status\",\"id\":\"\u{FFFD}\u{0}\"", code: "invalid_json"),
    ]

    @Test func everyBadLineGetsAnErrorAndTheConnectionStaysUsable() throws {
        let navd = try Self.navd()
        try navd.start()
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        for bad in Self.badLines {
            client.send(bad.line)
            let error = client.waitFor(timeout: 5) { $0.type == "error" }
            #expect(error?["code"]?.stringValue == bad.code, "\(bad.name): got \(String(describing: error))")
            #expect(error?["message"]?.stringValue?.isEmpty == false)
        }
        // Still connected and served.
        let status = client.command(#"{"type":"status","id":"after"}"#, id: "after")
        #expect(status?.type == "reply", "connection unusable after bad input")
        #expect(navd.process?.isRunning == true)
        // The hello, every error and the reply, field by field against the published schema.
        let (invalid, summary) = try ProtocolSchema.invalid(client.receivedLines)
        #expect(invalid.isEmpty, "\(summary)\n\(invalid.joined(separator: "\n"))")
        #expect(client.receivedLines.first?.contains(#""protocol":2"#) == true && client.receivedLines.first?.contains(#""seq":"#) == true)
    }

    @Test func subscribeNarrowsTheEventsAClientReceives() throws {
        let navd = try Self.navd(rate: 10)
        try navd.start()
        let client = try navd.connect()
        #expect(client.waitFor(timeout: 5) { $0.type == "trip_state" } != nil)
        let reply = client.command(#"{"type":"subscribe","id":"s","topics":["gnss","arrived"]}"#, id: "s")
        #expect(reply?["result"]?["topics"] == ["arrived", "gnss"])
        client.drain(for: 0.3)  // events published before the reply was read
        let before = client.received.count
        client.drain(for: 1.5)  // ten fixes a second: trip_state would show up here
        let after = client.received[before...]
        #expect(!after.contains { $0.type == "trip_state" }, "trip_state after subscribing to gnss and arrived only")
        #expect(client.command(#"{"type":"status","id":"t"}"#, id: "t")?.type == "reply", "replies are never filtered")
    }

    @Test func anOversizedLineGetsAnErrorAndClosesOnlyThatConnection() throws {
        let navd = try Self.navd()
        try navd.start()
        let other = try navd.connect()
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        // 200 KB without a newline, then a valid command that must not be executed.
        client.sendBytes(Array(repeating: UInt8(ascii: "x"), count: 200_000) + Array("\n{\"type\":\"status\",\"id\":\"late\"}\n".utf8))
        let error = client.waitFor(timeout: 5) { $0.type == "error" }
        #expect(error?["code"]?.stringValue == "line_too_long")
        #expect(client.next(timeout: 3) == nil && client.closedByServer, "connection should close after an oversized line")
        #expect(!client.received.contains { $0["id"]?.stringValue == "late" })
        #expect(other.command(#"{"type":"status","id":"s"}"#, id: "s")?.type == "reply")
    }

    @Test func aPeerWithoutControlRightsMayReadButNotControl() throws {
        // World-writable socket; control only for root and navd's own user (root here): "nobody" may only read.
        let navd = try Self.navd(socketMode: "0666")
        try navd.start()
        // Sent at once on connecting, before hello can have been read: a line that is not JSON, a refused
        // command, an allowed one.
        let commands = #"junk\n{"type":"navigate","id":"n","waypoints":[{"lat":60.172,"lon":24.937}]}\n{"type":"status","id":"s"}\n"#
        let script = "printf '\(commands)' | setpriv --reuid=65534 --regid=65534 --clear-groups socat -t 3 - UNIX-CONNECT:\(navd.socketPath)"
        let nobody = try ExternalProcess("/bin/sh", ["-c", script])
        #expect(nobody.waitForExit(timeout: 15) != nil)
        let lines = nobody.output.split(separator: "\n").compactMap { try? JSONParser.parse(Array($0.utf8)) }
        #expect(lines.first?.type == "hello", "output: \(nobody.output)\nnavd: \(navd.log.suffix(1500))")
        #expect(lines.first?["control"]?.boolValue == false)
        let refused = lines.first { $0["id"]?.stringValue == "n" }
        #expect(refused?.type == "error")
        #expect(refused?["code"]?.stringValue == "not_authorized")
        let status = lines.first { $0["id"]?.stringValue == "s" }
        #expect(status?.type == "reply", "a reader may ask for status")
        // The refused navigate started nothing.
        #expect(status?["result"]?["phase"]?.stringValue == "idle")
        #expect(status?["result"]?["calculations"]?.arrayValue?.isEmpty == true)
        #expect(navd.log.contains("no control rights"))
        // hello first, then every answer in the order of the lines, refusals included.
        let answers = lines.filter { ["hello", "error", "reply"].contains($0.type ?? "") }
            .map { "\($0.type ?? "")/\($0["code"]?.stringValue ?? $0["id"]?.stringValue ?? "")" }
        #expect(answers == ["hello/", "error/invalid_json", "error/not_authorized", "reply/s"], "\(answers)")
    }

    /// 40 clients connecting at the same moment to a navd with room for 5: exactly 5 are admitted, whatever the race.
    @Test func maxClientsHoldsUnderSimultaneousConnections() throws {
        let navd = try Self.navd(extraSocket: "max_clients = 5")
        try navd.start()
        let firsts = Mutex<[String]>([])
        let clients = Mutex<[SocketClient]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { _ in
            guard let client = try? SocketClient(path: navd.socketPath) else { return }
            clients.withLock { $0.append(client) }
            let first = client.next(timeout: 5)
            let kind = first?.type == "error" ? "error:\(first?["code"]?.stringValue ?? ""):\(first?["message"]?.stringValue ?? "")" : first?.type ?? "nothing"
            firsts.withLock { $0.append(kind) }
        }
        let kinds = firsts.withLock { $0 }
        #expect(kinds.filter { $0 == "hello" }.count == 5, "\(Dictionary(grouping: kinds, by: { $0 }).mapValues(\.count))")
        #expect(kinds.filter { $0.hasPrefix("error:too_many_clients:") && $0.contains("5 clients") }.count == 35)
        // Places come back when clients leave.
        clients.withLock { $0.removeAll() }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try navd.connect().next(timeout: 5)?.type == "hello")
    }

    @Test func manyClientsAndOneThatNeverReads() throws {
        let navd = try Self.navd(extraSocket: "client_queue_limit = 16", rate: 10)
        try navd.start()
        let readers = try (0..<20).map { _ in try navd.connect() }
        let stalled = try navd.connect()
        // The stalled client floods status requests (about 2 KB of reply each) and reads nothing.
        var flood: [UInt8] = []
        for i in 0..<3000 { flood += Array("{\"type\":\"status\",\"id\":\"f\(i)\"}\n".utf8) }
        stalled.sendBytes(flood)
        // Meanwhile every reader keeps getting fixes at the source's rate (10 per second).
        let start = Date()
        var counts = [Int](repeating: 0, count: readers.count)
        while Date().timeIntervalSince(start) < 4 {
            for (i, reader) in readers.enumerated() {
                while let message = reader.next(timeout: 0.01) { if message.type == "trip_state" { counts[i] += 1 } }
            }
        }
        #expect(counts.allSatisfy { $0 >= 20 }, "readers starved while one client stalled: \(counts)")
        // The stalled client, reading at last, finds replies, then the slow_client error, then the end.
        var sawError = false
        while let message = stalled.next(timeout: 15) {
            if message.type == "error" {
                #expect(message["code"]?.stringValue == "slow_client")
                sawError = true
            }
        }
        #expect(sawError, "no slow_client error for the stalled client")
        #expect(stalled.closedByServer)
        let replies = stalled.received.filter { $0.type == "reply" }.count
        #expect(replies < 3000, "every reply was delivered: the client was never cut off")
        #expect(readers[0].command(#"{"type":"status","id":"ok"}"#, id: "ok")?.type == "reply")
        #expect(navd.log.contains("client too slow"))
    }
}

/// snap_route through the real navd and the real Valhalla's map matching.
@Suite(.serialized)
struct SnapRouteTests {
    @Test func aRecordedTrackIsSnappedAndNavigated() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 15)
        let navd = try ProtocolTests.navd()
        try navd.start()
        let client = try navd.connect()
        let points = drive.fixes[..<drive.firstOffRouteFix].enumerated().filter { $0.offset % 3 == 0 }.map { entry in
            #"{"lat":\#(entry.element.coordinate.latitude),"lon":\#(entry.element.coordinate.longitude),"time":"\#(ISO8601Timestamp.format(entry.element.timestamp))"}"#
        }
        let reply = client.command(#"{"type":"snap_route","id":"m","trace":[\#(points.joined(separator: ","))]}"#, id: "m")
        #expect(reply?.type == "reply", "\(String(describing: reply))")
        let route = client.waitFor(timeout: 20) { $0.type == "route" || ($0.type == "route_calculation" && $0["status"]?.stringValue == "failed") }
        #expect(route?.type == "route", "snap failed: \(String(describing: route))\n\(navd.log.suffix(1500))")
        #expect(route?["reason"]?.stringValue == "snap")
        #expect((route?["distance"]?.doubleValue ?? 0) > 200)
    }
}
