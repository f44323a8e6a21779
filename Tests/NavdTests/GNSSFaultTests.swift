import Foundation
import NavigationCore
import Testing
import TestSupport

/// Fault injection, GNSS: the receiver's daemon dies, the receiver is unplugged, the receiver goes silent.
/// The real navd reports each, moves nothing it cannot know, and carries on when the fixes return. (A teleport,
/// a fix from the past and a repeated fix: FieldDaemonTests.)
@Suite(.serialized)
struct GNSSFaultTests {
    /// Writes the drive's fixes from `from` at 5 Hz for `count` fixes, reading what navd says meanwhile.
    static func drive(_ drive: DeviatingDrive, _ pty: PtyPair, _ client: SocketClient, from: Int, count: Int) -> Int {
        var index = from
        for _ in 0..<count where index < drive.fixes.count {
            pty.write(drive.nmea(index))
            index += 1
            client.drain(for: 0.2)
        }
        return index
    }

    /// The trip on the planned route to the destination, navigated, with a client watching.
    static func navigating(_ drive: DeviatingDrive, _ pty: PtyPair, _ navd: NavdInstance) throws -> (SocketClient, String, Int) {
        try navd.start()
        let client = try navd.connect()
        var index = 0
        while index < 20, !client.received.contains(where: { $0.type == "trip_state" }) {
            index = Self.drive(drive, pty, client, from: index, count: 1)
        }
        _ = client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go")
        let route = try #require(client.waitFor(timeout: 10) { $0.type == "route" }, "no route:\n\(navd.log.suffix(2000))")
        return (client, try #require(route["routeId"]?.stringValue), index)
    }

    /// Breaks the source (`fault`), waits for `lost`, repairs it (`repair`) and drives on until the trip's
    /// states come back on `routeId`. Returns seconds from the fault to `lost` and from the repair to the first
    /// real state.
    static func lossAndRecovery(
        _ drive: DeviatingDrive, _ pty: PtyPair, _ navd: NavdInstance, _ client: SocketClient, routeId: String, from start: Int,
        fault: () throws -> Void, repair: () throws -> Void
    ) throws -> (lostAfter: Double, resumedAfter: Double) {
        var index = Self.drive(drive, pty, client, from: start, count: 10)
        let broken = Date()
        try fault()
        let lost = client.waitFor(timeout: 10) { $0.type == "gnss" && $0["status"]?.stringValue == "lost" }
        let lostAfter = Date().timeIntervalSince(broken)
        #expect(lost != nil, "the fault was not reported:\n\(navd.log.suffix(2000))")
        #expect(lost?["detail"]?.stringValue?.isEmpty == false)
        #expect(navd.process?.isRunning == true)
        let lostIndex = try #require(client.received.lastIndex { $0.type == "gnss" && $0["status"]?.stringValue == "lost" })
        try repair()
        let repaired = Date()
        var resumed: JSONValue?
        for _ in 0..<60 where resumed == nil {
            index = Self.drive(drive, pty, client, from: index, count: 1)
            // The last real (not predicted) trip state after GNSS came back.
            let later = client.received[(lostIndex + 1)...]
            if let back = later.firstIndex(where: { $0.type == "gnss" && $0["status"]?.stringValue != "lost" }) {
                resumed = client.received[back...].last { $0.type == "trip_state" && $0["predicted"] == nil }
            }
        }
        #expect(resumed?["routeId"]?.stringValue == routeId, "the trip did not resume on its route:\n\(navd.log.suffix(2000))")
        return (lostAfter, Date().timeIntervalSince(repaired))
    }

    @Test func gpsdKilledAndRestartedIsReportedAndTheTripResumes() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 5)
        let pty = try PtyPair()
        let port = freePort()
        func startGpsd() throws -> ExternalProcess {
            let gpsd = try ExternalProcess("gpsd", ["-N", "-n", "-S", "\(port)", pty.devicePath])
            #expect(waitForTCPListener(port: port, timeout: 10), "gpsd did not listen:\n\(gpsd.output)")
            return gpsd
        }
        var gpsd = try startGpsd()
        defer { gpsd.stop() }
        let navd = try NavdInstance.gpsd(port: port, valhalla: try Engines.valhallaURL())
        let (client, routeId, start) = try Self.navigating(drive, pty, navd)
        let (lostAfter, resumedAfter) = try Self.lossAndRecovery(
            drive, pty, navd, client, routeId: routeId, from: start,
            fault: { _ = gpsd.signalAndWait(SIGKILL, timeout: 5) }, repair: { gpsd = try startGpsd() })
        print("gnss fault gpsd killed: lost after \(String(format: "%.2f", lostAfter)) s; fixes again \(String(format: "%.2f", resumedAfter)) s after gpsd restarted")
    }

    @Test func aSerialReceiverUnpluggedAndPluggedInAgainIsReportedAndTheTripResumes() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 5)
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: try Engines.valhallaURL())
        let (client, routeId, start) = try Self.navigating(drive, pty, navd)
        let (lostAfter, resumedAfter) = try Self.lossAndRecovery(
            drive, pty, navd, client, routeId: routeId, from: start, fault: { pty.unplug() }, repair: { try pty.plugIn() })
        print("gnss fault serial unplugged: lost after \(String(format: "%.2f", lostAfter)) s; fixes again \(String(format: "%.2f", resumedAfter)) s after plugging in")
    }

    @Test func fifteenSecondsOfSilenceMoveNothingAndTheTripResumesCleanly() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 5)
        let pty = try PtyPair()
        // No dead reckoning: nothing may advance without fixes (with it, predicted states say `predicted`).
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: try Engines.valhallaURL(), extraRouting: "", extra: "")
        try Data(
            try String(contentsOfFile: navd.configPath, encoding: .utf8).replacingOccurrences(of: "baud = 9600", with: "baud = 9600\ndead_reckoning = 0")
                .utf8
        ).write(to: URL(fileURLWithPath: navd.configPath))
        let (client, routeId, start) = try Self.navigating(drive, pty, navd)
        let index = Self.drive(drive, pty, client, from: start, count: 10)
        let before = try #require(client.received.last { $0.type == "trip_state" })

        let beforeSilence = client.received.count
        client.drain(for: 15)
        let during = client.received[beforeSilence...]
        let lost = during.first { $0.type == "gnss" && $0["status"]?.stringValue == "lost" }
        #expect(lost != nil, "15 s of silence and no gnss lost")
        #expect(!during.contains { $0.type == "trip_state" }, "trip states without fixes: \(during.filter { $0.type == "trip_state" }.prefix(2))")
        #expect(!during.contains { $0.type == "deviation" || $0.type == "route_calculation" })
        let status = client.command(#"{"type":"status","id":"s"}"#, id: "s")
        #expect((status?["result"]?["gnss"]?["lastFixAge"]?.doubleValue ?? 0) >= 14, "\(String(describing: status))")

        // Fixes return, continuing the drive 15 s later (the vehicle stood still meanwhile: same place, later time).
        _ = Self.drive(drive, pty, client, from: index, count: 10)
        let after = try #require(client.received.last { $0.type == "trip_state" })
        #expect(after["routeId"]?.stringValue == routeId)
        #expect(after["state"]?.stringValue == "navigating")
        let travelledBefore = before["distanceTravelled"]?.doubleValue ?? 0
        let travelledAfter = after["distanceTravelled"]?.doubleValue ?? 0
        #expect(travelledAfter - travelledBefore < 80, "distance travelled jumped by \(travelledAfter - travelledBefore) m over the silence")
        #expect(client.received[beforeSilence...].contains { $0.type == "gnss" && $0["status"]?.stringValue == "ok" })
        print("gnss fault silence: lost reported, no trip state for 15 s; distance travelled \(Int(travelledBefore)) -> \(Int(travelledAfter)) m over 10 fixes after it")
    }
}
