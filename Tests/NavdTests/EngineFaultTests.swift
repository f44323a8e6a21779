import Foundation
import NavigationCore
import Testing
import TestSupport

/// Fault injection, engines: the real navd behind a routing server that misbehaves (`FaultyEngine`, a real TCP
/// server in front of the real Valhalla). Each fault meets a `navigate` while a trip is under way; the client
/// must see the right non-fatal and final errors, and the trip must go on on its last good route.
@Suite(.serialized)
struct EngineFaultTests {
    struct Fault: CustomTestStringConvertible, Sendable {
        var behaviour: FaultyEngine.Behaviour
        /// The final error's code.
        var code: String
        var retryable: Bool
        /// Attempts before the session fails (max_attempts is 2).
        var attempts: Int
        var testDescription: String { behaviour.rawValue }
    }

    static let faults: [Fault] = [
        Fault(behaviour: .internalError, code: "http_500", retryable: true, attempts: 2),
        Fault(behaviour: .htmlWith200, code: "invalid_response", retryable: false, attempts: 1),
        Fault(behaviour: .truncatedJSON, code: "invalid_response", retryable: false, attempts: 1),
        Fault(behaviour: .cutMidAnswer, code: "connection_lost", retryable: true, attempts: 2),
        Fault(behaviour: .slow, code: "timed_out", retryable: true, attempts: 2),
        Fault(behaviour: .stalledBody, code: "timed_out", retryable: true, attempts: 2),
        Fault(behaviour: .noRoute, code: "engine_refused", retryable: false, attempts: 1),
    ]

    @Test func everyEngineFaultIsReportedTheTripKeepsItsRouteAndRecoveryFollows() async throws {
        let valhalla = try Engines.valhallaURL()
        let drive = try await DeviatingDrive.make(valhallaURL: valhalla, speed: 10)
        let engine = try FaultyEngine(upstream: valhalla)
        engine.slowDelay = 2.5
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(
            device: pty.devicePath, valhalla: engine.url, extraRouting: "max_attempts = 2\nretry_delay = 0.2\ntimeout = 1.0")
        try navd.start()
        let client = try navd.connect()
        var fix = 0
        pty.write(drive.nmea(fix))
        _ = client.waitFor(timeout: 10) { $0.type == "trip_state" }
        _ = client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")
        let initial = try #require(client.waitFor(timeout: 15) { $0.type == "route" }, "no route through the forwarding engine:\n\(navd.log.suffix(2000))")
        let routeId = try #require(initial["routeId"]?.stringValue)

        for (index, fault) in Self.faults.enumerated() {
            engine.behaviour = fault.behaviour
            let started = Date()
            _ = client.command(DeviatingDrive.navigateCommand(id: "f\(index)"), id: "f\(index)")
            var retries: [JSONValue] = []
            let failed = client.waitFor(timeout: 20) { message in
                guard message.type == "route_calculation" else { return false }
                if message["status"]?.stringValue == "in_progress", message["error"] != nil { retries.append(message) }
                return ["failed", "succeeded"].contains(message["status"]?.stringValue ?? "")
            }
            let elapsed = Date().timeIntervalSince(started)
            #expect(failed?["status"]?.stringValue == "failed", "\(fault.behaviour): \(String(describing: failed))\n\(navd.log.suffix(2000))")
            #expect(failed?["error"]?["code"]?.stringValue == fault.code, "\(fault.behaviour): \(String(describing: failed?["error"]))")
            #expect(failed?["error"]?["retryable"]?.boolValue == fault.retryable, "\(fault.behaviour)")
            #expect(failed?["attempts"]?.doubleValue == Double(fault.attempts), "\(fault.behaviour)")
            #expect(failed?["error"]?["message"]?.stringValue?.isEmpty == false)
            // Each retry was announced as a non-fatal error with the same code.
            #expect(retries.count == fault.attempts - 1, "\(fault.behaviour): \(retries)")
            #expect(retries.allSatisfy { $0["error"]?["code"]?.stringValue == fault.code })
            // The trip goes on on its last good route.
            fix += 1
            pty.write(drive.nmea(fix))
            let state = client.waitFor(timeout: 5) { $0.type == "trip_state" }
            #expect(state?["state"]?.stringValue == "navigating", "\(fault.behaviour)")
            #expect(state?["routeId"]?.stringValue == routeId, "\(fault.behaviour): the trip lost its route")
            print("engine fault \(fault.behaviour.rawValue): \(fault.code) after \(fault.attempts) attempt(s) in \(String(format: "%.2f", elapsed)) s; trip kept \(routeId)")
        }
        #expect(navd.process?.isRunning == true)

        // The engine recovers: the next calculation succeeds and its route is navigated.
        engine.behaviour = .forward
        _ = client.command(DeviatingDrive.navigateCommand(id: "back"), id: "back")
        let recovered = client.waitFor(timeout: 15) { $0.type == "route" }
        #expect(recovered?["reason"]?.stringValue == "initial")
        #expect(recovered?["routeId"]?.stringValue != routeId, "recovery gives a new route")
        print("engine fault recovery: \(engine.requests) requests reached the faulty engine in all")
    }

    /// An API key in the engine's URL reaches the engine and nothing else: not the log, not an event, not the
    /// error message of a server that quotes the request back.
    @Test func anAPIKeyInTheEngineURLNeverReachesTheLogOrAnEvent() async throws {
        let valhalla = try Engines.valhallaURL()
        let drive = try await DeviatingDrive.make(valhallaURL: valhalla, speed: 10)
        let engine = try FaultyEngine(upstream: valhalla)
        let secret = "k3y-\(UUID().uuidString.prefix(12))"
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: "\(engine.url)/?api_key=\(secret)", extraRouting: "max_attempts = 1")
        try navd.start()
        let client = try navd.connectAndNavigate(drive, pty: pty)
        #expect(client.waitFor(timeout: 15) { $0.type == "route" } != nil, "the key-carrying URL did not route:\n\(navd.log.suffix(2000))")
        engine.behaviour = .unauthorizedQuotingTheRequest
        _ = client.command(DeviatingDrive.navigateCommand(id: "denied"), id: "denied")
        let failed = client.waitFor(timeout: 10) { $0.type == "route_calculation" && $0["status"]?.stringValue == "failed" }
        #expect(failed?["error"]?["code"]?.stringValue == "http_401")
        #expect(failed?["error"]?["message"]?.stringValue?.contains("api_key=***") == true, "\(String(describing: failed))")
        _ = client.command(#"{"type":"status","id":"s"}"#, id: "s")
        client.drain(for: 0.5)
        let everything = client.received.map { "\($0)" }.joined(separator: "\n")
        #expect(!everything.contains(secret), "an event or reply carries the key")
        #expect(!navd.log.contains(secret), "the log carries the key:\n\(navd.log)")
        #expect(navd.log.contains("api_key=***"), "the log does not say which URL (redacted) it uses")
    }
}
