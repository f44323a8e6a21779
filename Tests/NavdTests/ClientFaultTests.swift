import Foundation
import NavigationCore
import Synchronization
import Testing
import TestSupport

/// Fault injection, clients: raw bytes no client library would send, a connection that never reads, and many
/// clients coming and going, against the real navd process. Bad input gets a clear error and loses nothing.
@Suite(.serialized)
struct ClientFaultTests {
    struct BadBytes: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var code: String
        var testDescription: String { name }
    }

    static let badBytes: [BadBytes] = [
        BadBytes(name: "invalid UTF-8 in a string", bytes: Array(#"{"type":"status","id":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8), code: "invalid_json"),
        BadBytes(name: "an overlong UTF-8 encoding", bytes: Array(#"{"type":"status","id":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), code: "invalid_json"),
        BadBytes(name: "a NUL inside a string", bytes: Array(#"{"type":"status","id":"a"#.utf8) + [0] + Array(#""}"#.utf8), code: "invalid_json"),
        BadBytes(name: "NUL bytes only", bytes: [0, 0, 0, 0], code: "invalid_json"),
        BadBytes(name: "arrays nested 100 000 deep", bytes: Array(repeating: UInt8(ascii: "["), count: 100_000), code: "invalid_json"),
        BadBytes(name: "objects nested 100 000 deep", bytes: Array(String(repeating: #"{"a":"#, count: 20_000).utf8), code: "invalid_json"),
        BadBytes(name: "a latitude as a string", bytes: Array(#"{"type":"navigate","id":"w","waypoints":[{"lat":"60.17","lon":24.94}]}"#.utf8), code: "invalid_field"),
        BadBytes(name: "a number too large for a double", bytes: Array(#"{"type":"navigate","id":"w","waypoints":[{"lat":1e999,"lon":24.94}]}"#.utf8), code: "invalid_json"),
        BadBytes(name: "a session id as an object", bytes: Array(#"{"type":"cancel_calculation","id":"w","session":{}}"#.utf8), code: "invalid_field"),
        // Finite but huge numbers: each trapped a conversion to Int somewhere before CheckedNumber.
        BadBytes(name: "a session of 1e300", bytes: Array(#"{"type":"cancel_calculation","id":"w","session":1e300}"#.utf8), code: "invalid_field"),
        BadBytes(name: "a session of 2^63", bytes: Array(#"{"type":"cancel_calculation","id":"w","session":9223372036854775808}"#.utf8), code: "invalid_field"),
        BadBytes(name: "a snap radius of -1e300", bytes: Array(#"{"type":"snap_route","id":"w","trace":[{"lat":60.17,"lon":24.94,"radius":-1e300},{"lat":60.171,"lon":24.94}]}"#.utf8), code: "invalid_field"),
        BadBytes(name: "a waypoint radius of 1e300", bytes: Array(#"{"type":"navigate","id":"w","waypoints":[{"lat":60.17,"lon":24.94,"properties":{"radius":1e300}}]}"#.utf8), code: "invalid_field"),
        BadBytes(name: "a waypoint bearing of [1e20, 45]", bytes: Array(#"{"type":"navigate","id":"w","waypoints":[{"lat":60.17,"lon":24.94,"properties":{"bearing":[1e20,45]}}]}"#.utf8), code: "invalid_field"),
    ]

    @Test func rawBadBytesGetAnErrorEachAndTheConnectionStaysUsable() throws {
        // Lines up to 1 MB, so the deep nesting reaches the parser instead of the line limit.
        let navd = try ProtocolTests.navd(extraSocket: "max_line_length = 1048576")
        try navd.start()
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        for bad in Self.badBytes {
            client.sendBytes(bad.bytes + [UInt8(ascii: "\n")])
            let error = client.waitFor(timeout: 5) { $0.type == "error" }
            #expect(error?["code"]?.stringValue == bad.code, "\(bad.name): \(String(describing: error))")
            #expect(error?["message"]?.stringValue?.isEmpty == false, "\(bad.name)")
            // No replacement characters echoed back: the error carries the line's id only when it could be read.
            #expect(!(error.map { "\($0)" } ?? "").contains("\u{FFFD}"), "\(bad.name): \(String(describing: error))")
        }
        let status = client.command(#"{"type":"status","id":"after"}"#, id: "after")
        #expect(status?.type == "reply", "the connection is unusable after bad input")
        #expect(navd.process?.isRunning == true)
    }

    @Test func aTenMegabyteLineClosesOnlyItsConnection() throws {
        let navd = try ProtocolTests.navd()
        try navd.start()
        let bystander = try navd.connect()
        let client = try navd.connect()
        #expect(client.next(timeout: 5)?.type == "hello")
        let started = Date()
        client.sendBytes(Array(repeating: UInt8(ascii: "a"), count: 10_000_000) + [UInt8(ascii: "\n")])
        let error = client.waitFor(timeout: 10) { $0.type == "error" }
        #expect(error?["code"]?.stringValue == "line_too_long")
        #expect(client.next(timeout: 5) == nil && client.closedByServer)
        #expect(bystander.command(#"{"type":"status","id":"s"}"#, id: "s")?.type == "reply")
        let rss = try #require(navd.process.map { processRSS($0.pid) })
        print("client fault 10 MB line: refused in \(String(format: "%.2f", Date().timeIntervalSince(started))) s; navd RSS \(rss / 1024) KB")
        #expect(rss < 200 * 1024 * 1024, "navd buffered the line: RSS \(rss)")
    }

    /// A client that sends 100 000 commands and never reads is cut off; readers do not notice.
    @Test func aFloodOf100000CommandsFromAClientThatNeverReads() throws {
        let navd = try ProtocolTests.navd(extraSocket: "client_queue_limit = 64", rate: 10)
        try navd.start()
        let readers = try (0..<5).map { _ in try navd.connect() }
        let flooder = try navd.connect()
        let pid = try #require(navd.process?.pid)
        let rssBefore = processRSS(pid)
        var flood: [UInt8] = []
        for i in 0..<100_000 { flood += Array("{\"type\":\"status\",\"id\":\"f\(i)\"}\n".utf8) }
        // Sent from another thread: once navd stops reading the flooder, the send blocks or fails.
        let bytes = flood
        let sending = Thread { flooder.sendBytes(bytes) }
        sending.start()
        let start = Date()
        var counts = [Int](repeating: 0, count: readers.count)
        while Date().timeIntervalSince(start) < 4 {
            for (i, reader) in readers.enumerated() {
                while let message = reader.next(timeout: 0.01) { if message.type == "trip_state" { counts[i] += 1 } }
            }
        }
        let rssAfter = processRSS(pid)
        #expect(counts.allSatisfy { $0 >= 25 }, "readers starved by the flood: \(counts)")
        var sawSlowClient = false
        while !sawSlowClient, let message = flooder.next(timeout: 10) {
            sawSlowClient = message.type == "error" && message["code"]?.stringValue == "slow_client"
        }
        #expect(sawSlowClient, "the flooder was never cut off")
        #expect(navd.log.contains("client too slow"))
        #expect(readers[0].command(#"{"type":"status","id":"ok"}"#, id: "ok")?.type == "reply")
        print("client fault flood: readers got \(counts.min() ?? 0)-\(counts.max() ?? 0) states in 4 s; navd RSS \(rssBefore / 1024) -> \(rssAfter / 1024) KB")
        #expect(rssAfter < rssBefore + 64 * 1024 * 1024, "RSS grew by \((rssAfter - rssBefore) / 1024) KB under the flood")
    }

    /// Started as systemd starts services (a soft limit of 1024 open files), navd still serves `max_clients`
    /// clients: it raises its own soft limit. Without that, the kernel refuses the accept near the 1010th client.
    @Test func aThousandAndFiftyClientsAreServedUnderSystemdsDefaultFileLimit() throws {
        let clients = 1050
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let hard = limit.rlim_max
        #expect(hard >= rlim_t(clients + 1400), "this machine's hard limit (\(hard)) is too low for the test")
        // The test's own clients need a descriptor each.
        let saved = limit
        limit.rlim_cur = min(hard, rlim_t(clients + 512))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        defer {
            var restore = saved
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        }
        let navd = try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = \(DeviatingDrive.origin.latitude), lon = \(DeviatingDrive.origin.longitude) }
                rate = 1
                """, extraSocket: "max_clients = 1100")
        let process = try navd.start(wrapper: ["prlimit", "--nofile=1024:\(min(hard, 65536))", "--"])
        var connected: [SocketClient] = []
        var greeted = 0
        for _ in 0..<clients {
            let client = try navd.connect()
            if client.next(timeout: 5)?.type == "hello" { greeted += 1 }
            connected.append(client)
        }
        #expect(greeted == clients, "\(greeted) of \(clients) clients got their hello:\n\(navd.log.suffix(2000))")
        let limits = (try? String(contentsOfFile: "/proc/\(process.pid)/limits", encoding: .utf8)) ?? ""
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
        let soft = openFiles.flatMap { line in line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) } }
        #expect(soft == 1100 + 256, "navd's limits: \(openFiles ?? "none")")
        // The first and the last client are both answered.
        #expect(connected[0].command(#"{"type":"status","id":"s"}"#, id: "s")?.type == "reply")
        #expect(connected[clients - 1].command(#"{"type":"status","id":"s"}"#, id: "s")?.type == "reply")
    }

    /// navd driving the deviating drive's start at 10 Hz with the real Valhalla, for up to 256 clients.
    static func busyNavd() throws -> NavdInstance {
        try NavdInstance(
            sections: """
                [gnss]
                source = "simulate"
                [gnss.simulate]
                start = { lat = \(DeviatingDrive.origin.latitude), lon = \(DeviatingDrive.origin.longitude) }
                rate = 10
                speed = 30
                [routing]
                engine = "valhalla"
                url = "\(try Engines.valhallaURL())"
                """, extraSocket: "max_clients = 256")
    }

    /// 200 clients connect and leave for 20 s while navd navigates at 10 Hz; ten steady clients miss nothing.
    @Test func twoHundredChurningClientsDoNotDisturbTenSteadyOnes() throws {
        let navd = try Self.busyNavd()
        let process = try navd.start()
        let steady = try (0..<10).map { _ in try navd.connect() }
        for client in steady { #expect(client.next(timeout: 5)?.type == "hello") }
        _ = steady[0].command(DeviatingDrive.navigateCommand(id: "go"), id: "go")
        #expect(steady[0].waitFor(timeout: 15) { $0.type == "route" } != nil)
        let rssBefore = processRSS(process.pid)

        let churn = Churn()
        let socketPath = navd.socketPath
        let churners = (0..<200).map { index in
            Thread {
                var generator = SeededRandomNumberGenerator(seed: UInt64(index))
                while !churn.stop.load(ordering: .relaxed) {
                    guard let client = SocketClient.attempt(socketPath) else { continue }
                    churn.connections.add(1, ordering: .relaxed)
                    if client.next(timeout: 2)?.type == "hello" { churn.greeted.add(1, ordering: .relaxed) }
                    if generator.next() % 2 == 0 { client.send(#"{"type":"status","id":"c"}"#) }
                    Thread.sleep(forTimeInterval: Double(generator.next() % 200) / 1000)
                }
            }
        }
        churners.forEach { $0.start() }
        let start = Date()
        while Date().timeIntervalSince(start) < 20 {
            for client in steady { client.drain(for: 0.01) }
        }
        churn.stop.store(true, ordering: .relaxed)
        for client in steady { client.drain(for: 0.5) }
        let rssAfter = processRSS(process.pid)

        // Every steady client saw every event: the same instructions, and no gap in the sequence numbers (up to
        // the last event all of them have read).
        let lastSeen = steady.map { $0.received.compactMap { $0["seq"]?.doubleValue }.max() ?? 0 }.min() ?? 0
        let instructions = steady.map { client in
            client.received.filter { $0.type == "instruction" && ($0["seq"]?.doubleValue ?? 0) <= lastSeen }.map { "\($0["seq"] ?? .null)" }
        }
        #expect(!instructions[0].isEmpty, "no instruction in 20 s of driving")
        var missed = 0
        for (index, client) in steady.enumerated() {
            #expect(instructions[index] == instructions[0], "steady client \(index) saw other instructions")
            let seqs = client.received.compactMap { $0["seq"]?.doubleValue }.map(Int.init)
            let gaps = zip(seqs, seqs.dropFirst()).filter { $1 != $0 + 1 }
            missed += gaps.map { $1 - $0 - 1 }.reduce(0, +)
            #expect(gaps.isEmpty, "steady client \(index) missed events: \(gaps.prefix(5))")
            #expect(!client.closedByServer)
        }
        let states = steady[0].received.filter { $0.type == "trip_state" }.count
        print(
            "client fault churn: \(churn.connections.load(ordering: .relaxed)) connections (\(churn.greeted.load(ordering: .relaxed)) greeted) in 20 s; "
                + "steady clients got \(states) states and \(instructions[0].count) instructions each, \(missed) events missed; "
                + "navd RSS \(rssBefore / 1024) -> \(rssAfter / 1024) KB")
        #expect(churn.connections.load(ordering: .relaxed) > 1000, "the churn did not churn")
        #expect(states >= 150, "fewer states than 10 Hz for 20 s: \(states)")
        #expect(rssAfter < rssBefore + 32 * 1024 * 1024, "RSS grew by \((rssAfter - rssBefore) / 1024) KB")
    }

    /// The socket's mode is what keeps other users out; control rights are decided by peer credentials.
    @Test func anotherUserCannotConnectToA0600Socket() throws {
        let navd = try ProtocolTests.navd(socketMode: "0600")
        try navd.start()
        let mode = try FileManager.default.attributesOfItem(atPath: navd.socketPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let script = "echo '{\"type\":\"status\",\"id\":\"s\"}' | setpriv --reuid=65534 --regid=65534 --clear-groups socat -t 2 - UNIX-CONNECT:\(navd.socketPath)"
        let nobody = try ExternalProcess("/bin/sh", ["-c", script])
        let status = nobody.waitForExit(timeout: 10)
        #expect(status != 0, "nobody connected to a 0600 socket: \(nobody.output)")
        #expect(nobody.output.contains("Permission denied"), "\(nobody.output)")
        #expect(!nobody.output.contains("hello"))
    }
}

/// Resident set size of process `pid`, bytes (VmRSS in /proc).
func processRSS(_ pid: pid_t) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes * 1024
}

/// What the churning clients share.
final class Churn: Sendable {
    let stop = Atomic<Bool>(false)
    let connections = Atomic<Int>(0)
    let greeted = Atomic<Int>(0)
}
