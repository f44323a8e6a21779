import Foundation
import NavigationCore
import Testing
import TestSupport

/// Drives under systemd: a real route's NMEA from a pty inside the container, through gpsd.service or straight
/// to navd's serial source, navigated by navd under its packaged unit with Valhalla on the host.
@Suite("drives under systemd", .serialized)
struct SystemdDriveTests {
    /// Seconds between epochs (the fixes are 1 s apart in GNSS time: twice real time).
    static let epochInterval = 0.5

    static func destinationArgument() -> String {
        "\(DeviatingDrive.destination.latitude),\(DeviatingDrive.destination.longitude)"
    }

    /// The route id of the trip a client saw (from the `route` event or its `hello` state).
    static func routeIds(_ messages: [JSONValue]) -> Set<String> {
        Set(messages.compactMap { message -> String? in
            switch message["type"]?.stringValue {
            case "trip_state", "route", "arrived": return message["routeId"]?.stringValue
            case "hello": return message["state"]?["routeId"]?.stringValue
            default: return nil
            }
        })
    }

    @Test("gpsd.service to navd to arrival; SIGKILL restarts it on the same route, a hang is ended by the watchdog")
    func gpsdDriveSurvivesKillAndHang() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: Engines.valhallaURL())
        let epochs = try DeviatingDrive.onPlannedRoute(drive, from: 0)
        let navd = try await NavdInstallation.boot()
        defer { navd.system.shutdown() }
        let system = navd.system
        let receiver = try PtyReceiver(in: system)
        try system.write(
            "START_DAEMON=\"true\"\nUSBAUTO=\"false\"\nDEVICES=\"\(PtyReceiver.device)\"\nGPSD_OPTIONS=\"-n\"\n", to: "/etc/default/gpsd")
        try system.must("systemctl restart gpsd.service")
        try navd.start()
        try await receiver.send(epochs[0..<3], interval: Self.epochInterval)
        // gpsd reads the receiver: navd leaves no file keeping gpsd's hotplug off it.
        #expect(try system.run("test -e /var/lib/navd/serial-receiver").succeeded == false)

        // alice starts the trip.
        let first = try navd.navctl("watch --json --to \(Self.destinationArgument()) --timeout 300", as: "alice")
        let routed = try await system.waitUntil(timeout: 30) {
            receiver.send(epochs[min(receiver.epochsSent, epochs.count - 1)])
            return NavdInstallation.messages(of: first).contains { $0["type"]?.stringValue == "route" }
        }
        try #require(routed, "no route: \(first.output.suffix(3000))\n\(navd.journalText)")
        let routeId = try #require(NavdInstallation.messages(of: first).first { $0["type"]?.stringValue == "route" }?["routeId"]?.stringValue)
        let third = epochs.count / 3
        try await receiver.send(epochs[receiver.epochsSent..<third], interval: Self.epochInterval)
        #expect(try await system.waitUntil(timeout: 10) { try system.run("test -s /var/lib/navd/trip.json").succeeded }, "no trip journal")

        // SIGKILL mid-trip: Restart=on-failure brings navd back, and it resumes the trip from its journal.
        let killed = try navd.mainPID()
        try system.must("kill -KILL \(killed)")
        #expect(try await navd.waitForRestart(count: 1, replacing: killed, timeout: 30), "not restarted: \(navd.journalText)")
        #expect(first.waitForExit(timeout: 10) != nil, "the first client was not disconnected")
        let second = try navd.navctl("watch --json --timeout 300", as: "alice")
        try await receiver.send(epochs[receiver.epochsSent..<(2 * third)], interval: Self.epochInterval)
        let afterKill = NavdInstallation.messages(of: second)
        #expect(Self.routeIds(afterKill) == [routeId], "after SIGKILL: \(Self.routeIds(afterKill)), expected \(routeId)")
        #expect(afterKill.contains { $0["type"]?.stringValue == "trip_state" && $0["state"]?.stringValue == "navigating" }, "\(second.output.suffix(2000))")

        // A hung navd (SIGSTOP) stops pinging the watchdog: systemd aborts it after WatchdogSec and restarts it.
        let hung = try navd.mainPID()
        let stoppedAt = Date()
        try system.must("kill -STOP \(hung)")
        #expect(try await navd.waitForRestart(count: 2, replacing: hung, timeout: 60), "not restarted after a hang: \(navd.journalText)")
        print("watchdog: a hung navd was replaced after \(String(format: "%.1f", Date().timeIntervalSince(stoppedAt))) s (WatchdogSec=10s)")
        #expect(try navd.journal().contains("Watchdog timeout"))
        let last = try navd.navctl("watch --json --until-arrived --timeout 300", as: "alice")
        try await receiver.send(epochs[receiver.epochsSent..<(epochs.count - 3)], interval: Self.epochInterval)
        let rss = try system.must("awk '/VmRSS/ {print $2}' /proc/\(try navd.mainPID())/status").trimmingCharacters(in: .whitespacesAndNewlines)
        print("navd under systemd, navigating with gpsd: RSS \(rss) kB")
        try await receiver.send(epochs[receiver.epochsSent...], interval: Self.epochInterval)
        let arrived = last.waitForExit(timeout: 30)
        let finalMessages = NavdInstallation.messages(of: last)
        #expect(arrived == 0, "the trip did not complete: \(last.output.suffix(3000))")
        #expect(finalMessages.contains { $0["type"]?.stringValue == "arrived" }, "\(last.output.suffix(3000))")
        #expect(Self.routeIds(finalMessages) == [routeId], "after the watchdog: \(Self.routeIds(finalMessages))")
        #expect(try navd.restarts() == 2)
        try NavdServiceTests.expectNoRuntimeNoise(in: try navd.journal(), starts: 3, system: system)
    }

    @Test("serial source: a device class the unit does not allow is refused; a pty drive to arrival; reload applies a change")
    func serialDriveAndReload() async throws {
        let drive = try await DeviatingDrive.make(valhallaURL: Engines.valhallaURL())
        let epochs = try DeviatingDrive.onPlannedRoute(drive, from: 0)
        // First a receiver on a device class the unit does not list in DeviceAllow= (major 60, reserved for local
        // use, so no driver answers: opening it fails with ENXIO unless something refuses it first).
        let navd = try await NavdInstallation.boot(configure: [
            (#"source = "gpsd""#, #"source = "serial""#), (#"serial = "auto""#, #"serial = "/dev/gnss-local0""#), ("baud = 0", "baud = 9600"),
        ])
        defer { navd.system.shutdown() }
        let system = navd.system
        try system.must("mknod -m 0666 /dev/gnss-local0 c 60 0")
        // Outside the unit, opening it reaches the kernel, which has no such driver: not a permission error.
        let outside = try system.run("head -c1 /dev/gnss-local0")
        #expect(outside.text.contains("No such device or address"), "\(outside)")

        // DevicePolicy=closed: the kernel refuses navd the device, navd says so and runs on.
        try navd.start()
        let refused = try await system.waitUntil(timeout: 20) { try navd.journal().split(separator: "\n").contains { $0.contains("/dev/gnss-local0") && $0.contains("Operation not permitted") } }
        #expect(refused, "the device policy did not refuse /dev/gnss-local0: \(navd.journalText)")
        #expect(try system.property("SubState") == "running")

        // A pty receiver: systemd's closed policy always allows ptys (/dev/ptmx, /dev/pts/N), no drop-in needed.
        let receiver = try PtyReceiver(in: system)
        let ptyEdits = [
            (#"source = "gpsd""#, #"source = "serial""#), (#"serial = "auto""#, #"serial = "\#(PtyReceiver.device)""#), ("baud = 0", "baud = 9600"),
        ]
        try navd.configure(ptyEdits)
        try system.must("systemctl restart navd.service")
        // Reading the receiver itself, navd keeps the file by which its udev rules keep gpsd's hotplug off it.
        let marker = try system.run("cat /var/lib/navd/serial-receiver")
        #expect(marker.succeeded && marker.text.contains(PtyReceiver.device), "\(marker)")
        try await receiver.send(epochs[0..<3], interval: Self.epochInterval)
        let client = try navd.navctl("watch --json --to \(Self.destinationArgument()) --until-arrived --timeout 300", as: "alice")
        try await receiver.send(epochs[3..<(epochs.count / 2)], interval: Self.epochInterval)

        // systemctl reload: SIGHUP, the new reroute policy applies to the running navd, and the journal says so.
        try navd.configure(ptyEdits + [(#"policy = "automatic""#, #"policy = "report_only""#)])
        let mainPID = try navd.mainPID()
        try system.must("systemctl reload navd.service")
        #expect(try await system.waitUntil(timeout: 10) { try navd.journal().contains("reloaded /etc/navd/navd.toml") }, "\(navd.journalText)")
        let observer = try system.run("navctl watch --json --timeout 2", user: "bob")
        let hello = NavdInstallation.messages(of: observer.text).first
        #expect(hello?["state"]?["reroute"]?["policy"]?.stringValue == "report_only", "\(observer)")
        #expect(try navd.mainPID() == mainPID, "reload restarted navd")

        try await receiver.send(epochs[(epochs.count / 2)...], interval: Self.epochInterval)
        #expect(client.waitForExit(timeout: 30) == 0, "the serial drive did not arrive: \(client.output.suffix(3000))\n\(navd.journalText)")
        #expect(NavdInstallation.messages(of: client).contains { $0["type"]?.stringValue == "arrived" })
        #expect(try navd.restarts() == 0)
        try NavdServiceTests.expectNoRuntimeNoise(in: try navd.journal(), starts: 2, system: system)
    }
}
