import Foundation
import NavigationCore
import Testing
import TestSupport

/// The real navd process, a real GNSS path (gpsd or a serial pty) and the real Valhalla: a drive that leaves
/// the route, is rerouted, and arrives.
@Suite(.serialized)
struct EndToEndDriveTests {
    @Test func gpsdDriveLeavingTheRouteIsReroutedAndArrives() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 20)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("navd-e2e-\(UUID().uuidString).nmea")
        try Data(drive.nmeaLog.utf8).write(to: log)
        defer { try? FileManager.default.removeItem(at: log) }
        let port = freePort()
        // -1: play once; -c 0.15 s between sentences: one epoch (RMC + GGA) every 0.3 s.
        let gpsfake = try GpsFake.start(log, port: port, cycle: "0.15")
        let navd = try NavdInstance.gpsd(port: port, valhalla: try Engines.valhallaURL())
        try navd.start()
        let client = try navd.connect()
        // Sent before gpsd has a fix: the session waits for the first one.
        let navigate = try #require(client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go"))
        #expect(navigate.type == "reply", "navigate failed: \(navigate)")
        let arrived = client.waitFor(timeout: Double(drive.fixes.count) * 2 + 60) { $0.type == "arrived" }
        #expect(arrived != nil, "no arrival; navd log:\n\(navd.log.suffix(3000))\ngpsfake:\n\(gpsfake.output.suffix(1000))")
        _ = client.receivedOrWaitFor(timeout: 5) { $0.type == "trip_state" && $0["state"]?.stringValue == "complete" }
        expectDriveEventOrder(client.receivedLines, sourceLabel: "gpsd")
        gpsfake.stop()
    }

    @Test func serialDriveLeavingTheRouteIsReroutedAndArrives() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: try Engines.valhallaURL(), speed: 15)
        let pty = try PtyPair()
        let navd = try NavdInstance.serial(device: pty.devicePath, valhalla: try Engines.valhallaURL())
        try navd.start()
        let client = try navd.connect()
        // The first fixes: navd needs a position before it can route from it.
        for index in 0..<2 { pty.write(drive.nmea(index)); usleep(100_000) }
        #expect(client.waitFor(timeout: 10) { $0.type == "trip_state" } != nil, "no fix reached navd:\n\(navd.log.suffix(2000))")
        let navigate = try #require(client.command(DeviatingDrive.navigateCommand(id: "go"), id: "go"))
        #expect(navigate.type == "reply")
        #expect(client.waitFor(timeout: 10) { $0.type == "route" } != nil)
        // Five epochs per wall-clock second; the fixes' own times are one second apart.
        for index in 2..<drive.fixes.count {
            pty.write(drive.nmea(index))
            client.drain(for: 0.2)
        }
        let arrived = client.receivedOrWaitFor(timeout: 15) { $0.type == "arrived" } != nil
        #expect(arrived, "no arrival; navd log:\n\(navd.log.suffix(3000))")
        _ = client.receivedOrWaitFor(timeout: 5) { $0.type == "trip_state" && $0["state"]?.stringValue == "complete" }
        expectDriveEventOrder(client.receivedLines, sourceLabel: "serial")
    }
}
